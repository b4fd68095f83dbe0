"""Where two JSON values first differ (for the audit's "erwartet … gefunden …")."""

from __future__ import annotations

from typing import Any

import msgspec

from libs.platform.canonical import canonical_json


def plain(value: Any) -> Any:
    """Return ``value`` as plain JSON data (tuples become lists, keys strings): what a log would hold."""
    return msgspec.json.decode(canonical_json(value))


def first_difference(expected: Any, found: Any, path: str) -> tuple[str, Any, Any] | None:
    """Return (path, expected part, found part) of the first place the two JSON values differ, None if equal.

    Objects are walked key by key in sorted order, lists item by item; a type or length difference is
    reported where it is.
    """
    if isinstance(expected, dict) and isinstance(found, dict):
        for key in sorted(set(expected) | set(found)):
            if key not in found:
                return f"{path}.{key}", expected[key], None
            if key not in expected:
                return f"{path}.{key}", None, found[key]
            inner = first_difference(expected[key], found[key], f"{path}.{key}")
            if inner is not None:
                return inner
        return None
    if isinstance(expected, list) and isinstance(found, list):
        for index, (left, right) in enumerate(zip(expected, found, strict=False)):
            inner = first_difference(left, right, f"{path}[{index}]")
            if inner is not None:
                return inner
        if len(expected) != len(found):
            return f"{path}.length", len(expected), len(found)
        return None
    if canonical_json(expected) == canonical_json(found) and type(expected) is type(found):
        return None
    return path, expected, found
