"""The config JSON Schema describes what the loader accepts: every preset and pattern validates
against it, and it rejects what the loader rejects.

jsonschema is not a dependency, so `_validate` implements the keywords the generated schema
uses (and fails loudly on any other, so a schema change cannot make it pass silently)."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

import pytest
from click.testing import CliRunner

import ssdlab
from ssdlab import _docgen, config
from ssdlab.cli import cli

SCHEMA = json.loads(config.schema_json())
ANNOTATIONS = {"$schema", "title", "description", "default", "examples", "format", "definitions"}
TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "number": (int, float),
    "integer": int,
}


def _resolve(ref: str) -> dict:
    node: Any = SCHEMA
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def _validate(value: Any, schema: dict, path: str = "") -> list[str]:
    """Problems of `value` against `schema`, as `path: what`."""
    errors: list[str] = []
    unknown = set(schema) - ANNOTATIONS - {
        "$ref", "allOf", "anyOf", "oneOf", "enum", "type", "properties", "additionalProperties",
        "required", "items", "minimum", "maximum", "pattern",
    }  # fmt: skip
    assert not unknown, f"validator does not know {unknown} (at {path})"
    if "$ref" in schema:
        errors += _validate(value, _resolve(schema["$ref"]), path)
    for sub in schema.get("allOf", []):
        errors += _validate(value, sub, path)
    if "anyOf" in schema and all(_validate(value, sub, path) for sub in schema["anyOf"]):
        errors.append(f"{path}: matches no alternative")
    if "oneOf" in schema:
        matching = sum(not _validate(value, sub, path) for sub in schema["oneOf"])
        if matching != 1:
            errors.append(f"{path}: matches {matching} alternatives")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if "type" in schema:
        expected = TYPES[schema["type"]]
        if not isinstance(value, expected) or (isinstance(value, bool) and schema["type"] != "boolean"):
            return [*errors, f"{path}: not {schema['type']}"]
    if "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{path}: below {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        errors.append(f"{path}: above {schema['maximum']}")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{path}: does not match {schema['pattern']}")
    if "items" in schema:
        for i, item in enumerate(value):
            errors += _validate(item, schema["items"], f"{path}[{i}]")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}.{key}: missing")
        for key, item in value.items():
            if key in properties:
                errors += _validate(item, properties[key], f"{path}.{key}".lstrip("."))
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}.{key}: unknown key".lstrip("."))
    return errors


@pytest.mark.parametrize("preset", ssdlab.config.presets())
def test_every_resolved_preset_validates(preset):
    for pattern in ssdlab.config.workload_patterns():
        resolved = tomllib.loads(ssdlab.resolve(preset, workload=pattern))
        assert _validate(resolved, SCHEMA) == [], (preset, pattern)
        # The preset files as written (sizes as strings, keys left to defaults) validate too.
        assert (
            _validate(tomllib.loads(config.workload_pattern_toml(pattern)), SCHEMA | {"required": []}) == []
        )
    assert _validate(tomllib.loads(ssdlab.config.preset_toml(preset)), SCHEMA) == []


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("gc.trigger_free_blocks=-3", "gc.trigger_free_blocks"),
        ("gc.trigger_free_blocks=4294967296", "gc.trigger_free_blocks"),
        ('workload.iodepth="deep"', "workload.iodepth"),
        ("gc.victim=lifo", "gc.victim"),
        ("workload.bs=4q", "workload.bs"),
        ("workload.bs=true", "workload.bs"),
        ("device.timing.read_ns=[1, -2]", "device.timing.read_ns[1]"),
        ("gc.victimm=fifo", "gc.victimm"),
        ("device.timing.tprog=5", "device.timing.tprog"),
    ],
)
def test_schema_rejects_what_the_loader_rejects(override, key):
    with pytest.raises(ssdlab.ConfigError) as info:
        ssdlab.resolve("tiny", overrides=[override])
    assert key in {k for k, _ in info.value.problems}
    cfg = tomllib.loads(ssdlab.resolve("tiny"))
    path, raw = override.split("=", 1)
    node = cfg
    *parents, last = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    try:
        node[last] = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        node[last] = raw  # a bare word is a string, as in `--set`
    assert any(e.startswith(key) for e in _validate(cfg, SCHEMA)), _validate(cfg, SCHEMA)


@pytest.mark.parametrize(
    "size",
    [
        "4096",
        "4k",
        "4K",
        "128KiB",
        "1m",
        "1 mb",
        " 2g ",
        "3tib",
        "7b",
        "k",
        "4q",
        "4ki",
        "-4k",
        "4.5k",
        "4kb ",
    ],
)
def test_size_pattern_matches_what_the_loader_parses(size):
    pattern = SCHEMA["definitions"]["ByteSize"]["anyOf"][1]["pattern"]
    try:
        ssdlab.resolve("tiny", overrides=[f'workload.bs="{size}"'])
        accepted = True
    except ssdlab.ConfigError as e:
        accepted = not any(key == "workload.bs" and "expected" in reason for key, reason in e.problems)
    assert bool(re.search(pattern, size)) == accepted


def test_config_schema_command_prints_the_committed_schema():
    result = CliRunner().invoke(cli, ["config", "schema"], catch_exceptions=False)
    assert result.exit_code == 0
    assert json.loads(result.output) == SCHEMA
    assert result.output == (_docgen.DOCS / "config.schema.json").read_text()
