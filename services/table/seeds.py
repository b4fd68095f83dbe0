"""Where a game's seed comes from: the one edge of randomness in the table service."""

from __future__ import annotations

import hashlib
import os


class SeedSource:
    """Draws a fresh 32-byte seed per game from the operating system's CSPRNG."""

    def draw(self) -> bytes:
        """Return a new unpredictable seed."""
        return os.urandom(32)


def commitment(seed: bytes) -> str:
    """Return the SHA-256 commitment players see until the game ends and the seed is revealed."""
    return hashlib.sha256(seed).hexdigest()
