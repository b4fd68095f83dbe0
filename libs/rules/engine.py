"""The protocol's core: one engine plays every rule module, with the checks and bookkeeping all games share.

A game's position is the module's state plus what the platform keeps beside it: how many moves were
made (``ply``), when each seat's open decision began (think time runs per decision) and the states that
"Zurück" can return to. Everything here is a pure fold of the moves, so a log replays identically.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from libs.rules.evolve import evolve
from libs.rules.protocol import (
    ConfigError,
    GameSpec,
    IllegalMove,
    Json,
    Outcome,
    Pending,
    RuleModule,
    TimeoutRule,
)
from libs.rules.rng import SeededRng

UNDO_KEY = "zurueck"
UNDO_MOVE: Json = {UNDO_KEY: True}
"""The move that takes the seat's last undoable step back ("Zurück")."""

__all__ = ["UNDO_KEY", "UNDO_MOVE", "Decision", "Engine", "Position", "Step", "audience_of", "visible_effects"]


@dataclass(frozen=True, slots=True)
class Decision:
    """A seat's open decision: must it act, the module's name for it, and the ply it began at."""

    must: bool
    key: str | None
    began: int


@dataclass(frozen=True, slots=True)
class Position:
    """A game between moves: the module's state and the engine's bookkeeping beside it."""

    state: Any
    seats: int
    ply: int = 0
    decisions: tuple[Decision | None, ...] = ()
    """Per seat, its open decision (None: it has none), taken from the module's ``pending`` for ``state``."""
    undo_seat: int | None = None
    undo_states: tuple[Any, ...] = ()
    """States before each of ``undo_seat``'s undoable steps of this turn, oldest first."""

    def decision_of(self, seat: int) -> Decision | None:
        """Return the seat's open decision, or None if it has nothing to decide."""
        return self.decisions[seat] if 0 <= seat < len(self.decisions) else None


@dataclass(frozen=True, slots=True)
class Step:
    """One applied move: the position after it, its effects, who may read the move, whether it was "Zurück"."""

    position: Position
    effects: list[Json]
    move_audience: tuple[int, ...] | None = None
    undo: bool = False


def audience_of(effect: Json) -> tuple[int, ...] | None:
    """Return the seats that may read an effect, or None when everyone may."""
    seats = effect.get("visible_to")
    return None if seats is None else tuple(int(seat) for seat in seats)


def visible_effects(effects: list[Json] | tuple[Json, ...], viewer: int | None) -> list[Json]:
    """Return the effects ``viewer`` may read (None: a spectator reads only public effects)."""
    return [effect for effect in effects
            if (audience := audience_of(effect)) is None or (viewer is not None and viewer in audience)]


def _interned(value: Any) -> Any:
    """Return a copy of a move's JSON with its strings interned (equal, and shared).

    A module keeps a move's strings in its state (a colour taken lies in a pattern line, on the floor, in
    the lid): interned, a cached game holds one shared "rot" instead of one decoded copy per move.
    """
    kind = type(value)
    if kind is str:
        return sys.intern(value)
    if kind is dict:
        copy: dict[Any, Any] = {}
        for key, item in value.items():  # numbers and booleans, a move's usual values, taken as they are
            inner = type(item)
            copy[key] = item if inner is int or inner is bool else _interned(item)
        return copy
    if kind is list:
        return [_interned(item) for item in value]
    return value


def _seat_name(seat: int) -> str:
    return f"Platz {seat + 1}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Engine:
    """Plays one rule module: shared checks, "Zurück", per-decision bookkeeping, redaction."""

    def __init__(self, module: RuleModule) -> None:
        self.module = module
        self.spec: GameSpec = module.spec

    @property
    def rules_id(self) -> str:
        """The module's ``rules_id``."""
        return self.spec.rules_id

    # ---- settings ---------------------------------------------------------------------------------
    def normalize_config(self, config: Any, seats: Any) -> Json:
        """Return the full config for this many seats; raise ConfigError with a German reason."""
        if not _is_int(seats) or seats not in self.spec.seat_counts:
            counts = self.spec.seat_counts
            allowed = ", ".join(str(count) for count in counts[:-1]) + (" oder " if len(counts) > 1 else "") + str(
                counts[-1])
            raise ConfigError(f"{self.spec.name} spielt man mit {allowed} Plätzen.", "seats")
        if config is None:
            config = {}
        if not isinstance(config, dict):
            raise ConfigError("Die Einstellungen haben ein unbekanntes Format.", "malformed")
        return self.module.normalize_config(config, seats)

    def variant(self, config: Json) -> str:
        """Return the leaderboard list a game with this config counts for."""
        key = self.spec.variant_key
        return str(config.get(key) or self.spec.game) if key else self.spec.game

    # ---- playing ----------------------------------------------------------------------------------
    def start(self, config: Json, seats: int, seed: bytes) -> Position:
        """Return the first position of a game (config as normalised, seed from the table)."""
        return self.from_state(self.module.setup(config, seats, bytes(seed)), seats)

    def from_state(self, state: Any, seats: int) -> Position:
        """Return a position around a module state (a bot's determinized state: no history, no undo)."""
        bare = Position(state=state, seats=seats, decisions=(None,) * seats)
        return evolve(bare, decisions=self._decisions(bare, state, ply=0, mover=None, undo=False))

    def is_over(self, position: Position) -> bool:
        """Return True once the game has ended."""
        return self.module.is_over(position.state)

    def pending(self, position: Position) -> tuple[Pending, ...]:
        """Return the seats with an open decision (must-act and may-act), none once the game is over."""
        return self._pending(position.state)

    def _pending(self, state: Any) -> tuple[Pending, ...]:
        return () if self.module.is_over(state) else self.module.pending(state)

    def must_act(self, position: Position) -> tuple[int, ...]:
        """Return the seats that must decide now (their clocks run)."""
        return tuple([p.seat for p in self._pending(position.state) if p.must])

    def may_act(self, position: Position) -> tuple[int, ...]:
        """Return the seats that may act now without having to."""
        return tuple([p.seat for p in self._pending(position.state) if not p.must])

    def can_act(self, position: Position, seat: int) -> bool:
        """Return True if ``seat`` has an open decision (must or may)."""
        return position.decision_of(seat) is not None  # kept from ``pending`` when the position was made

    def legal_moves(self, position: Position, seat: int) -> list[Json]:
        """Return the seat's legal moves (empty when it has no open decision); "Zurück" is not among them."""
        if not self.can_act(position, seat):
            return []
        return self.module.legal_moves(position.state, seat)

    def can_undo(self, position: Position, seat: int) -> bool:
        """Return True if "Zurück" would take a step of ``seat`` back now."""
        return bool(position.undo_states) and position.undo_seat == seat and self.can_act(position, seat)

    def check(self, position: Position, seat: Any, move: Any) -> None:
        """Raise IllegalMove (German reason) for what every game refuses alike; return if the module may judge."""
        if self.module.is_over(position.state):
            raise IllegalMove("Die Partie ist schon zu Ende.", "game_over")
        if not (type(seat) is int or _is_int(seat)) or not 0 <= seat < position.seats:
            # Only a plausible seat number is named: the reason must never echo a hostile value whole.
            shown = _seat_name(seat) if _is_int(seat) and -1 <= seat < 99 else "Diesen Platz"
            raise IllegalMove(f"{shown} gibt es in dieser Partie nicht.", "no_seat")
        if not isinstance(move, dict):
            raise IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
        if not self.can_act(position, seat):
            movers = self.must_act(position)
            if len(movers) == 1:
                raise IllegalMove(f"{_seat_name(movers[0])} ist am Zug, nicht du.", "not_your_turn")
            raise IllegalMove("Du bist gerade nicht am Zug.", "not_your_turn")

    def apply(self, position: Position, seat: int, move: Any) -> Step:
        """Return the step after ``seat`` makes ``move``; raise IllegalMove and change nothing if it is refused."""
        self.check(position, seat, move)
        if UNDO_KEY in move:
            self._check_undo(position, seat, move)
            return self._undo(position, seat)
        ply = position.ply + 1
        move = _interned(move)
        audience = self.module.move_audience(position.state, seat, move)
        undoable = self.spec.undo_steps > 0 and self.module.undoable(position.state, seat, move)
        state, effects = self.module.apply(position.state, seat, move)
        if undoable:
            kept = position.undo_states if position.undo_seat == seat else ()
            undo_states = (*kept, position.state)[-self.spec.undo_steps:]
            undo_seat: int | None = seat
        else:
            undo_states, undo_seat = (), None
        decisions = self._decisions(position, state, ply=ply, mover=seat, undo=False)
        after = Position(state=state, seats=position.seats, ply=ply, decisions=decisions,
                         undo_seat=undo_seat, undo_states=undo_states)
        return Step(position=after, effects=effects, move_audience=audience)

    def _check_undo(self, position: Position, seat: int, move: Json) -> None:
        """Raise IllegalMove unless ``move`` is a well-formed "Zurück" that takes a step of ``seat`` back now."""
        if set(move) != {UNDO_KEY} or move[UNDO_KEY] is not True:
            raise IllegalMove("„Zurück“ schreibt man als {\"zurueck\": true}.", "malformed")
        if self.spec.undo_steps == 0:
            raise IllegalMove("In diesem Spiel gibt es kein „Zurück“.", "no_undo")
        if not self.can_undo(position, seat):
            raise IllegalMove("Hier gibt es nichts zurückzunehmen.", "nothing_to_undo")

    def _undo(self, position: Position, seat: int) -> Step:
        """Return the step that takes ``seat``'s last undoable step back (``_check_undo`` has passed)."""
        ply = position.ply + 1
        state = position.undo_states[-1]
        rest = position.undo_states[:-1]
        decisions = self._decisions(position, state, ply=ply, mover=seat, undo=True)
        after = Position(state=state, seats=position.seats, ply=ply, decisions=decisions,
                         undo_seat=seat if rest else None, undo_states=rest)
        effect: Json = {"key": "zurueck", "params": {"platz": seat + 1},
                        "text": f"{_seat_name(seat)} nimmt den letzten Schritt zurück."}
        return Step(position=after, effects=[effect], undo=True)

    def _decisions(self, before: Position, state: Any, *, ply: int, mover: int | None,
                   undo: bool) -> tuple[Decision | None, ...]:
        """Return each seat's open decision after a move; a decision that goes on keeps when it began.

        A seat's decision is new (its clock starts again) when it becomes pending, when it changes from
        may to must, when the module names a different decision, or (if the module names none) after each
        of the seat's own moves. "Zurück" never starts a new decision.
        """
        pending = self._pending(state)
        result: list[Decision | None] = [None] * before.seats
        kept = before.decisions
        count = len(kept)
        for entry in pending:
            seat = entry.seat
            old = kept[seat] if 0 <= seat < count else None  # ``before.decision_of(seat)``
            if old is None or old.must != entry.must:
                began = ply
            elif undo:
                began = old.began
            elif entry.decision is not None:
                began = old.began if old.key == entry.decision else ply
            else:
                began = ply if seat == mover else old.began
            if old is not None and began == old.began and old.key == entry.decision and old.must is entry.must:
                result[seat] = old  # the same decision goes on: the equal frozen object is shared
            else:
                result[seat] = Decision(must=entry.must, key=entry.decision, began=began)
        return tuple(result)

    def side_channel(self, position: Position, seat: int, move: Any) -> tuple[int, ...] | None:
        """Return the team whose side log ``move`` belongs in (a side move: see ``RulesBase.side_channel``), None
        for a move of the game's log (every move of a module without the hook)."""
        hook = getattr(self.module, "side_channel", None)
        if hook is None or not isinstance(move, dict) or UNDO_KEY in move:
            return None
        team = hook(position.state, seat, move)
        return None if team is None else tuple(int(member) for member in team)

    def teams(self, config: Json, seats: int) -> tuple[tuple[int, ...], ...]:
        """Return the seats that play together in a game with this config (``()`` without teams)."""
        return tuple(tuple(int(seat) for seat in team) for team in self.module.teams(config, seats))

    def side_teams(self, config: Json, seats: int) -> tuple[tuple[int, ...], ...]:
        """Return the teams whose side logs a game with this config may have (none for most modules)."""
        hook = getattr(self.module, "side_teams", None)
        return () if hook is None else tuple(tuple(int(seat) for seat in team) for team in hook(config, seats))

    def preview(self, position: Position, seat: int, move: Any) -> Json:
        """Return what the move would bring; raise IllegalMove for a move ``apply`` would refuse.

        Except a confirm-first move (see ``RuleModule.preview``): its preview shows the warning that
        ``apply`` refuses it with until it is confirmed.
        """
        self.check(position, seat, move)
        if UNDO_KEY in move:
            self._check_undo(position, seat, move)
            return {"zug": dict(move), "zurueck": True}
        return self.module.preview(position.state, seat, move)

    def view(self, position: Position, seat: int | None) -> Json:
        """Return what ``seat`` (None: a spectator) may see."""
        return self.module.view(position.state, seat)

    def outcome(self, position: Position) -> Outcome:
        """Return the final ranking; raise ValueError while the game runs."""
        return self.module.outcome(position.state)

    def timeout_move(self, position: Position, seat: int) -> Json | None:
        """Return the move the game makes for a seat out of think time, None when the computer decides."""
        if self.spec.timeout is TimeoutRule.COMPUTER_DECIDES:
            return None
        return self.module.timeout_move(position.state, seat)

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> Any:
        """Return a module state consistent with ``view`` (hidden parts sampled from ``rng``)."""
        return self.module.determinize(view, seat, rng)
