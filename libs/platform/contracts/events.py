"""The payloads of a game's log (`Event.data`) and the lobby's facts, one typed definition each.

The table writes every game event with `Payload(...).to_data()` (the envelope keeps `data` as a plain dict,
because its hash covers the canonical JSON of exactly those bytes); every reader gets it back with
`Payload.of(event)` / `Payload.from_data(event.data)`. Field names and JSON shapes are those of the logs
written so far, so old logs decode unchanged. Unknown fields are ignored (a later optional field does not
break an older reader); a new optional field that must stay absent when unset is declared
`field: T | msgspec.UnsetType = msgspec.UNSET`, so events without it keep their exact shape.

The rule module's own JSON (settings, moves, effects, the outcome's lines and summary) is kept as plain
JSON objects here: its shape belongs to the rule module (`libs/rules`, docs/rules/protocol.md).
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

import msgspec

from libs.platform.contracts.base import Contract, ContractError
from libs.platform.envelope import Event, EventType

__all__ = [
    "EndedSeat",
    "EventPayload",
    "GameEnded",
    "GameMode",
    "GameSeat",
    "GameStarted",
    "MoveMade",
    "Outcome",
    "PlatformSettings",
    "PlayerLeft",
    "PlayerRegistered",
    "payload_of",
]


class EventPayload(Contract, frozen=True, kw_only=True):
    """The `data` of one event type of a game's log (`TYPE` is the envelope's `type`)."""

    TYPE: ClassVar[str]

    @classmethod
    def of(cls, event: Event) -> Self:
        """Return the payload of `event`, or raise ContractError if it is another type or malformed."""
        if event.type != cls.TYPE:
            raise ContractError(f"Das Ereignis {event.n} der Partie {event.game_id} ist {event.type}, "
                                f"nicht {cls.TYPE}.")
        return cls.from_data(event.data)


class PlatformSettings(Contract, frozen=True, kw_only=True):
    """The table settings every game shares: think time per decision (None: no clock), tempo, turbo, stake.

    The lobby sends them with `table.cmd.start`; the table stores them, checked, in `GameStarted`.
    """

    WHAT: ClassVar[str] = "Die Tischeinstellung"

    think_time: int | None = None
    tempo: str = "normal"
    turbo: bool = False
    stake: int = 0


class GameSeat(Contract, frozen=True, kw_only=True):
    """A seat as `GameStarted` records it: a human (player id, guest or registered account) or a computer."""

    name: str
    kind: str
    """"human" or "bot"."""
    player_id: str | None = None
    level: str | None = None
    """A computer's strength ("easy", "normal", "strong"); None for humans."""
    account: str | None = None
    """A human's account kind ("guest", "registered"); None for computers."""


class GameMode(Contract, frozen=True, kw_only=True):
    """The solo mode a game is played in (``libs/rules/home.py``), as the lobby chose it at the start.

    A daily game names its Berlin day and the player's attempt that day: only attempt 1 enters the day's
    list, later ones are practice. A campaign game names its stage.
    """

    WHAT: ClassVar[str] = "Der Spielmodus"

    key: str
    day: str | None = None
    """The Berlin day (``YYYY-MM-DD``) whose seed a daily game plays; None for other modes."""
    attempt: int | None = None
    """A daily game: the player's how-many-th game of this daily mode that day (1 counts, later: practice)."""
    stage: int | None = None
    """A campaign game: its stage (1-based)."""

    @property
    def is_practice(self) -> bool:
        """True for a daily game that is not the player's first attempt of the day."""
        return self.day is not None and self.attempt != 1


class GameStarted(EventPayload, frozen=True, kw_only=True):
    """First event of every game: the rules, normalised settings, seats, the seed and its commitment."""

    TYPE: ClassVar[str] = EventType.GAME_STARTED
    WHAT: ClassVar[str] = "Das Ereignis GameStarted"

    game: str
    rules: str
    settings: dict[str, Any]
    seats: list[GameSeat]
    platform: PlatformSettings = msgspec.field(default_factory=PlatformSettings)
    """Absent in logs written before think times existed: then the defaults."""
    table_id: str | None = None
    """The lobby table the game is played at (None: started without the lobby)."""
    seed: str | dict[str, Any]
    """The game's 32-byte seed: hex in older logs; now sealed for nobody (`libs.platform.private`), so every
    copy of the log carries only its digest until `GameEnded` reveals it."""
    seed_commitment: str
    """sha256(seed), shown from the start."""
    mode: GameMode | msgspec.UnsetType = msgspec.UNSET
    """The solo mode (absent: a game outside the solo modes, as every game before them)."""
    seed_reveal_at: str | msgspec.UnsetType = msgspec.UNSET
    """A daily game's seed is everyone's that day: it is revealed at this moment (ISO, UTC), not at the end."""


class MoveMade(EventPayload, frozen=True, kw_only=True):
    """A seat's move, who chose it, and the rule module's effects (German log lines, maybe `visible_to`)."""

    TYPE: ClassVar[str] = EventType.MOVE_MADE
    WHAT: ClassVar[str] = "Das Ereignis MoveMade"

    seat: int
    move: dict[str, Any]
    chosen_by: str
    """"player", "bot", "timeout" (the think time ran out) or "departed" (the player had left)."""
    effects: list[dict[str, Any]] = msgspec.field(default_factory=list)


class PlayerLeft(EventPayload, frozen=True, kw_only=True):
    """A human left a running game; the computer plays on for the seat."""

    TYPE: ClassVar[str] = EventType.PLAYER_LEFT
    WHAT: ClassVar[str] = "Das Ereignis PlayerLeft"

    seat: int
    player_id: str
    with_other_humans: bool = False
    """Other humans still played (the leaver gets −10 on the list)."""


class EndedSeat(GameSeat, frozen=True, kw_only=True):
    """A seat as `GameEnded` records it: the `GameStarted` seat with its index."""

    seat: int


class Outcome(Contract, frozen=True, kw_only=True):
    """The end of a game as the rule module computed it (`Outcome.to_json()` of libs/rules), per seat."""

    WHAT: ClassVar[str] = "Das Ergebnis"

    places: list[int]
    scores: list[int]
    tie_break: list[int]
    lines: list[list[dict[str, Any]]]
    """The German "Rechenweg" per seat: label, points, key, params."""
    leaderboard_points: list[int]
    summary: dict[str, Any]
    """A German sentence: key, params, text."""
    rank_keys: list[list[int]] | msgspec.UnsetType = msgspec.UNSET
    """Per seat, the vector places were decided by, for games not ranked by (score, tie_break)."""


class GameEnded(EventPayload, frozen=True, kw_only=True):
    """Last event of every game: seats, outcome, the revealed seed, and who left."""

    TYPE: ClassVar[str] = EventType.GAME_ENDED
    WHAT: ClassVar[str] = "Das Ereignis GameEnded"

    game: str
    variant: str
    """The workshop or variant the leaderboard keeps a list for (the game itself when it has none)."""
    rules: str
    table_id: str | None = None
    seats: list[EndedSeat]
    outcome: Outcome
    seed: str
    left: list[int] = msgspec.field(default_factory=list)
    """Seats whose humans left the game."""
    left_with_other_humans: list[int] = msgspec.field(default_factory=list)
    """Of those, the seats whose humans left while other humans still played."""
    mode: GameMode | msgspec.UnsetType = msgspec.UNSET
    """The solo mode, copied from GameStarted."""
    seed_reveal_at: str | msgspec.UnsetType = msgspec.UNSET
    """Set for a daily game: ``seed`` is empty, the seed is revealed at this moment (the day's end)."""
    list_keys: list[list[int]] | msgspec.UnsetType = msgspec.UNSET
    """A solo mode game: per seat, the vector the mode's lists order by (``SoloMode.list_order``)."""
    badges: list[list[str]] | msgspec.UnsetType = msgspec.UNSET
    """Per seat, the game badges the finished game earned (``Home.earned``); awarding once is the
    leaderboard's."""
    teams: list[list[int]] | msgspec.UnsetType = msgspec.UNSET
    """The seats that played together (Speednova's 2 v 2: ``[[0, 2], [1, 3]]``), as the rule module names them
    for the game's settings; absent in a game without teams (and in logs written before the field)."""


PAYLOADS: dict[str, type[EventPayload]] = {
    payload.TYPE: payload for payload in (GameStarted, MoveMade, PlayerLeft, GameEnded)
}


def payload_of(event: Event) -> EventPayload:
    """Return the typed payload of any game event, or raise ContractError (unknown type or malformed)."""
    payload = PAYLOADS.get(event.type)
    if payload is None:
        raise ContractError(f"Unbekannter Ereignistyp {event.type}.")
    return payload.from_data(event.data)


# ---- Facts from the lobby (LOBBY stream) ---------------------------------------------------------------
class PlayerRegistered(Contract, frozen=True, kw_only=True):
    """`lobby.events.player_registered`: a registered account exists (the ledger opens its wallet)."""

    WHAT: ClassVar[str] = "Die Nachricht player_registered"

    player_id: str
    name: str
    registered_at: str
    """ISO 8601 in UTC with a trailing Z."""
