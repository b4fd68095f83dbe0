"""Canonical JSON: one byte string per value, so hashes and comparisons are stable across versions."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> bytes:
    """Serialise `value` with sorted keys, no whitespace and UTF-8 (RFC 8785-like for our data)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256_hex(data: bytes) -> str:
    """Return the SHA-256 of `data` as lowercase hex."""
    return hashlib.sha256(data).hexdigest()
