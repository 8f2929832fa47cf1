"""docs/adding-a-policy.md, followed to the letter on a copy of the repository: its policy file
is written where the page says, its module line and registry entry are added where the page
says, and the catalog's tests (`tests/it/catalog_verify.rs`, unchanged) must then build, run the
new policy with verify on and check its settings table. A page that drifts from the code fails
here.

The copy shares the repository's cargo target directory, so only ssdlab-core and its test binary
are compiled again (the dependencies are reused from `make rust-test`'s build)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "adding-a-policy.md"
#: What cargo needs to build the core and its tests.
COPIED = ("Cargo.toml", "Cargo.lock", "rust-toolchain.toml", "rustfmt.toml", "clippy.toml", "crates")


def blocks(page: str) -> dict[tuple[str, str], str]:
    """The page's annotated Rust blocks: (role, path) -> text, the role being `file` (a whole
    new file), `module` (a module line) or `entry` (a registry entry)."""
    found = re.findall(r"```rust (file|module|entry)=(\S+)\n(.*?)```", page, re.S)
    return {(role, path): text for role, path, text in found}


def follow(page: str, repo: Path) -> str:
    """Apply the page's steps to `repo`; the new policy's id."""
    steps = blocks(page)
    assert {role for role, _ in steps} == {"file", "module", "entry"}, steps.keys()
    for (role, path), text in steps.items():
        target = repo / path
        if role == "file":
            assert not target.exists(), f"{path} exists: the example would overwrite a policy"
            target.write_text(text)
            continue
        source = target.read_text()
        if role == "module":
            # Beside the others: after the last module declaration.
            last = list(re.finditer(r"^(pub )?mod \w+;\n", source, re.M))[-1]
            source = source[: last.end()] + text + source[last.end() :]
        else:
            # At the end of the registry.
            start = source.index("pub const REGISTRY")
            end = source.index("\n];\n", start) + 1
            source = source[:end] + text + source[end:]
        target.write_text(source)
    return re.search(r'id: "(\w+)"', steps[next(k for k in steps if k[0] == "entry")]).group(1)


def test_the_page_adds_a_policy_that_the_catalog_verifies(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("target"))
        else:
            shutil.copy2(source, repo / name)
    policy = follow(PAGE.read_text(), repo)
    assert policy == "steady"
    run = subprocess.run(
        [
            "cargo",
            "test",
            "--profile",
            "test-release",
            "-p",
            "ssdlab-core",
            "--test",
            "it",
            "catalog_verify",
            "--",
            "--nocapture",
        ],
        cwd=repo,
        env={**os.environ, "CARGO_TARGET_DIR": str(ROOT / "target")},
        capture_output=True,
        text=True,
        check=False,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-4000:]
    assert re.search(r"test result: ok\. 2 passed", output), output[-2000:]
    # The unchanged catalog tests ran the new policy with verify on, and checked its settings
    # table (claimed, in the schema, an unknown key refused) among the others.
    assert f"[gc.scheduler = {policy}] verified" in output, output[-2000:]
    assert "catalog_verify_every_policy_settings_table_is_claimed_documented_and_checked ... ok" in output
