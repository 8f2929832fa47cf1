"""What importing a module drags in, checked in a fresh interpreter: the library (experiments,
plots) must not import the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def loaded_after(code: str, modules: tuple[str, ...]) -> list[str]:
    """Run `code` in a new interpreter; return which of `modules` it left in sys.modules."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {list(modules)!r} if m in sys.modules]))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", ["ssdlab.experiments.rlgc", "ssdlab.plots"])
def test_library_does_not_import_the_cli(module):
    assert loaded_after(f"import {module}", ("ssdlab.cli", "click")) == []
