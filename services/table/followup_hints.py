"""What the table tells its follow-up beside an event it appends: a sealed hint in the message's headers.

The table folds every move it appends; the follow-up (`followup.py`) used to fold it a second time only to learn
what it already knew: that nobody but humans must act next, and whose think time runs since when. For a game of
humans only (no computer seat, nobody left, no team logs) that goes on after the event, the table now writes that
into the appended message's header `Speed-Followup`, and the follow-up acts on it without folding
(docs/architecture.md, "Hints for the follow-up"). The event itself (hashed, signed, audited, archived) is not
touched: a header is no part of it, and nothing but the follow-up reads it.

Correctness never rests on a hint. The follow-up folds, as before, every redelivered event and every event whose
hint is missing, is of another format, names a key it has no private half of, does not carry the table's MAC over
this very message (the game, the event's number and its stored bytes), or was stored more than `MAX_AGE_SECONDS`
after the event was written (a copy of an old message stored again: within the stream's two-minute de-duplication
window the server refuses the copy itself). The MAC's key is derived from the table's signing key
(`Keyring.derived_key`), a secret every table replica holds and no other writer has.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from libs.platform.envelope import Event, parse_stamp
from libs.platform.signing import Keyring
from libs.rules.engine import Position
from services.table.records import ClockStart, GameRecord, clocks_after

HEADER = "Speed-Followup"
FORMAT = "1"
"""The hint's format: its value is ``1 <kid> <mac> <payload>``; any other first word is folded."""
PURPOSE = b"speed-followup-hint/1"
"""What the MAC key is derived for (HKDF info): no other use of the signing key yields the same secret."""
MAC_BYTES = 16
MAX_AGE_SECONDS = 60.0
"""A hint is used only if its event was stored within this of being written (either way, for clocks apart): well
inside GAMES' duplicate window (120 s), so a genuine message copied and stored again is refused by the server
(same Nats-Msg-Id) or here (too old), and cannot set a decided decision's clock again."""


class HintRefused(Exception):
    """A hint that must not be acted on; the reason is a metric label (`unknown_key`, `bad_mac`, `too_old`,
    `malformed`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class FollowupHint:
    """After an event of a game of humans only that goes on: when the event was written, the game's think time
    (None: "ohne", no clock) and the clocks that run, per seat the event its must-act decision began with."""

    at: str
    think_time: int | None
    clocks: tuple[tuple[int, ClockStart], ...]

    def encode(self) -> bytes:
        return _ENCODE([self.at, self.think_time, [[seat, clock.n, clock.at] for seat, clock in self.clocks]])

    @staticmethod
    def decode(raw: bytes) -> FollowupHint:
        """Read a payload `encode` wrote (HintRefused `malformed` otherwise)."""
        try:
            at, think_time, clocks = _DECODE(raw)
            return FollowupHint(at=at, think_time=think_time,
                                clocks=tuple((seat, ClockStart(n, clock_at)) for seat, n, clock_at in clocks))
        except (msgspec.ValidationError, msgspec.DecodeError) as error:
            raise HintRefused("malformed") from error


_ENCODE = msgspec.json.Encoder().encode
_DECODE = msgspec.json.Decoder(tuple[str, int | None, list[tuple[int, int, str]]]).decode


def hint_after_start(record: GameRecord, event: Event) -> FollowupHint | None:
    """The hint for a game's GameStarted, `record` being the game it begins (None: the follow-up must fold)."""
    return _hint(record, record.position, record.clocks, event)


def hint_after_move(before: GameRecord, position: Position, event: Event) -> FollowupHint | None:
    """The hint for the MoveMade `event` appended after `before`, which leads to `position` (None: the follow-up
    must fold: a computer plays at the game, or a team log, or the game is over after it)."""
    if not _is_humans_only(before):
        return None
    return _hint(before, position, clocks_after(position, event, before.clocks), event)


def _is_humans_only(record: GameRecord) -> bool:
    """A game where no computer ever needs a view from the follow-up, and whose fold is its log's alone."""
    return not record.team_logs and not record.left and not any(seat.is_bot for seat in record.seats)


def _hint(record: GameRecord, position: Position, clocks: tuple[ClockStart | None, ...],
          event: Event) -> FollowupHint | None:
    if not _is_humans_only(record) or record.engine.is_over(position):
        return None  # a computer's turn to hand over, or a game to end: the follow-up folds
    think_time = record.platform.think_time
    running = () if think_time is None else tuple(
        (seat, clock) for seat, clock in enumerate(clocks) if clock is not None)
    return FollowupHint(at=event.at, think_time=think_time, clocks=running)


class HintSeal:
    """Seals hints with the table's derived secret and opens them, checked, for the follow-up."""

    def __init__(self, keyring: Keyring | None) -> None:
        self._keyring = keyring

    @property
    def is_sealing(self) -> bool:
        """Whether this table writes hints at all (a table without signing keys writes none: all is folded)."""
        return self._keyring is not None

    def headers(self, hint: FollowupHint, game_id: str, n: int, data: bytes) -> dict[str, str]:
        """The header that carries `hint` beside the event `n` of `game_id` stored as `data` (none without keys)."""
        keyring = self._keyring
        key = None if keyring is None else keyring.derived_key(keyring.active, PURPOSE)
        if keyring is None or key is None:
            return {}
        payload = hint.encode()
        return {HEADER: f"{FORMAT} {keyring.active} {_mac(key, game_id, n, payload, data)} {payload.decode()}"}

    def read(self, headers: Mapping[str, Any] | None, game_id: str, n: int, data: bytes,
             stored_at: float) -> FollowupHint | None:
        """Return the hint beside event `n` of `game_id` (stored as `data` at `stored_at`, seconds since the epoch)
        if it is the table's own for exactly this message; None when there is none; HintRefused otherwise."""
        value = (headers or {}).get(HEADER)
        if value is None:
            return None
        parts = str(value).split(" ", 3)
        if len(parts) != 4 or parts[0] != FORMAT:
            raise HintRefused("malformed")
        _, kid, mac, payload = parts
        key = None if self._keyring is None else self._keyring.derived_key(kid, PURPOSE)
        if key is None:
            raise HintRefused("unknown_key")
        raw = payload.encode()
        if not hmac.compare_digest(mac, _mac(key, game_id, n, raw, data)):
            raise HintRefused("bad_mac")
        hint = FollowupHint.decode(raw)
        try:
            written = parse_stamp(hint.at).timestamp()
        except ValueError as error:
            raise HintRefused("malformed") from error
        if abs(stored_at - written) > MAX_AGE_SECONDS:
            raise HintRefused("too_old")
        return hint


def _mac(key: bytes, game_id: str, n: int, payload: bytes, data: bytes) -> str:
    """The MAC over the hint and the message it rides on: game, event number, payload, the event's stored bytes."""
    message = b"%s:%d\n%s\n%s" % (game_id.encode(), n, payload, data)
    return hmac.digest(key, message, "sha256")[:MAC_BYTES].hex()
