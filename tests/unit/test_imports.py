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


#: The modules that wrap the native bindings; everything else reaches the core through them.
WRAPPERS = {"__init__.py", "api.py", "config.py", "errors.py", "trace.py"}


def test_only_the_wrapper_layer_imports_the_bindings():
    """`ssdlab._core` is private: `ssdlab.api` (simulations), `ssdlab.config` (presets,
    resolution, schemas) and `ssdlab.trace` (trace statistics and tools) wrap it,
    `ssdlab.errors` re-exports the exception classes it makes, and the package's face
    re-exports the version. A new module that imports it fails here."""
    import ast
    from pathlib import Path

    import ssdlab

    root = Path(ssdlab.__file__).parent
    importers = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                names = [f"{module}.{a.name}" for a in node.names] + [module]
            if any(n == "ssdlab._core" or n.endswith("._core") or n == "_core" for n in names):
                importers.add(str(path.relative_to(root)))
    assert importers == WRAPPERS
