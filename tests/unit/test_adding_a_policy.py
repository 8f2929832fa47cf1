"""docs/adding-a-policy.md, followed to the letter on a copy of the repository: every example's
policy file is written where the page says, its module line and registry entry are added where
the page says, and the catalog's tests (`tests/it/catalog_verify.rs`, unchanged) must then build,
run each new policy with verify on and check its settings table. A page that drifts from the
code fails here.

One copy takes every example (and must pass `cargo fmt --check`, as the page's checklist asks),
and one cargo run verifies them all. The copy builds in `CARGO_TARGET_DIR` if it is set, else in
the repository's own target directory, so only ssdlab-core and its test binary are compiled
again (the dependencies are reused from `make rust-test`'s build)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "adding-a-policy.md"
#: What cargo needs to build the core and its tests.
COPIED = ("Cargo.toml", "Cargo.lock", "rust-toolchain.toml", "rustfmt.toml", "clippy.toml", "crates")
#: Where the seam table's registry paths are.
SOURCE = "crates/ssdlab-core/src/"
#: The seams the page walks through, one example each at least (the issue's acceptance check).
SEAMS = {"gc.scheduler", "cache.eviction", "slc.policy", "ftl.mapping", "transaction_scheduler.policy"}
#: The catalog's tests, as the page runs them.
VERIFY = (
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
)


@dataclass
class Example:
    """One policy the page adds: its new file, module line and registry entry (paths relative to
    the repository, texts as on the page), its seam's config key and its id."""

    file: tuple[str, str]
    module: tuple[str, str]
    entry: tuple[str, str]
    key: str
    id: str


def seams(page: str) -> dict[str, str]:
    """The page's seam table: registry path (from the repository root) -> config key."""
    rows = re.findall(r"^\| `([\w.]+)` \|[^|\n]*\| `([\w/]+\.rs)` \|", page, re.M)
    return {SOURCE + registry: key for key, registry in rows}


def examples(page: str) -> list[Example]:
    """The page's annotated Rust blocks (```rust file=PATH```, ```rust module=PATH```, ```rust
    entry=PATH```) grouped by policy: a new file, the module line in its folder that declares it
    and the registry entry in its folder that names it. Every block belongs to one example."""
    found = re.findall(r"```rust (file|module|entry)=(\S+)\n(.*?)```", page, re.S)
    by_role: dict[str, list[tuple[str, str]]] = {"file": [], "module": [], "entry": []}
    for role, path, text in found:
        by_role[role].append((path, text))
    keys = seams(page)
    used: list[tuple[str, str]] = []
    result = []
    for path, text in by_role["file"]:
        folder, stem = PurePosixPath(path).parent, PurePosixPath(path).stem
        module = [
            b
            for b in by_role["module"]
            if PurePosixPath(b[0]).parent == folder
            and re.fullmatch(rf"(pub(\(crate\))? )?mod {stem};\n", b[1])
        ]
        entry = [
            b
            for b in by_role["entry"]
            if PurePosixPath(b[0]).parent == folder and re.search(rf"\b{stem}::", b[1])
        ]
        assert len(module) == 1 and len(entry) == 1, f"{path}: modules {module}, entries {entry}"
        assert entry[0][0] in keys, f"{entry[0][0]} is not a registry of the page's seam table"
        policy = re.search(r'^\s*id: "(\w+)",$', entry[0][1], re.M)
        assert policy, entry[0][1]
        used += [module[0], entry[0]]
        result.append(Example((path, text), module[0], entry[0], keys[entry[0][0]], policy.group(1)))
    stray = [b[0] for role in ("module", "entry") for b in by_role[role] if b not in used]
    assert not stray, f"blocks that belong to no example's file: {stray}"
    return result


def add_module(source: str, line: str) -> str:
    """`line` among the file's module declarations, in the order `cargo fmt` keeps them."""
    declared = list(re.finditer(r"^(?:pub(?:\(crate\))? )?mod (\w+);\n", source, re.M))
    name = re.search(r"mod (\w+);", line).group(1)
    after = [m for m in declared if m.group(1) > name]
    at = after[0].start() if after else declared[-1].end()
    return source[:at] + line + source[at:]


def add_entry(source: str, entry: str) -> str:
    """`entry` at the end of the file's `REGISTRY`."""
    start = source.index("pub const REGISTRY")
    end = source.index("\n];\n", start) + 1
    return source[:end] + entry + source[end:]


def follow(page: str, repo: Path) -> list[Example]:
    """Apply every example of the page to `repo`; the examples."""
    found = examples(page)
    for example in found:
        path, text = example.file
        target = repo / path
        assert not target.exists(), f"{path} exists: the example would overwrite a policy"
        target.write_text(text)
        for (path, text), add in ((example.module, add_module), (example.entry, add_entry)):
            target = repo / path
            target.write_text(add(target.read_text(), text))
    return found


def settings_table(example: Example) -> str:
    """The settings table the example's file declares (`Settings::of::<T>("table")`), which its
    registry entry must hand to the catalog (`settings: Some(...)`)."""
    path, text = example.file
    declared = re.findall(r'Settings::of::<\w+>\("([\w.]+)"\)', text)
    assert len(declared) == 1, f"{path}: settings tables {declared}"
    stem = PurePosixPath(path).stem
    assert re.search(rf"settings: Some\((super::)?{stem}::SETTINGS\)", example.entry[1]), example.entry[1]
    return declared[0]


def cargo(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target").resolve()
    return subprocess.run(
        ["cargo", *args],
        cwd=repo,
        env={**os.environ, "CARGO_TARGET_DIR": str(target)},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_page_walks_through_every_seam_with_one_setting_each():
    found = examples(PAGE.read_text())
    assert {e.key for e in found} >= SEAMS, [e.key for e in found]
    for e in found:
        # The seam's table and the policy id: `[gc.steady]`, `[cache.keep_hot]`, ...
        assert settings_table(e) == f"{e.key.split('.')[0]}.{e.id}", e.file[0]
        struct = re.search(r"^pub struct \w+Settings \{\n(.*?)^\}", e.file[1], re.M | re.S)
        assert struct and len(re.findall(r"^    pub \w+:", struct.group(1), re.M)) == 1, e.file[0]
        # The layer its folder is in: `ftl` for the FTL's seams, `device` for the transaction
        # scheduler.
        layer = PurePosixPath(e.file[0]).relative_to(SOURCE).parts[0]
        assert e.file[1].startswith(f"//! Layer: {layer}."), e.file[0]


def test_the_page_adds_policies_that_the_catalog_verifies(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("target"))
        else:
            shutil.copy2(source, repo / name)
    found = follow(PAGE.read_text(), repo)
    assert {e.id for e in found} >= {"steady"}
    fmt = cargo(repo, "fmt", "--check")
    assert fmt.returncode == 0, (fmt.stdout + fmt.stderr)[-4000:]
    run = cargo(repo, *VERIFY)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-4000:]
    assert re.search(r"test result: ok\. 2 passed", output), output[-2000:]
    # The unchanged catalog tests ran every new policy with verify on, and checked every
    # declared settings table (claimed, in the schema, echoed, an unknown key refused), each
    # example's by name.
    for e in found:
        assert f"[{e.key} = {e.id}] verified" in output, output[-2000:]
        assert f"[{settings_table(e)}] settings claimed, documented, echoed and checked" in output, output[
            -2000:
        ]
    assert "catalog_verify_every_policy_settings_table_is_claimed_documented_and_checked ... ok" in output
