"""The generic fallback: determinized Monte-Carlo over the protocol, for any game without a policy of its own.

It knows nothing about a game beyond the protocol: for each candidate move of the seat it plays the game
to the end from several determinizations (samples of the hidden part), with random moves for every seat
that must act, and values the move by the places ``Outcome`` gives: the share of the other seats the
deciding seat finished ahead of (a shared place counts half). Budgets are counted in moves applied during
playouts, never in wall-clock time, so a decision is reproducible from its ``SeededRng``.

- The playouts of all candidates use the same determinizations and the same random streams (playout ``j``
  of every candidate starts from determinization ``j mod n`` with stream ``j``): differences in value come
  from the moves, not from luck.
- Sequential halving spreads the budget: every candidate gets playouts, then the better half gets more,
  until one is left (normal, strong). Easy gives every candidate the same tiny budget and adds noise.
- Simultaneous decisions: a playout lets every must-act seat move in turn. May-act seats skip in playouts
  while someone must act; if only may-act seats are pending, a random one of them makes a random move.
- A may-act seat's candidates include ``None`` ("does not act"), valued by playouts in which it skips.
- Advice: the strong choice with a German reason built from its estimated share of places ahead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from libs.rules.engine import Engine, Position
from libs.rules.protocol import IllegalMove, Json, Outcome
from libs.rules.rng import SeededRng
from services.bot.policies.contract import Candidate, DeterminizedPolicy, Situation

__all__ = [
    "BUDGETS",
    "MAX_PLAYOUT_MOVES",
    "MIN_PLAYOUT_LIMIT",
    "POLICY",
    "Budget",
    "Estimate",
    "MonteCarloPolicy",
    "place_share",
]


@dataclass(frozen=True)
class Budget:
    """What one decision of a level may spend."""

    moves: int
    """Moves applied in playouts (the deterministic stand-in for thinking time)."""
    determinizations: int
    """Samples of the hidden part the playouts start from (in turn)."""
    candidates: int
    """At most this many of the seat's legal moves are tried (a fixed random selection when there are more)."""
    halving: bool
    """Sequential halving (True) or the same playouts for every candidate (False)."""
    noise: float
    """Spread of the uniform noise added to each candidate's estimated share (easy)."""


BUDGETS: dict[str, Budget] = {
    "easy": Budget(moves=200, determinizations=2, candidates=6, halving=False, noise=0.35),
    "normal": Budget(moves=600, determinizations=4, candidates=12, halving=True, noise=0.0),
    "strong": Budget(moves=1500, determinizations=6, candidates=24, halving=True, noise=0.0),
}
"""Per level. A Speedmosaik playout move costs 0.2–0.5 ms of CPU on the 2-core development machine, so a
strong decision stays well under a second there (p95 0.2–0.5 s over whole games, docs/benchmarks.md)."""

MAX_PLAYOUT_MOVES = 3000
MIN_PLAYOUT_LIMIT = 300
"""A playout that has not ended after the level's whole budget of moves (at least ``MIN_PLAYOUT_LIMIT``, at
most ``MAX_PLAYOUT_MOVES``) counts as a draw with no margin.

Random play can reach positions a game never ends from (e.g. a Kachelwand free wall where no wall row can
be completed any more); the cap keeps a decision's time bounded all the same.
"""


def place_share(places: tuple[int, ...], seat: int) -> float:
    """Return the share of the other seats ``seat`` finished ahead of (a shared place counts half)."""
    others = [place for other, place in enumerate(places) if other != seat]
    if not others:
        return 1.0
    mine = places[seat]
    return sum(1.0 if mine < place else 0.5 if mine == place else 0.0 for place in others) / len(others)


ROUND_RANK = 1000.0
"""Added to a candidate's value per halving round it survived (far above any value a playout gives)."""

MARGIN_WEIGHT = 0.5
"""How much the margin counts beside the places: mean margin over the decision's typical margin, times this.

The margin is the first rank criterion (``Outcome.rank_key``, usually the score) minus the best other seat's:
playouts are noisy, and by how much a move wins or loses tells more than whether it does.
"""


@dataclass(frozen=True)
class Estimate:
    """What the advice says of a candidate: how many playouts it had and its mean share of places ahead."""

    playouts: int
    share: float


@dataclass(frozen=True)
class Playout:
    """One random game to the end: the seat's share of places ahead, its margin, and the moves applied."""

    share: float
    margin: float
    moves: int


def _result(outcome: Outcome, seat: int, moves: int) -> Playout:
    own = outcome.rank_key(seat)[0]
    others = [outcome.rank_key(other)[0] for other in range(len(outcome.places)) if other != seat]
    return Playout(place_share(outcome.places, seat), float(own - max(others, default=0)), moves)


def _playout(engine: Engine, position: Position, seat: int, rng: SeededRng, limit: int) -> Playout:
    """Play random moves to the end (must-act seats first; may-act seats skip while someone must act).

    A playout still running after ``limit`` moves counts as a draw with no margin. It plays on the module's
    states, not through ``Engine.apply``: each move is a pending seat's legal move, so the engine's checks
    hold anyway, and a playout needs no clocks or "Zurück" states (the engine would work out the pending
    seats four times per move for them).
    """
    module = engine.module
    state = position.state
    moves = 0
    while not module.is_over(state):
        pending = module.pending(state)
        if not pending:
            return Playout(0.5, 0.0, moves)  # nobody has a decision open, yet the game goes on: a broken module
        if moves >= limit:
            return Playout(0.5, 0.0, moves)
        must = [entry.seat for entry in pending if entry.must]
        actor = must[0] if must else rng.choice([entry.seat for entry in pending])
        legal = module.legal_moves(state, actor)
        if not legal:
            return Playout(0.5, 0.0, moves)
        state, _ = module.apply(state, actor, rng.choice(legal))
        moves += 1
    return _result(module.outcome(state), seat, moves)


class _Tally:
    """The playouts of every candidate of one decision, and the values they add up to."""

    def __init__(self, size: int) -> None:
        self.shares = [0.0] * size
        self.margins = [0.0] * size
        self.counts = [0] * size
        self.moves = 0
        self.playouts = 0
        self.spread = 0.0

    def add(self, index: int, playout: Playout) -> None:
        self.shares[index] += playout.share
        self.margins[index] += playout.margin
        self.counts[index] += 1
        self.moves += playout.moves
        self.playouts += 1
        self.spread += abs(playout.margin)

    def length(self) -> float:
        """Return the mean number of moves a playout took so far (at least 1)."""
        return max(self.moves / self.playouts, 1.0) if self.playouts else 1.0

    def value(self, index: int) -> float:
        """Return the candidate's mean share plus its weighted mean margin (relative to the typical one)."""
        count = self.counts[index]
        scale = max(self.spread / self.playouts, 1.0) if self.playouts else 1.0
        return (self.shares[index] + MARGIN_WEIGHT * self.margins[index] / scale) / count

    def estimate(self, index: int) -> Estimate:
        count = self.counts[index]
        return Estimate(count, self.shares[index] / count)


def _limit(budget: Budget) -> int:
    """Return how many moves one playout may take at most: the level's budget, within the fixed bounds."""
    return min(MAX_PLAYOUT_MOVES, max(MIN_PLAYOUT_LIMIT, budget.moves))


def _after(engine: Engine, starts: tuple[Position, ...], seat: int, move: Json | None) -> list[Position]:
    """Return the positions after our move on each determinization (None: the seat does not act).

    A seat's legal moves come from what it sees, so they are legal on every determinization; should a
    game's legality depend on a hidden part after all, that sample continues from the first one instead.
    """
    if move is None:
        return list(starts)
    first = engine.apply(starts[0], seat, move).position
    result = [first]
    for start in starts[1:]:
        try:
            result.append(engine.apply(start, seat, move).position)
        except IllegalMove:
            result.append(first)
    return result


class MonteCarloPolicy(DeterminizedPolicy):
    """Determinized Monte-Carlo: plays any game that follows the protocol, from day one."""

    def __init__(self, budgets: Mapping[str, Budget] = BUDGETS) -> None:
        self.budgets = dict(budgets)

    def determinizations(self, level: str) -> int:
        """Return the level's number of samples of the hidden part."""
        return self.budgets[level].determinizations

    def noise(self, level: str) -> float:
        """Return the level's noise (easy only)."""
        return self.budgets[level].noise

    def evaluate(self, situation: Situation) -> list[Candidate]:
        """Return the candidates valued by playouts (survivors of sequential halving rank first)."""
        engine, seat = situation.engine, situation.seat
        budget = self.budgets[situation.level]
        moves: list[Json | None] = list(engine.legal_moves(situation.position, seat))
        room = budget.candidates
        if len(moves) > 2:
            # One playout without our move measures how long the game still runs: the rounds of the
            # halving must pay for at least one playout per candidate (about twice the first round).
            probe = _playout(engine, situation.position, seat, situation.rng.derive("probe"), _limit(budget))
            room = min(room, max(2, int(budget.moves / (2 * max(probe.moves, 1)))))
        if len(moves) > room:
            chosen = sorted(situation.rng.derive("candidates").shuffle(range(len(moves)))[:room])
            moves = [moves[index] for index in chosen]
        if not situation.must:
            moves.append(None)
        if len(moves) <= 1:
            situation.notes["playouts"] = 0
            return [Candidate(move, 0.0, Estimate(0, math.nan)) for move in moves]
        return self._halve(situation, moves, budget)

    def _halve(self, situation: Situation, moves: list[Json | None], budget: Budget) -> list[Candidate]:
        """Spend the level's budget on the candidates: sequential halving, or the same for all (easy)."""
        engine, seat = situation.engine, situation.seat
        starts = situation.positions
        after = [_after(engine, starts, seat, move) for move in moves]
        rounds = max(1, math.ceil(math.log2(len(moves)))) if budget.halving else 1
        tally = _Tally(len(moves))
        reached = [0] * len(moves)
        alive = list(range(len(moves)))
        streams = situation.rng.derive("playouts")
        number = 0
        for round_number in range(rounds):
            passes = 0
            allowance = (budget.moves - tally.moves) / (rounds - round_number)
            # As many passes over the survivors as this round's share of what is left pays for (at least one).
            while passes == 0 or passes < int(allowance / (len(alive) * tally.length())):
                for index in alive:
                    # Every candidate's playout ``number`` starts from the same sample with the same stream.
                    start = after[index][number % len(starts)]
                    playout = _playout(engine, start, seat, streams.derive(str(number)), _limit(budget))
                    tally.add(index, playout)
                number += 1
                passes += 1
            for index in alive:
                reached[index] = round_number
            if round_number < rounds - 1:
                ranked = sorted(alive, key=lambda i: (-tally.value(i), i))
                alive = sorted(ranked[:max(1, math.ceil(len(alive) / 2))])
        situation.notes["playouts"] = tally.playouts
        # The round a candidate reached ranks first, so the halving's winner is the one chosen.
        return [Candidate(move, ROUND_RANK * reached[index] + tally.value(index), tally.estimate(index))
                for index, move in enumerate(moves)]

    def reason(self, situation: Situation, chosen: Candidate) -> Json:
        """Return the German reason: how the move did in the playouts (its estimated share of places ahead)."""
        estimate: Estimate = chosen.detail
        played = int(situation.notes.get("playouts", 0))
        if estimate.playouts == 0:
            if chosen.move is None:
                return {"key": "bot.rat.abwarten", "params": {"zug": None},
                        "text": "Lass es diesmal: Du hast gerade keinen Zug, der sich lohnt."}
            return {"key": "bot.rat.einziger_zug", "params": {"zug": chosen.move},
                    "text": "Es gibt nur diesen einen Zug."}
        percent = round(100 * estimate.share)
        params = {"zug": chosen.move, "anteil": percent, "partien": played, "eigene_partien": estimate.playouts}
        ahead = f"du liegst damit geschätzt in {percent} % der Vergleiche vor den anderen Plätzen"
        if chosen.move is None:
            return {"key": "bot.rat.abwarten", "params": params,
                    "text": f"Lass es diesmal: In {played} zufällig zu Ende gespielten Partien schnitt "
                            f"Abwarten am besten ab, {ahead}."}
        return {"key": "bot.rat.durchgespielt", "params": params,
                "text": f"In {played} zufällig zu Ende gespielten Partien schnitt dieser Zug am besten ab: "
                        f"{ahead}."}


POLICY = MonteCarloPolicy()
"""The computer player of every game (or variant) that has no policy of its own."""
