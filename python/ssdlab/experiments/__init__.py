"""Reproductions of the papers' experiments (`ssdlab reproduce NAME`): one package per paper, registered
in `registry`, all run by `pipeline.reproduce` (docs/experiments/README.md)."""
