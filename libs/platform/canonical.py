"""Canonical JSON: one byte string per value, so hashes and comparisons are stable across versions.

The canonical form is compact JSON with object keys sorted, strings as UTF-8 (only `"`, `\\` and control
characters escaped, as `\\uXXXX` or the short escapes) and integers in plain decimal. It is what
``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` gives, which wrote every
log before: msgspec writes the same bytes many times faster, and a property test holds the two equal.
They differ only in floats written with an exponent (``1e16`` here, ``1e+16`` there); the log holds no
floats (scores, counts and positions are integers), and an auditor's reimplementation should write
floats, if ever, as the shortest round-trip form without a ``+`` in the exponent.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

_ENCODER = msgspec.json.Encoder(order="sorted")


def canonical_json(value: Any) -> bytes:
    """Serialise `value` with sorted keys, no whitespace and UTF-8 (RFC 8785-like for our data)."""
    return _ENCODER.encode(value)


def sha256_hex(data: bytes) -> str:
    """Return the SHA-256 of `data` as lowercase hex."""
    return hashlib.sha256(data).hexdigest()
