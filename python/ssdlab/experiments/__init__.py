"""Reproductions of the papers' experiments, one module per paper (`ssdlab reproduce NAME`)."""
