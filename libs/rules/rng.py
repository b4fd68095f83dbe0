"""The project's own seeded random generator: SHA-256 in counter mode (see docs/rules/rng.md).

Never use Python's ``random`` for game randomness: its algorithm is not part of our specification, so a
replay by another implementation (or a later Python) could not be verified.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_WORD_BYTES = 8
_WORDS_PER_BLOCK = 4
_TWO_POW_64 = 1 << 64


class SeededRng:
    """Deterministic generator of 64-bit words from a seed and a label (SHA-256 counter mode)."""

    __slots__ = ("_buffer", "_counter", "_label", "_prefix", "_seed")

    def __init__(self, seed: bytes, label: str = "") -> None:
        if not isinstance(seed, bytes | bytearray):
            raise TypeError("seed must be bytes")
        self._seed = bytes(seed)
        self._label = label
        label_bytes = label.encode("utf-8")
        self._prefix = self._seed + len(label_bytes).to_bytes(4, "big") + label_bytes
        self._counter = 0
        self._buffer: list[int] = []

    @property
    def label(self) -> str:
        """The label this stream was created with."""
        return self._label

    def _refill(self) -> None:
        digest = hashlib.sha256(self._prefix + self._counter.to_bytes(8, "big")).digest()
        self._counter += 1
        words = [
            int.from_bytes(digest[i * _WORD_BYTES : (i + 1) * _WORD_BYTES], "big") for i in range(_WORDS_PER_BLOCK)
        ]
        # Words are consumed in block order; the buffer is popped from its end, so store reversed.
        self._buffer = words[::-1]

    def next_u64(self) -> int:
        """Return the next 64-bit unsigned word of the stream."""
        if not self._buffer:
            self._refill()
        return self._buffer.pop()

    def randbelow(self, n: int) -> int:
        """Return an unbiased integer in [0, n) by rejection sampling of 64-bit words."""
        if n <= 0:
            raise ValueError("randbelow needs n >= 1")
        if n > _TWO_POW_64:
            raise ValueError("randbelow supports n up to 2**64")
        limit = _TWO_POW_64 - (_TWO_POW_64 % n)
        while True:
            word = self.next_u64()
            if word < limit:
                return word % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """Return a new list with the items in Fisher–Yates order (swapping from the top down)."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.randbelow(i + 1)
            result[i], result[j] = result[j], result[i]
        return result

    def choice(self, seq: Sequence[T]) -> T:
        """Return one element of a non-empty sequence, uniformly."""
        if not seq:
            raise IndexError("choice from an empty sequence")
        return seq[self.randbelow(len(seq))]

    def random(self) -> float:
        """Return a float in [0, 1) built from the top 53 bits of one word."""
        return (self.next_u64() >> 11) / float(1 << 53)

    def derive(self, label: str) -> SeededRng:
        """Return an independent stream for a sub-purpose: same seed, label ``parent/label``."""
        return SeededRng(self._seed, f"{self._label}/{label}" if self._label else label)

    def __repr__(self) -> str:
        # Never show the seed: it is secret until the game ends.
        return f"SeededRng(label={self._label!r})"
