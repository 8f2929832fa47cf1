"""Layer: Python, sweeps. One job: say which dotted keys the configuration has, from the JSON
Schema the core derives from its config types, so that a grid's axis naming a key that does not
exist (a typo) is an error on the grid file's line, not a sweep whose every cell fails."""

from __future__ import annotations

import json
from typing import Any

from ssdlab.config import key_suggestions, renamed_tables, schema_json


def config_keys() -> frozenset[str]:
    """Every dotted key of the configuration: tables (`gc.rlgc`) and values (`gc.rlgc.alpha`)."""
    schema = json.loads(schema_json())

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        for _ in range(32):
            if "$ref" in node:
                target: Any = schema
                for part in node["$ref"].lstrip("#/").split("/"):
                    target = target[part]
                node = target
            elif len(node.get("allOf", [])) == 1:
                node = node["allOf"][0]
            else:
                break
        return node

    keys: set[str] = set()

    def walk(node: dict[str, Any], prefix: str) -> None:
        for name, prop in resolve(node).get("properties", {}).items():
            path = f"{prefix}.{name}" if prefix else name
            keys.add(path)
            walk(prop, path)

    walk(schema, "")
    return frozenset(keys)


def current_name(key: str) -> str:
    """`key` under its table's new name if the table was renamed (`cache.fsp.alpha` ->
    `cache.page_type_eviction.alpha`); the core loads the old one with a warning."""
    for old, new in renamed_tables().items():
        if key == old or key.startswith(old + "."):
            return new + key[len(old) :]
    return key


def unknown_key_reason(key: str, known: frozenset[str]) -> str | None:
    """None if `key` is a config key (or one under a renamed table's old name), else why not
    (with the closest keys, if any: the core's suggestions, as a config file's unknown key
    gets)."""
    if key in known or current_name(key) in known:
        return None
    close = key_suggestions(key)
    hint = f" (did you mean {', '.join(close)}?)" if close else " (docs/config.md lists every key)"
    return f"not a config key{hint}"
