"""The seed's commitment, as the table computes it when a game starts (reimplemented: the audit trusts no service)."""

from __future__ import annotations

import hashlib


def commitment(seed: bytes) -> str:
    """Return the SHA-256 of the seed's bytes, lowercase hex (what GameStarted's ``seed_commitment`` holds)."""
    return hashlib.sha256(seed).hexdigest()
