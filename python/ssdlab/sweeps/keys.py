"""Layer: Python, sweeps. One job: say which dotted keys the configuration has, from the JSON
Schema the core derives from its config types, so that a grid's axis naming a key that does not
exist (a typo) is an error on the grid file's line, not a sweep whose every cell fails."""

from __future__ import annotations

import difflib
import json
from typing import Any

from ssdlab.config import schema_json


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


def unknown_key_reason(key: str, known: frozenset[str]) -> str | None:
    """None if `key` is a config key, else why not (with the closest keys, if any)."""
    if key in known:
        return None
    same_depth = sorted(k for k in known if k.count(".") == key.count("."))
    close = difflib.get_close_matches(key, same_depth, n=3, cutoff=0.75)
    hint = f" (did you mean {', '.join(close)}?)" if close else " (docs/config.md lists every key)"
    return f"not a config key{hint}"
