"""A game as the table service holds it: the fold of its log into the rule module's state."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from libs.platform.envelope import GENESIS, Event, EventType
from libs.rules import RuleModule, registry
from services.table.event_store import StoredEvent


class CorruptLog(Exception):
    """The log cannot be folded (it does not start with GameStarted, or a stored move is illegal)."""


@dataclass(frozen=True)
class Seat:
    """Who sits at a seat: a human player (by player id) or a computer of some level."""

    index: int
    name: str
    kind: str
    player_id: str | None = None
    level: str | None = None
    account: str | None = None

    @property
    def is_bot(self) -> bool:
        return self.kind == "bot"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.index, "name": self.name, "kind": self.kind, "player_id": self.player_id,
                "level": self.level, "account": self.account}


@dataclass(frozen=True)
class GameRecord:
    """Everything known about one game after folding its log up to stream sequence `last_seq`."""

    game_id: str
    module: RuleModule
    started: Event
    seats: tuple[Seat, ...]
    state: Any
    last_seq: int
    n: int
    last_hash: str
    ended: Event | None = None
    last_effects: tuple[dict[str, Any], ...] = ()
    left: frozenset[int] = field(default_factory=frozenset)
    left_with_others: frozenset[int] = field(default_factory=frozenset)
    """Seats whose humans left while other humans still played (they lose 10 leaderboard points)."""
    decision_start: tuple[int | None, ...] = ()
    """Per seat: the event number after which its current decision began (None: nothing to decide).

    A seat's think time runs per decision: it starts when the seat comes to move, and again after each
    of its own moves that leaves it to move (a new decision), but not when someone else moves meanwhile.
    """

    @property
    def platform(self) -> dict[str, Any]:
        """The table's platform settings (think time, tempo, turbo) from GameStarted."""
        platform: dict[str, Any] = self.started.data.get("platform") or {}
        return platform

    @property
    def settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = self.started.data["settings"]
        return settings

    @property
    def seed(self) -> bytes:
        return bytes.fromhex(self.started.data["seed"])

    @property
    def variant(self) -> str:
        """The workshop or variant the leaderboard keeps a list for (the game itself when it has none)."""
        return str(self.settings.get("workshop") or self.settings.get("variant") or self.module.game)

    @property
    def is_over(self) -> bool:
        return self.module.is_over(self.state)

    def seat_of(self, player_id: str) -> Seat | None:
        """Return the seat of `player_id`, if that player sits at this game."""
        return next((seat for seat in self.seats if seat.player_id == player_id), None)

    def is_computer_seat(self, index: int) -> bool:
        """A bot's seat, or a human's who left (the computer plays on for them)."""
        return self.seats[index].is_bot or index in self.left

    def fold(self, stored: StoredEvent, applied: tuple[Any, list[dict[str, Any]]] | None = None) -> GameRecord:
        """Return the record after one more event of the log.

        `applied` is the rule module's result for this very MoveMade when the caller has just computed it
        (while validating the move), so the hot path does not apply the move twice.
        """
        event = stored.event
        if event.n != self.n + 1 or event.prev != self.last_hash:
            raise CorruptLog(f"game {self.game_id}: event {event.n} does not follow event {self.n}")
        changes: dict[str, Any] = {"last_seq": stored.seq, "n": event.n, "last_hash": event.hash}
        if event.type == EventType.MOVE_MADE:
            mover = int(event.data["seat"])
            state, effects = applied or self.module.apply(self.state, mover, event.data["move"])
            changes.update(state=state, last_effects=tuple(effects),
                           decision_start=_decisions_after(self, state, event.n, mover))
        elif event.type == EventType.PLAYER_LEFT:
            changes["left"] = self.left | {int(event.data["seat"])}
            if event.data.get("with_other_humans"):
                changes["left_with_others"] = self.left_with_others | {int(event.data["seat"])}
        elif event.type == EventType.GAME_ENDED:
            changes["ended"] = event
        return replace(self, **changes)


def _decisions_after(record: GameRecord, state: Any, n: int, mover: int | None) -> tuple[int | None, ...]:
    """Return when each seat's current decision began, after event `n` (a move by `mover`) led to `state`."""
    now = set(record.module.to_move(state)) if not record.module.is_over(state) else set()
    before = record.decision_start
    return tuple(
        None if seat not in now
        else n if seat == mover or before[seat] is None
        else before[seat]
        for seat in range(len(record.seats))
    )


def begin(stored: StoredEvent) -> GameRecord:
    """Return the record of a game from its first event, GameStarted."""
    event = stored.event
    if event.type != EventType.GAME_STARTED or event.n != 1 or event.prev != GENESIS:
        raise CorruptLog(f"game {event.game_id}: the log does not begin with GameStarted")
    module = registry.get(event.rules)
    data = event.data
    seats = tuple(
        Seat(index=i, name=seat["name"], kind=seat["kind"], player_id=seat.get("player_id"),
             level=seat.get("level"), account=seat.get("account"))
        for i, seat in enumerate(data["seats"])
    )
    state = module.setup(data["settings"], len(seats), bytes.fromhex(data["seed"]))
    first_movers = set(module.to_move(state))
    return GameRecord(game_id=event.game_id, module=module, started=event, seats=seats, state=state,
                      last_seq=stored.seq, n=1, last_hash=event.hash,
                      decision_start=tuple(1 if seat in first_movers else None for seat in range(len(seats))))


def replay(events: list[StoredEvent]) -> GameRecord:
    """Fold a whole log (as any replica or auditor would) into its record."""
    if not events:
        raise CorruptLog("empty log")
    record = begin(events[0])
    for stored in events[1:]:
        record = record.fold(stored)
    return record
