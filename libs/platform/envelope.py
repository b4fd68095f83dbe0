"""The event envelope of a game's log, and its SHA-256 hash chain."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec

from libs.platform.canonical import canonical_json, check_canonical, sha256_hex
from libs.platform.private import PRIVATE, DigestMismatch, check_digests, redact

GENESIS = "0" * 64
_DECODER = msgspec.json.Decoder(dict[str, Any])


class EventType:
    """The event types of a game's log (past tense: they happened)."""

    GAME_STARTED = "GameStarted"
    MOVE_MADE = "MoveMade"
    PLAYER_LEFT = "PlayerLeft"
    GAME_ENDED = "GameEnded"


class ChainBroken(Exception):
    """The log's hash chain does not hold: an event was changed, removed or reordered."""


@dataclass(frozen=True)
class Event:
    """One entry of a game's log: `n` counts from 1; `hash` covers exactly `game_id`, `n`, `type`, `at`, `actor`,
    `rules`, `data` (private parts redacted) and `prev`, never `hash` or `sig` (docs/audit.md, "The event hash")."""

    game_id: str
    n: int
    type: str
    at: str
    actor: str
    rules: str
    data: dict[str, Any] = field(default_factory=dict)
    prev: str = GENESIS
    hash: str = ""
    sig: dict[str, str] | None = None
    """The table's signature of `hash` (``{"kid", "sig"}``, libs/platform/signing.py); like `hash` not covered
    by the hash. None in events written before the table signed (or by a table without keys)."""

    def to_json(self) -> dict[str, Any]:
        """Return the envelope as plain JSON data (``data`` is shared, not copied: treat it as read-only).

        ``sig`` appears only on signed events, so unsigned ones keep their exact shape."""
        body = {"game_id": self.game_id, "n": self.n, "type": self.type, "at": self.at, "actor": self.actor,
                "rules": self.rules, "data": self.data, "prev": self.prev, "hash": self.hash}
        if self.sig is not None:
            body["sig"] = self.sig
        return body

    def encode(self) -> bytes:
        """Return the canonical bytes stored in the log."""
        return canonical_json(self.to_json())

    @property
    def msg_id(self) -> str:
        """The JetStream de-duplication id: a retried append of the same event is stored once."""
        return f"{self.game_id}:{self.n}"

    @staticmethod
    def position_in(msg_id: str) -> tuple[str, int] | None:
        """Return the (game_id, n) an appended event's `msg_id` names, None if it names none."""
        game_id, _, number = msg_id.rpartition(":")
        return (game_id, int(number)) if game_id and number.isdigit() else None

    @staticmethod
    def decode(raw: bytes | str) -> Event:
        """Parse stored bytes back into an Event."""
        return Event(**_DECODER.decode(raw))


def compute_hash(event: Event) -> str:
    """Return the SHA-256 over the canonical JSON of the event without its own hash (and without its
    signature `sig`, which signs the hash).

    Private parts count in their redacted form (their digest), so a copy of the log that carries other
    seats' parts only as digests has the same hashes (``libs.platform.private``).
    """
    return _hash(event)[0]


_PRIVATE_KEY = f'"{PRIVATE}"'.encode()
"""How a private part's key reads in canonical JSON; data whose bytes lack it has no private part."""


def _hash(event: Event) -> tuple[str, bool]:
    """Return the event's hash, and whether its data may hold private parts.

    Most events hold none: then the data's canonical bytes are already the redacted ones, and the walk
    that redacts (a copy of the whole data) is skipped.
    """
    body = {"game_id": event.game_id, "n": event.n, "type": event.type, "at": event.at, "actor": event.actor,
            "rules": event.rules, "data": event.data, "prev": event.prev}
    raw = canonical_json(body)
    if _PRIVATE_KEY not in raw:
        return sha256_hex(raw), False
    body["data"] = redact(event.data)
    return sha256_hex(canonical_json(body)), True


def utc_stamp(moment: datetime) -> str:
    """Return `moment` (a UTC datetime) as the log writes times: ISO 8601, milliseconds, "Z"."""
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_stamp(stamp: str) -> datetime:
    """Return a time as the log writes it (`utc_stamp`, "…Z") as an aware UTC datetime; ValueError if it is
    no ISO 8601 time. (Python 3.11 reads the "Z" itself.)"""
    return datetime.fromisoformat(stamp)


def new_event(
    *, game_id: str, n: int, type: str, actor: str, rules: str, data: dict[str, Any], prev: str,
    at: datetime | None = None,
) -> Event:
    """Build a sealed event that chains onto `prev`.

    Raises NotCanonical (a ValueError) if `data` holds what canonical JSON does not (a float, an integer
    beyond ±(2**53 - 1), a non-string key): nothing is written that the specification could not hash.
    """
    check_canonical(data, "data")
    stamp = utc_stamp(at or datetime.now(UTC))
    draft = Event(game_id=game_id, n=n, type=type, at=stamp, actor=actor, rules=rules, data=data, prev=prev)
    # Built anew rather than by dataclasses.replace, which walks the fields per call: a move's hot path.
    return Event(game_id=game_id, n=n, type=type, at=stamp, actor=actor, rules=rules, data=data, prev=prev,
                 hash=compute_hash(draft))


def verify_chain(events: list[Event]) -> None:
    """Raise ChainBroken unless the events are numbered 1..k, each hash is right and each links to the last.

    Works on the full log and on any viewer's copy (private parts redacted to digests) alike.
    """
    prev = GENESIS
    for expected_n, event in enumerate(events, start=1):
        if event.n != expected_n:
            raise ChainBroken(f"event {expected_n} missing (found n={event.n})")
        if event.prev != prev:
            raise ChainBroken(f"event {event.n} does not link to event {event.n - 1}")
        digest, may_hold_private = _hash(event)
        if digest != event.hash:
            raise ChainBroken(f"event {event.n} was changed after it was written")
        if may_hold_private:
            try:
                check_digests(event.data)
            except DigestMismatch as error:
                raise ChainBroken(f"event {event.n}: a private part was changed after it was written") from error
        prev = event.hash
