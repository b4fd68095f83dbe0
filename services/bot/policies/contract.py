"""The one bot contract: what a policy offers, and the skeleton every policy is built on.

A policy turns a seat's redacted view into a decision through the game's ``Engine``:

1. **determinize**: sample the hidden part from the seat's view (``engine.determinize``), once per
   determinization the level asks for, and wrap each state in a ``Position`` (``engine.from_state``);
2. **evaluate**: value the candidate moves on those positions (the game's hook);
3. **choose per level**: add the level's noise (easy) and take the best value; ties go to the candidate
   listed first, so a decision is reproducible from its ``SeededRng`` alone.

A must-act seat always gets a legal move. A may-act seat (``Pending.must`` is False) may get ``None``:
it does not act (e.g. it does not answer an offer). "Zurück" is never a candidate (``engine.legal_moves``
does not list it). Advice ("Rat des Meisters") goes through the same contract: the advice level's choice
and a German reason ``{"key", "params", "text"}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from libs.rules.engine import Engine, Position
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng

LEVELS: tuple[str, ...] = ("easy", "normal", "strong")
"""The computer players' levels, weakest first; advice is the strong level's move."""

__all__ = [
    "LEVELS",
    "Advice",
    "Candidate",
    "DeterminizedPolicy",
    "Policy",
    "Situation",
    "check_level",
    "seat_count",
]

Advice = tuple[Json | None, Json]
"""The advised move (None: "do nothing now", only for a may-act seat) and its German reason."""


def check_level(level: str) -> None:
    """Raise ValueError for a level that is not one of ``LEVELS``."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")


class Policy(Protocol):
    """What every game's computer player offers (a dedicated policy or the generic fallback)."""

    def decide(self, engine: Engine, view: Json, seat: int, level: str, rng: SeededRng) -> Json | None:
        """Return the level's move for ``seat`` from its view; None only if the seat may (not must) act."""
        ...

    def advise(self, engine: Engine, view: Json, seat: int, rng: SeededRng) -> Advice:
        """Return the strong level's move for ``seat`` and the German reason for it."""
        ...


@dataclass(frozen=True)
class Candidate:
    """A decision the policy considers, its value (higher is better) and what its reason is built from."""

    move: Json | None
    """The move as JSON, or None: the seat does not act (only for a may-act seat)."""
    value: float
    detail: Any = None
    """Whatever the policy's ``reason`` needs later (a preview, the next player's reply, a win share)."""


@dataclass(frozen=True)
class Situation:
    """One decision: the seat's view, its determinizations as engine positions, and the level."""

    engine: Engine
    view: Json
    seat: int
    level: str
    positions: tuple[Position, ...]
    """At least one: every hidden part sampled from the seat's view (the first from ``rng/determinize``)."""
    rng: SeededRng
    """The decision's generator; a hook derives its own streams from it (``rng.derive("playouts")``)."""
    must: bool = True
    """False when the seat only may act: then None ("does not act") is a valid decision."""
    notes: dict[str, Any] = field(default_factory=dict)
    """Scratch space a policy fills while evaluating (e.g. how many playouts it ran) for its reason."""

    @property
    def position(self) -> Position:
        """The first determinization (the one a single-sample policy evaluates)."""
        return self.positions[0]


def seat_count(view: Json, state: Any) -> int:
    """Return how many seats the game has: the view's ``plaetze`` (the platform's convention), else ``state.seats``."""
    seats = view.get("plaetze")
    if isinstance(seats, int) and not isinstance(seats, bool):
        return seats
    if isinstance(seats, list):
        return len(seats)
    counted = getattr(state, "seats", None)
    if isinstance(counted, int):
        return counted
    raise ValueError("the view names no seat count (\"plaetze\") and the state has no \"seats\"")


def _key(move: Json | None) -> str:
    return "null" if move is None else json.dumps(move, sort_keys=True, separators=(",", ":"))


class DeterminizedPolicy:
    """The shared skeleton: determinize → evaluate → choose per level. A game fills in the hooks.

    Hooks: ``evaluate_one`` (value the candidates on one determinization; or ``evaluate`` for all at once),
    ``reason`` (the German reason of an advised choice), ``determinizations(level)`` (how many samples of
    the hidden part; ``DETERMINIZATIONS``) and ``noise(level)`` (spread of the uniform noise added to each
    value, the easy level's "much randomness"; ``NOISE``). With several determinizations a move's value is
    its mean over the samples it was a candidate in.
    """

    DETERMINIZATIONS: ClassVar[Mapping[str, int]] = {"easy": 1, "normal": 1, "strong": 1}
    NOISE: ClassVar[Mapping[str, float]] = {"easy": 0.0, "normal": 0.0, "strong": 0.0}
    ADVICE_LEVEL: ClassVar[str] = "strong"

    # ---- the contract ------------------------------------------------------------------------------
    def decide(self, engine: Engine, view: Json, seat: int, level: str, rng: SeededRng) -> Json | None:
        """Return the level's move (None: a may-act seat does not act)."""
        return self.choose(self.situation(engine, view, seat, level, rng)).move

    def advise(self, engine: Engine, view: Json, seat: int, rng: SeededRng) -> Advice:
        """Return the advice level's move and the German reason for it."""
        situation = self.situation(engine, view, seat, self.ADVICE_LEVEL, rng)
        chosen = self.choose(situation)
        return chosen.move, self.reason(situation, chosen)

    # ---- the skeleton ------------------------------------------------------------------------------
    def situation(self, engine: Engine, view: Json, seat: int, level: str, rng: SeededRng) -> Situation:
        """Determinize the hidden part as often as the level asks and wrap each sample in a position."""
        check_level(level)
        positions = []
        for index in range(max(1, self.determinizations(level))):
            label = "determinize" if index == 0 else f"determinize-{index}"
            state = engine.determinize(view, seat, rng.derive(label))
            positions.append(engine.from_state(state, seat_count(view, state)))
        decision = positions[0].decision_of(seat)  # the engine worked out the open decisions already
        if decision is None:
            raise ValueError(f"seat {seat} has no open decision in this view")
        return Situation(engine=engine, view=view, seat=seat, level=level, positions=tuple(positions),
                         rng=rng, must=decision.must)

    def choose(self, situation: Situation) -> Candidate:
        """Return the best candidate after the level's noise (ties: the one listed first)."""
        candidates = self.evaluate(situation)
        if not candidates:
            raise ValueError("the bot's seat has no legal move")
        spread = self.noise(situation.level)
        if spread:
            noise = situation.rng.derive("noise")
            candidates = [Candidate(c.move, c.value + noise.random() * spread, c.detail) for c in candidates]
        best = candidates[0]
        for candidate in candidates[1:]:
            if candidate.value > best.value:
                best = candidate
        if best.move is None and situation.must:
            raise ValueError("a policy chose not to act for a seat that must act")
        return best

    # ---- the hooks -------------------------------------------------------------------------------------
    def determinizations(self, level: str) -> int:
        """Return how many samples of the hidden part a decision of ``level`` evaluates."""
        return self.DETERMINIZATIONS.get(level, 1)

    def noise(self, level: str) -> float:
        """Return the spread of the uniform noise added to every candidate's value at ``level``."""
        return self.NOISE.get(level, 0.0)

    def evaluate(self, situation: Situation) -> list[Candidate]:
        """Return the candidates with their values; by default the mean of ``evaluate_one`` over the samples."""
        if len(situation.positions) == 1:
            return self.evaluate_one(situation, situation.position)
        sums: dict[str, tuple[Candidate, float, int]] = {}
        for position in situation.positions:
            for candidate in self.evaluate_one(situation, position):
                key = _key(candidate.move)
                first, total, count = sums.get(key, (candidate, 0.0, 0))
                sums[key] = (first, total + candidate.value, count + 1)
        return [Candidate(first.move, total / count, first.detail) for first, total, count in sums.values()]

    def evaluate_one(self, situation: Situation, position: Position) -> list[Candidate]:
        """Return every candidate with its value on one determinized position (listed in a fixed order)."""
        raise NotImplementedError

    def reason(self, situation: Situation, chosen: Candidate) -> Json:
        """Return the German reason ``{"key", "params", "text"}`` for an advised choice."""
        raise NotImplementedError
