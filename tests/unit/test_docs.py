"""Generated docs (config.schema.json, config.md, cli.md) must match the code."""

from __future__ import annotations

import json
import shutil
import tomllib

import pytest

import ssdlab
from ssdlab import _docgen, config
from ssdlab.config import flatten


def test_generated_docs_are_fresh():
    assert _docgen.main(["--check"]) == 0, "run `python -m ssdlab._docgen` and commit docs/"


GENERATED = ["config.schema.json", "config.md", "cli.md", "workload-spec.schema.json"]


def test_every_generated_file_is_checked_here():
    assert sorted(_docgen.generate()) == sorted(GENERATED)


@pytest.mark.parametrize("name", GENERATED)
def test_check_fails_when_a_generated_file_is_stale(tmp_path, monkeypatch, name):
    for generated in GENERATED:
        shutil.copy(_docgen.DOCS / generated, tmp_path / generated)
    monkeypatch.setattr(_docgen, "DOCS", tmp_path)
    assert _docgen.main(["--check"]) == 0
    stale = tmp_path / name
    stale.write_text(stale.read_text().replace("e", "E", 1))
    assert _docgen.main(["--check"]) == 1
    stale.unlink()
    assert _docgen.main(["--check"]) == 1, "a missing file is stale too"


def _leaf_keys(schema: dict) -> dict[str, dict]:
    """Every leaf key of the schema (dotted) with its property schema."""
    reference = _docgen._Reference(schema)
    out: dict[str, dict] = {}

    def walk(node: dict, prefix: str) -> None:
        for key, prop in reference.resolve(node).get("properties", {}).items():
            path = f"{prefix}.{key}" if prefix else key
            if reference.is_table(prop):
                walk(prop, path)
            else:
                out[path] = prop

    walk(schema, "")
    return out


def test_reference_lists_every_key_with_its_doc_comment():
    schema = json.loads(config.schema_json())
    reference = _docgen.config_md(schema)
    rows = {
        line.split(" | ")[0].strip("| `"): line for line in reference.splitlines() if line.startswith("| `")
    }
    leaves = _leaf_keys(schema)
    assert len(leaves) > 80
    assert set(rows) == set(leaves), "one table row per key"
    undocumented = [key for key, prop in leaves.items() if not _docgen._Reference(schema).description(prop)]
    assert not undocumented, f"keys without a doc comment: {undocumented}"
    # A resolved configuration has only keys the reference documents.
    resolved = flatten(tomllib.loads(ssdlab.resolve("kang-3d-128gb", workload="onoff")))
    assert set(resolved) <= set(leaves), set(resolved) - set(leaves)
    row = rows["gc.rlgc.reward_percentiles"]
    assert "| % |" in row and "`[70.0, 90.0, 99.0]`" in row and row.endswith("| Sec. 5.2 |")
    assert "| ns |" in rows["device.timing.erase_ns"] and "**required**" in rows["device.timing.erase_ns"]
    assert "| bytes |" in rows["workload.bs"] and '`"4k"`' in rows["workload.bs"]
    assert "| unset |" in rows["gc.target_free_blocks"]
    assert "`lazy_rtgc`: Lazy-RTGC: partial tasks of alpha copies after writes" in rows["gc.scheduler"]
    assert '- `"greedy"` (default)\n- `"lazy_rtgc"`\n' in reference
    assert '- `"rw"` (or `"readwrite"`)' in reference


def test_a_new_doc_comment_reaches_the_reference():
    """The reference is rendered from the schema alone: a key added to the schema appears."""
    schema = json.loads(config.schema_json())
    gc = schema["definitions"]["GcConfig"]["properties"]
    gc["new_knob_ns"] = {"type": "integer", "minimum": 0, "default": 5, "description": "A knob (Table 9)."}
    row = next(line for line in _docgen.config_md(schema).splitlines() if "`gc.new_knob_ns`" in line)
    assert row == "| `gc.new_knob_ns` | integer ≥ 0 | ns | `5` | A knob (Table 9). | Table 9 |"
