"""Canonical JSON: one byte string per value, so hashes and comparisons are stable across versions.

The canonical form is compact JSON with object keys sorted by Unicode code point (the same order as their
UTF-8 bytes), strings as raw UTF-8 (only `"`, `\\` and U+0000–U+001F escaped: `\\b \\t \\n \\f \\r`,
the rest as `\\u00xx` with lowercase hex) and integers in plain decimal. It is what
``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` gives, which wrote every
log before: msgspec writes the same bytes many times faster, and a property test holds the two equal.
The complete specification, with test vectors, is docs/audit.md ("Specification: canonical JSON, hashes,
digests, commitment").

What is hashed must be *canonical data* (``check_canonical``): objects with string keys, arrays, strings,
integers within ±(2⁵³−1), true, false, null. No floats: the log has never held one (scores, counts and
positions are integers), and their text form is where JSON writers of different languages disagree
(``1e16`` or ``1e+16`` or ``10000000000000000``; msgspec writes NaN and Infinity as ``null``). Integers stay
within what a JavaScript number holds exactly. The writer of the log (``envelope.new_event``) refuses
anything else, so every hash of every log can be recomputed from this specification.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

_ENCODER = msgspec.json.Encoder(order="sorted")

MAX_INTEGER = 2**53 - 1
"""The largest magnitude of an integer in canonical data (JavaScript's ``Number.MAX_SAFE_INTEGER``)."""


class NotCanonical(ValueError):
    """A value holds something canonical JSON does not have (a float, a huge integer, a non-string key...)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        """Where in the value (``data.effects[2].params.x``)."""
        self.problem = problem


def canonical_json(value: Any) -> bytes:
    """Serialise `value` with sorted keys, no whitespace and UTF-8 (RFC 8785-like for our data)."""
    return _ENCODER.encode(value)


def sha256_hex(data: bytes) -> str:
    """Return the SHA-256 of `data` as lowercase hex."""
    return hashlib.sha256(data).hexdigest()


def check_canonical(value: Any, path: str = "$") -> None:
    """Return if ``value`` is canonical data; raise NotCanonical naming the first place that is not.

    Canonical data: dicts with ``str`` keys, lists (tuples count as lists), ``str``, ``bool``, ``None`` and
    ``int`` within ±``MAX_INTEGER``. A float is refused whatever its value (NaN and ±Infinity too).
    """
    if not _canonical(value):
        raise NotCanonical(*_first_problem(value, path))


def _canonical(value: Any) -> bool:
    """True if ``value`` is canonical data (the fast walk; ``_first_problem`` says where it is not)."""
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return True
    if kind is int:
        number: int = value
        return -MAX_INTEGER <= number <= MAX_INTEGER
    # Plain loops, not all() over generators: this walk runs on every event the table writes.
    if kind is dict:
        for key, item in value.items():  # noqa: SIM110
            if type(key) is not str or not _canonical(item):
                return False
        return True
    if kind is list or kind is tuple:
        for item in value:  # noqa: SIM110
            if not _canonical(item):
                return False
        return True
    if isinstance(value, str):  # a str subclass (an enum's value): written as its string
        return True
    if isinstance(value, int) and not isinstance(value, bool):  # an int subclass (an IntEnum)
        return -MAX_INTEGER <= int(value) <= MAX_INTEGER
    return False


def _first_problem(value: Any, path: str) -> tuple[str, str]:
    """Return (path, description) of the first part of ``value`` that is not canonical data."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return path, f"key {key!r} is not a string"
            if not _canonical(item):
                return _first_problem(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            if not _canonical(item):
                return _first_problem(item, f"{path}[{index}]")
    elif isinstance(value, float):
        return path, f"float {value!r} (canonical JSON has integers only)"
    elif isinstance(value, int):
        return path, f"integer {value} beyond ±(2**53 - 1)"
    return path, f"{type(value).__name__} is no JSON value"
