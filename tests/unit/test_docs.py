"""Generated docs (config.md, cli.md) must match the code."""

from ssdlab import _docgen


def test_generated_docs_are_fresh():
    assert _docgen.main(["--check"]) == 0, "run `python -m ssdlab._docgen` and commit docs/"
