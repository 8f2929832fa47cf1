"""What importing a module drags in, checked in a fresh interpreter (not timed: CI machines vary).

The CLI must start without pandas, numpy, matplotlib or pyarrow (about half a second of imports),
and the library (experiments) must not import the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "numpy", "matplotlib", "pyarrow", "rich.progress", "ssdlab.api", "ssdlab.report")


def loaded_after(code: str, modules: tuple[str, ...]) -> list[str]:
    """Run `code` in a new interpreter; return which of `modules` it left in sys.modules."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {list(modules)!r} if m in sys.modules]))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "code",
    [
        "import ssdlab.cli",
        "import ssdlab",
        # What `ssdlab --help` and `ssdlab presets` execute (click exits with SystemExit).
        "from ssdlab.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass",
        "from ssdlab.cli import main\nmain(['presets'])",
        "from ssdlab.cli import main\ntry:\n    main(['compare', '--help'])\nexcept SystemExit:\n    pass",
        "from ssdlab.cli import main\ntry:\n    main(['sweep', '--help'])\nexcept SystemExit:\n    pass",
    ],
)
def test_cli_start_up_imports_nothing_heavy(code):
    assert loaded_after(code, HEAVY) == []


def test_lazy_api_still_resolves():
    # The API resolves on first use, and pandas waits until a DataFrame is asked for.
    assert loaded_after("import ssdlab\nssdlab.Report\nssdlab.run", ("pandas", "ssdlab.api")) == [
        "ssdlab.api"
    ]
    code = "import ssdlab\nssdlab.run(preset='tiny', overrides=['workload.count=10']).latency"
    assert loaded_after(code, ("pandas",)) == ["pandas"]


@pytest.mark.parametrize(
    "module", ["ssdlab.experiments.rlgc", "ssdlab.experiments.compare", "ssdlab.plots", "ssdlab.sweeps"]
)
def test_library_does_not_import_the_cli(module):
    assert loaded_after(f"import {module}", ("ssdlab.cli", "click")) == []
