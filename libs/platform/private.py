"""Private parts of a log entry: stored whole, shown to others only as a salted digest.

A move or effect that only some seats may read is stored *sealed*::

    {"$private": {"to": [seats], "digest": "<sha256>", "salt": "<hex>", "value": <the part>}}

and anyone outside ``to`` gets the *redacted* form ``{"$private": {"to": [seats], "digest": "<sha256>"}}``.
The event hash covers the redacted form (see ``envelope.compute_hash``), so the hash chain verifies on a
player's own copy of the log as on the full log; and a full part must match its digest, so nobody can
swap a value behind a digest. The digest is salted with a secret derived from the game's seed, so a part
drawn from few possibilities (a card, a die) cannot be found by hashing every candidate.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from typing import Any

from libs.platform.canonical import canonical_json, sha256_hex

PRIVATE = "$private"

__all__ = ["PRIVATE", "DigestMismatch", "check_digests", "digest_of", "is_sealed", "redact", "reveal_for",
           "salt_for", "seal"]


class DigestMismatch(Exception):
    """A sealed part's value does not match its digest (it was changed after it was written)."""


def salt_for(seed: bytes, game_id: str, n: int, index: int) -> str:
    """Return the salt of the ``index``-th private part of event ``n``: secret until the seed is revealed."""
    return hmac.new(seed, f"{game_id}:{n}:{index}".encode(), hashlib.sha256).hexdigest()


def digest_of(value: Any, salt: str) -> str:
    """Return the SHA-256 of the canonical JSON of ``{"salt", "value"}``."""
    return sha256_hex(canonical_json({"salt": salt, "value": value}))


def seal(value: Any, audience: tuple[int, ...] | list[int], salt: str) -> dict[str, Any]:
    """Return ``value`` sealed for the seats in ``audience``."""
    return {PRIVATE: {"to": sorted(int(seat) for seat in audience), "digest": digest_of(value, salt),
                      "salt": salt, "value": value}}


def is_sealed(part: Any) -> bool:
    """Return True for a sealed or redacted private part."""
    return isinstance(part, dict) and len(part) == 1 and PRIVATE in part


def _redacted(part: dict[str, Any]) -> dict[str, Any]:
    inner = part[PRIVATE]
    return {PRIVATE: {"to": inner["to"], "digest": inner["digest"]}}


def _map_sealed(value: Any, on_sealed: Callable[[dict[str, Any]], Any]) -> Any:
    """Return ``value`` with every sealed or redacted part replaced by ``on_sealed(part)`` (the one walker)."""
    if isinstance(value, dict):
        if is_sealed(value):
            return on_sealed(value)
        return {key: _map_sealed(item, on_sealed) for key, item in value.items()}
    if isinstance(value, list):
        return [_map_sealed(item, on_sealed) for item in value]
    return value


def redact(value: Any) -> Any:
    """Return ``value`` with every private part in its redacted form (what the event hash covers)."""
    return _map_sealed(value, _redacted)


def reveal_for(value: Any, viewer: int | None) -> Any:
    """Return ``value`` as ``viewer`` may read it: their own parts opened, every other part redacted.

    None (a spectator) opens nothing. An opened part keeps its envelope with value and salt, so the
    viewer can check the digest themselves.
    """

    def shown(part: dict[str, Any]) -> dict[str, Any]:
        inner = part[PRIVATE]
        if viewer is not None and viewer in inner["to"] and "value" in inner:
            return part
        return _redacted(part)

    return _map_sealed(value, shown)


def _checked(part: dict[str, Any]) -> dict[str, Any]:
    inner = part[PRIVATE]
    if "value" in inner and digest_of(inner["value"], str(inner.get("salt", ""))) != inner["digest"]:
        raise DigestMismatch("a private part does not match its digest")
    return part


def check_digests(value: Any) -> None:
    """Raise DigestMismatch if any full private part in ``value`` does not match its digest."""
    _map_sealed(value, _checked)


def opened(part: Any) -> Any:
    """Return the value inside a sealed part (the part itself if it is not private)."""
    if is_sealed(part):
        inner = part[PRIVATE]
        if "value" not in inner:
            raise KeyError("this private part is redacted")
        return inner["value"]
    return part
