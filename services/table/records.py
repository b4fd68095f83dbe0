"""A game as the table service holds it: the fold of its log into the rule module's state."""

from __future__ import annotations

import sys
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

import msgspec

from libs.platform.contracts.base import ContractError
from libs.platform.contracts.events import GameMode, PlatformSettings
from libs.platform.envelope import GENESIS, Event, EventType, parse_stamp
from libs.platform.private import opened
from libs.rules import RuleModule, registry
from libs.rules.engine import Engine, Position, Step, visible_effects
from libs.rules.evolve import evolve
from services.table.event_store import StoredEvent


class CorruptLog(Exception):
    """The log cannot be folded (it does not start with GameStarted, or a stored move is illegal)."""


@dataclass(frozen=True, slots=True)
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


_EFFECTS = msgspec.json.Decoder(list[dict[str, Any]])
_OUTCOME = msgspec.json.Decoder(dict[str, Any])
_NO_EFFECTS = b"[]"
_ENCODE = msgspec.json.Encoder().encode
_PACK_ABOVE = 768
"""JSON longer than this is kept zlib-compressed (a round end's effects, an outcome: 2–3 KB, a fifth of it
compressed); a move's few effects stay plain, as views read them on every turn."""


def _pack(data: Any) -> bytes:
    """Return `data` as JSON bytes, compressed when long (`_unpack` reads both)."""
    raw = _ENCODE(data)
    return zlib.compress(raw, 6) if len(raw) > _PACK_ABOVE else raw


def _unpack(packed: bytes) -> bytes:
    """Return the JSON bytes `_pack` kept (JSON text starts with "[" or "{", zlib's header never does)."""
    return packed if packed[:1] in (b"[", b"{") else zlib.decompress(packed)


@dataclass(frozen=True, slots=True)
class Ended:
    """What a cached game keeps of its GameEnded: the outcome (as JSON bytes) and the revealed seed.

    The decoded outcome with its Rechenweg lines costs ~11 KiB per game as Python objects, its JSON about
    2 KB; views of finished games are rare, so they decode it when asked.
    """

    outcome_json: bytes
    """JSON, compressed when long (empty: GameEnded had none)."""
    seed: Any

    @property
    def outcome(self) -> Any:
        """The outcome as GameEnded stored it (a fresh copy per call)."""
        return _OUTCOME.decode(_unpack(self.outcome_json)) if self.outcome_json else None


@dataclass(frozen=True, slots=True)
class TeamHead:
    """How far a game's record has folded one team log (side moves: libs/platform/team_log.py)."""

    team: int
    seats: tuple[int, ...]
    last_seq: int = 0
    """The stream sequence of the last folded entry (0: none yet)."""
    n: int = 0
    last_hash: str = GENESIS
    effects_json: bytes = _NO_EFFECTS
    """The effects of the team's last side move (shown to the team only)."""
    after: int = 0
    """The game event the last entry follows (its ``data.after``; 0: no entry yet)."""
    last_sig: dict[str, str] | None = None
    """The table's signature of the last entry (``{"kid", "sig"}``; None: none yet, or unsigned): the receipt of
    a side move, which only the team's members get."""

    @property
    def last_effects(self) -> list[dict[str, Any]]:
        """The effects of the team's last side move (a fresh copy per call)."""
        return _EFFECTS.decode(_unpack(self.effects_json))


TURN_MOVES = 16
"""A seat's latest turn keeps the effects of at most this many moves (its last ones): a long turn of many small
moves (Speedspore's trades and builds) is shown by what it did last."""


@dataclass(frozen=True, slots=True)
class SeatTurn:
    """One seat's latest turn: the number of its last move and each of its moves' effects (packed JSON)."""

    n: int
    effects: tuple[bytes, ...]

    def all_effects(self) -> list[dict[str, Any]]:
        """The turn's effects, move by move in order (fresh copies)."""
        return [effect for packed in self.effects for effect in _EFFECTS.decode(_unpack(packed))]


class OutOfOrder(CorruptLog):
    """A team-log entry follows a game event this record has already folded past (a race between two replicas'
    appends): the caller folds the logs afresh, merged in their order."""


class ClockStart(NamedTuple):
    """The event a seat's think time runs from: its number and its timestamp in the log."""

    n: int
    at: str

    @property
    def began(self) -> datetime:
        """When the decision began, as a UTC datetime (the view's clock and the durable deadline run from it)."""
        return parse_stamp(self.at)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """Everything known about one game after folding its log up to stream sequence `last_seq`.

    A table caches thousands of these, so a record keeps only the facts of GameStarted and GameEnded that
    it serves (not the events) and the last move's effects as JSON bytes.
    """

    game_id: str
    engine: Engine
    seats: tuple[Seat, ...]
    position: Position
    last_seq: int
    n: int
    last_hash: str
    settings: dict[str, Any]
    """The normalised settings from GameStarted."""
    platform: PlatformSettings
    """The platform settings the table checked and stored in GameStarted (think time, tempo, turbo, stake)."""
    seed_hex: str
    """The game's seed (opened from its seal in GameStarted), hex."""
    seed_commitment: Any
    table_id: str | None = None
    mode: GameMode | None = None
    """The solo mode from GameStarted (None: a game outside the solo modes)."""
    seed_reveal_at: str | None = None
    """A daily game's: when its seed (the day's, everyone's) may be shown (ISO, UTC); None for other games."""
    ended: Ended | None = None
    """Set once GameEnded is folded."""
    effects_json: bytes = _NO_EFFECTS
    """The effects of the last MoveMade (a JSON array, compressed when long; see `last_effects`)."""
    team_logs: tuple[TeamHead, ...] = ()
    """One per team that may make side moves (its team log folded so far); empty for most games."""
    left: frozenset[int] = field(default_factory=frozenset)
    left_with_others: frozenset[int] = field(default_factory=frozenset)
    """Seats whose humans left while other humans still played (they lose 10 leaderboard points)."""
    last_sig: dict[str, str] | None = None
    """The table's signature of the last event (``{"kid", "sig"}``; None: unsigned): a move's receipt."""
    turns: tuple[SeatTurn | None, ...] = ()
    """Per seat, its latest turn (None: it has not moved yet): the moves it made since another seat last made a
    move it had to make (`SeatTurn`), for the view's `last_moves` (what an opponent just did, marked on the board)."""
    turn_seat: int | None = None
    """The seat of the last move made by a seat that had to move (whose turn it was); an answer to an offer (a
    seat that only may act) does not end the mover's turn."""
    clocks: tuple[ClockStart | None, ...] = ()
    """Per seat: the event its current must-act decision began with (None: no clock runs for it).

    A seat's think time runs per decision; the engine says when a decision is new (``Decision.began`` is
    the ply of the move that opened it: when the seat comes to move, after its own moves unless the game
    names the decision as going on, never on "Zurück"). Seats that only may act have no clock.
    """

    @property
    def module(self) -> RuleModule:
        """The rule module this game is played by."""
        return self.engine.module

    @property
    def state(self) -> Any:
        """The rule module's state after the last folded move."""
        return self.position.state

    @property
    def seed(self) -> bytes:
        return bytes.fromhex(self.seed_hex)

    @property
    def last_effects(self) -> list[dict[str, Any]]:
        """The effects of the last move (a fresh copy per call; empty before the first move)."""
        return _EFFECTS.decode(_unpack(self.effects_json))

    @property
    def variant(self) -> str:
        """The variant the leaderboard keeps a list for (the game itself when it has none)."""
        return self.engine.variant(self.settings)

    @property
    def is_over(self) -> bool:
        return self.engine.is_over(self.position)

    @property
    def is_running(self) -> bool:
        """True until the rules say the game is over (GameEnded follows)."""
        return self.ended is None and not self.is_over

    def seat_of(self, player_id: str) -> Seat | None:
        """Return the seat of `player_id`, if that player sits at this game."""
        return next((seat for seat in self.seats if seat.player_id == player_id), None)

    def has_other_humans(self, seat: int) -> bool:
        """True while a human other than the one at `seat` still plays (has not left)."""
        return any(other.kind == "human" and other.index != seat and other.index not in self.left
                   for other in self.seats)

    def is_computer_seat(self, index: int) -> bool:
        """A bot's seat, or a human's who left (the computer plays on for them)."""
        return self.seats[index].is_bot or index in self.left

    def fold(self, stored: StoredEvent, applied: Step | None = None, *, keep_effects: bool = True) -> GameRecord:
        """Return the record after one more event of the log.

        `applied` is the engine's step for this very MoveMade when the caller has just computed it
        (while validating the move), so the hot path does not apply the move twice. With `keep_effects`
        False a MoveMade's effects are not kept (the record has none): for a fold that a later MoveMade
        overwrites anyway (`replay`).
        """
        event = stored.event
        if event.n != self.n + 1 or event.prev != self.last_hash:
            raise CorruptLog(f"game {self.game_id}: event {event.n} does not follow event {self.n}")
        changes: dict[str, Any] = {"last_seq": stored.seq, "n": event.n, "last_hash": event.hash,
                                   "last_sig": event.sig}
        if event.type == EventType.MOVE_MADE:
            mover = int(event.data["seat"])
            if applied is None:
                try:
                    applied = self.engine.apply(self.position, mover, opened(event.data["move"]))
                except Exception as error:  # an illegal or unreadable stored move: the log cannot be folded
                    raise CorruptLog(f"game {self.game_id}: event {event.n} cannot be replayed ({error})") from error
            packed = _pack(applied.effects) if applied.effects else _NO_EFFECTS
            decision = self.position.decision_of(mover)
            changes.update(position=applied.position,
                           effects_json=packed if keep_effects else _NO_EFFECTS,
                           clocks=clocks_after(applied.position, event, self.clocks),
                           turns=self._turns_after(mover, event.n, packed))
            if decision is not None and decision.must:
                changes["turn_seat"] = mover
        elif event.type == EventType.PLAYER_LEFT:
            changes["left"] = self.left | {int(event.data["seat"])}
            if event.data.get("with_other_humans"):
                changes["left_with_others"] = self.left_with_others | {int(event.data["seat"])}
        elif event.type == EventType.GAME_ENDED:
            outcome = event.data.get("outcome")
            changes["ended"] = Ended(outcome_json=b"" if outcome is None else _pack(outcome),
                                     seed=event.data.get("seed"))
        return evolve(self, **changes)

    def _turns_after(self, mover: int, n: int, packed: bytes) -> tuple[SeatTurn | None, ...]:
        """The seats' latest turns once `mover` made move `n` with the effects `packed`: its turn goes on while no
        other seat has made a move it had to make since (`turn_seat`), else this move begins a new one."""
        turns = list(self.turns) + [None] * (len(self.seats) - len(self.turns))
        current = turns[mover]
        if current is not None and self.turn_seat == mover:
            turns[mover] = SeatTurn(n, (*current.effects, packed)[-TURN_MOVES:])
        else:
            turns[mover] = SeatTurn(n, (packed,))
        return tuple(turns)

    def last_moves(self, viewer: int | None) -> list[dict[str, Any] | None]:
        """Per seat, its latest turn as `viewer` may read it: ``{"n", "effects"}`` (None: the seat has not moved)."""
        shown: list[dict[str, Any] | None] = []
        for index in range(len(self.seats)):
            turn = self.turns[index] if index < len(self.turns) else None
            shown.append(None if turn is None else
                         {"n": turn.n, "effects": visible_effects(turn.all_effects(), viewer)})
        return shown

    def team_of_seat(self, seat: int | None) -> TeamHead | None:
        """Return the team log `seat` belongs to and may read (None: a spectator, or no team logs)."""
        if seat is None:
            return None
        return next((head for head in self.team_logs if seat in head.seats), None)

    def fold_side(self, stored: StoredEvent, applied: Step | None = None) -> GameRecord:
        """Return the record after one more entry of a team log (a side move after this record's event `n`).

        The entry must be its log's next one and follow exactly this game event (`after`, `after_hash`); one that
        follows an earlier event raises OutOfOrder (fold the logs afresh, merged). Nothing but the position (the
        side move applied) and the team's head changes: no clock, no effects of the game's log.
        """
        event = stored.event
        data = event.data
        team = data.get("team")
        index = next((i for i, head in enumerate(self.team_logs) if head.team == team), None)
        if index is None:
            raise CorruptLog(f"game {self.game_id}: a team log {team!r} this game has not")
        head = self.team_logs[index]
        if event.n != head.n + 1 or event.prev != head.last_hash:
            raise CorruptLog(f"game {self.game_id}: team {team} entry {event.n} does not follow entry {head.n}")
        after = data.get("after")
        if not isinstance(after, int) or after < self.n:
            raise OutOfOrder(f"game {self.game_id}: team {team} entry {event.n} follows event {after}, "
                             f"the record is at {self.n}")
        if after > self.n:
            raise CorruptLog(f"game {self.game_id}: team {team} entry {event.n} follows event {after}, not yet folded")
        if data.get("after_hash") != self.last_hash:
            raise CorruptLog(f"game {self.game_id}: team {team} entry {event.n} is bound to another event {after}")
        seat = int(data["seat"])
        if seat not in head.seats:
            raise CorruptLog(f"game {self.game_id}: seat {seat} is not of team {team}")
        if applied is None:
            try:
                applied = self.engine.apply(self.position, seat, data["move"])
            except Exception as error:
                raise CorruptLog(f"game {self.game_id}: team {team} entry {event.n} cannot be replayed "
                                 f"({error})") from error
        moved = evolve(head, last_seq=stored.seq, n=event.n, last_hash=event.hash,
                       effects_json=_pack(applied.effects), after=after, last_sig=event.sig)
        heads = (*self.team_logs[:index], moved, *self.team_logs[index + 1:])
        return evolve(self, position=applied.position, team_logs=heads)


def fold_merged(record: GameRecord, events: list[StoredEvent], side: list[StoredEvent]) -> GameRecord:
    """Return `record` with the game log's next `events` and the team logs' next entries `side` folded on in the
    one order every reader folds them: game event n, then the team entries with after == n (team by team, each
    in its order), then event n + 1. Entries that follow a game event beyond `events` are left for later (their
    team's head stays before them). OutOfOrder: an entry follows an event `record` had folded past.
    """
    pending = sorted(side, key=lambda stored: (stored.event.data.get("after", -1), stored.event.data.get("team", 0),
                                               stored.event.n))
    waiting = 0

    def fold_sides(current: GameRecord) -> GameRecord:
        nonlocal waiting
        while waiting < len(pending) and pending[waiting].event.data.get("after") == current.n:
            current = current.fold_side(pending[waiting])
            waiting += 1
        if waiting < len(pending) and not isinstance(pending[waiting].event.data.get("after"), int):
            raise CorruptLog(f"game {current.game_id}: a team-log entry names no game event")
        if waiting < len(pending) and pending[waiting].event.data["after"] < current.n:
            raise OutOfOrder(f"game {current.game_id}: a team-log entry follows event "
                             f"{pending[waiting].event.data['after']}, the record is at {current.n}")
        return current

    record = fold_sides(record)
    last_move = max((index for index, stored in enumerate(events) if stored.event.type == EventType.MOVE_MADE),
                    default=-1)
    for index, stored in enumerate(events):
        record = fold_sides(record.fold(stored, keep_effects=index == last_move))
    return record


def clocks_after(position: Position, event: Event,
                  before: tuple[ClockStart | None, ...] = ()) -> tuple[ClockStart | None, ...]:
    """Return, per seat, the event its must-act decision began with, once `event` led to `position`.

    A decision the engine opened with this very event (it began at the position's ply) starts at `event`;
    one that goes on keeps its start from `before`.
    """
    return tuple(
        None if decision is None or not decision.must
        else ClockStart(event.n, event.at) if decision.began == position.ply
        else before[seat]
        for seat, decision in enumerate(position.decisions))


def seats_of(started: Event) -> tuple[Seat, ...]:
    """Return who sits where, from a game's GameStarted (no need to set the game up)."""
    return tuple(
        Seat(index=i, name=seat["name"], kind=_shared(seat["kind"]), player_id=seat.get("player_id"),
             level=_shared(seat.get("level")), account=_shared(seat.get("account")))
        for i, seat in enumerate(started.data["seats"])
    )


def _shared(value: Any) -> Any:
    """Return `value`, a string interned (a word every cached game repeats, held once)."""
    return sys.intern(value) if type(value) is str else value


def _shared_values(data: dict[str, Any]) -> dict[str, Any]:
    """Return `data` with its top-level strings interned (settings, platform settings: a few words)."""
    return {key: _shared(value) for key, value in data.items()}


def begin(stored: StoredEvent) -> GameRecord:
    """Return the record of a game from its first event, GameStarted."""
    event = stored.event
    if event.type != EventType.GAME_STARTED or event.n != 1 or event.prev != GENESIS:
        raise CorruptLog(f"game {event.game_id}: the log does not begin with GameStarted")
    engine = registry.engine(event.rules)
    data = event.data
    seats = seats_of(event)
    seed = opened(data["seed"])
    settings = data["settings"]
    if type(settings) is dict:
        settings = _shared_values(settings)
    position = engine.start(settings, len(seats), bytes.fromhex(seed))
    team_logs = tuple(TeamHead(team=index, seats=team) for index, team in enumerate(engine.side_teams(settings,
                                                                                                      len(seats))))
    return GameRecord(game_id=event.game_id, engine=engine, seats=seats, position=position,
                      last_seq=stored.seq, n=1, last_hash=event.hash, last_sig=event.sig, settings=settings,
                      platform=PlatformSettings.from_data(data.get("platform") or {}), seed_hex=seed,
                      seed_commitment=data.get("seed_commitment"), table_id=data.get("table_id"),
                      mode=_mode_of(data.get("mode")), seed_reveal_at=_shared(data.get("seed_reveal_at")),
                      clocks=clocks_after(position, event), team_logs=team_logs)


def _mode_of(data: Any) -> GameMode | None:
    """Return GameStarted's mode (None when absent), its words interned: every game of a mode and day
    repeats them."""
    if data is None:
        return None
    try:
        mode = GameMode.from_data(data)
    except ContractError as error:
        raise CorruptLog(f"GameStarted names an unreadable mode ({error})") from error
    return msgspec.structs.replace(mode, key=_shared(mode.key), day=_shared(mode.day))


def fold_on(record: GameRecord, events: list[StoredEvent]) -> GameRecord:
    """Return `record` with `events` (the log's next ones, in order) folded on.

    Only the last move's effects stay in the record: those of earlier moves are not packed at all.
    """
    last_move = max((index for index, stored in enumerate(events) if stored.event.type == EventType.MOVE_MADE),
                    default=-1)
    for index, stored in enumerate(events):
        record = record.fold(stored, keep_effects=index == last_move)
    return record


def replay(events: list[StoredEvent], side: list[StoredEvent] | None = None) -> GameRecord:
    """Fold a whole log (as any replica or auditor would) into its record; `side`: its team logs' entries (all of
    them), folded in at their places (`fold_merged`)."""
    if not events:
        raise CorruptLog("empty log")
    if side:
        return fold_merged(begin(events[0]), events[1:], side)
    return fold_on(begin(events[0]), events[1:])
