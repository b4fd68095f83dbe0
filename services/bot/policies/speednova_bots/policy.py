"""Speednova's computer players on the shared skeleton (pure: libs.rules only).

- easy: the points a placement brings, plus much noise ("nimmt meist die meisten Punkte");
- normal: points, three times in the weakest colours, plus a bonus for a Supernova; it swaps its rack when
  racks drawn from what it cannot see would do better than its own ("stärkt die schwächste Farbe und achtet
  auf die Supernova");
- strong: all six colours by how weak each is (``values.balanced``); the best ``STRONG_CANDIDATES`` placements
  get a look ahead on ``STRONG_SAMPLES`` samples of the hidden racks and bag: minus the next opponent's best
  reply with the tiles it may hold (which also counts the good places this placement takes away from it or
  opens for it), plus its own best next tile (the rack's rest and the tile it would draw) and, after a
  Supernova, the bonus placement itself.

Team partners give and respect signals (``team.py``); a solo seat is played by the same levels without an
opponent. Every decision is reproducible from its ``SeededRng``; ties go to the first legal move.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from libs.rules.protocol import Json
from libs.rules.speednova.scoring import analysis, free_pairs
from libs.rules.speednova.state import PHASE_SWAP, NovaState
from services.bot.policies.contract import Candidate, DeterminizedPolicy, Situation
from services.bot.policies.speednova_bots import reasons, team
from services.bot.policies.speednova_bots.options import Option, placements
from services.bot.policies.speednova_bots.values import (
    Gains,
    balanced,
    best_reply,
    best_value,
    cell_worth,
    cells_after,
    free_pairs_after,
    points,
    raw_columns,
    scale,
    start_pairs_of,
    weakest_first,
)

EASY_NOISE = 5.0
"""Spread of the easy level's noise, in points: it mostly, not always, takes the most points."""
NOISY_CANDIDATES = 60
"""Easy: the noise is added to at most this many of the best placements (those within its spread of the best)."""
STRONG_SAMPLES = 6
"""Strong: samples of the hidden racks and bag its look ahead averages over."""
STRONG_CANDIDATES = 48
"""Strong: how many placements (best by own value and denial) get the look ahead."""
DENIAL_WEIGHT = 0.3
"""Strong, choosing the candidates: what a cell would be worth to the next opponent counts this much."""
REPLY_WEIGHT = 0.6
"""Strong: the next opponent's best reply counts against a placement this much (two tracks) …"""
REPLY_WEIGHT_MANY = 0.5
"""… and this much when more than one other track competes (three or four players without teams)."""
NEXT_WEIGHT = 0.5
"""Strong: its own best next tile after the placement counts this much (the board may change before)."""
KEEP_FREE_COST = 100.0
"""A placement on a cell the team keeps free is made only when nothing else is possible."""
SWAP_DRAWS = {"easy": 4, "normal": 8, "strong": 4}
"""Racks drawn per sample to judge a swap."""
SWAP_MARGIN = 0.25
"""A swap must promise this much more than keeping the rack (keeping is the safer choice)."""
END_VALUE = 1000.0
"""Strong: a placement that ends the game is worth this much per share of other tracks it finishes ahead of."""


@dataclass(frozen=True)
class PlaceDetail:
    """What a placement's reason is built from."""

    option: Option
    gained: dict[int, int]
    track: tuple[int, ...]
    opponent: int | None = None
    reply: float | None = None
    next_value: float | None = None


@dataclass(frozen=True)
class SwapDetail:
    """What a swap decision's reason is built from: the rack's best value and the drawn racks' mean."""

    keep: float
    swap: float
    weakest: tuple[int, ...]


def next_opponent(state: NovaState, seat: int) -> int | None:
    """Return the next seat after ``seat`` on another track that still holds tiles (None: nobody, or solo)."""
    own = state.track_of(seat)
    for step in range(1, state.seats):
        other = (seat + step) % state.seats
        if state.track_of(other) != own and state.racks[other]:
            return other
    return None


def gains_for(level: str, state: NovaState, track: tuple[int, ...], weights: tuple[float, ...]) -> Gains:
    """Return the level's value tables for ``track``."""
    if level == "easy":
        return points(track, state.top)
    if level == "normal":
        return weakest_first(track, state.top, state.thresholds, weights)
    return balanced(track, state.top, state.thresholds, weights)


def end_share(tracks: tuple[tuple[int, ...], ...], owner: int) -> float:
    """Return the share of other tracks ``owner``'s sorted track beats (a tie counts half)."""
    mine = sorted(tracks[owner])
    others = [sorted(track) for index, track in enumerate(tracks) if index != owner]
    if not others:
        return 0.5
    return sum(1.0 if mine > other else 0.5 if mine == other else 0.0 for other in others) / len(others)


class SpeednovaPolicy(DeterminizedPolicy):
    """Speednova's three levels, the swap decision, team signals and advice with a German reason."""

    NOISE: ClassVar[Mapping[str, float]] = {"easy": EASY_NOISE, "normal": 0.0, "strong": 0.0}
    DETERMINIZATIONS: ClassVar[Mapping[str, int]] = {"easy": 1, "normal": 1, "strong": STRONG_SAMPLES}

    def evaluate(self, situation: Situation) -> list[Candidate]:
        """Return the candidates of the seat's open decision: team signals, the swap, or a placement."""
        state: NovaState = situation.position.state
        if not situation.must:
            legal = situation.engine.legal_moves(situation.position, situation.seat)
            return team.signal_candidates(situation.view, situation.seat, legal)
        if state.phase == PHASE_SWAP:
            return self.swap_candidates(situation)
        return self.place_candidates(situation)

    # ---- placements ------------------------------------------------------------------------------------
    def place_candidates(self, situation: Situation) -> list[Candidate]:
        """Return every placement with the level's value (strong: its best candidates after the look ahead)."""
        state: NovaState = situation.position.state
        seat, level = situation.seat, situation.level
        raws, track, prefs, gains = _valuing(situation, state)
        options = placements(state, seat, raws)
        if not options:
            raise ValueError("the bot's seat has no placement")

        def cost(option: Option) -> float:
            return KEEP_FREE_COST if prefs.keep_free and not prefs.keep_free.isdisjoint(option.cells) else 0.0

        if level != "strong":
            values = [o.value(gains) - cost(o) for o in options]
            # Only a placement within the noise's spread of the best can still be chosen: the others are left out
            # (without noise: the first best alone), so a decision builds few moves out of thousands.
            spread = self.noise(level)
            floor = max(values) - spread
            near = [(value, o) for o, value in zip(options, values, strict=True) if value >= floor]
            if spread:
                near = sorted(sorted(near, key=lambda item: (-item[0], item[1].index))[:NOISY_CANDIDATES],
                              key=lambda item: item[1].index)
            else:
                near = near[:1]
            return [Candidate(o.move(), value, PlaceDetail(o, o.points(track, state.top), track)) for value, o in near]
        opponent = next_opponent(state, seat)
        opponent_gains = None if opponent is None else balanced(
            state.tracks[state.track_of(opponent)], state.top, state.thresholds)

        def first_look(option: Option) -> float:
            value = option.value(gains) - cost(option)
            if opponent_gains is not None:
                value += DENIAL_WEIGHT * (cell_worth(raws, opponent_gains, option.cell)
                                          + cell_worth(raws, opponent_gains, option.partner))
            return value

        ranked = sorted(options, key=lambda o: (-first_look(o), o.index))[:STRONG_CANDIDATES]
        ranked.sort(key=lambda o: o.index)
        return [self.look_ahead(situation, option, opponent, prefs, cost(option)) for option in ranked]

    def look_ahead(self, situation: Situation, option: Option, opponent: int | None, prefs: team.Preferences,
                   cost: float) -> Candidate:
        """Return a strong candidate: own value, the bonus placement after a Supernova, minus the next opponent's
        best reply and plus the own best next tile, averaged over the samples of what the seat cannot see."""
        state: NovaState = situation.position.state
        seat = situation.seat
        owner = state.track_of(seat)
        track = state.tracks[owner]
        gained = option.points(track, state.top)
        after = list(track)
        for colour, points_gained in gained.items():
            after[colour] += points_gained
        track_after = tuple(after)
        tau = scale(state.top)
        value = option.value(balanced(track, state.top, state.thresholds, prefs.weights, nova=0.0, tau=tau)) - cost
        cells = cells_after(state.cells, option.cell, option.first, option.partner, option.second)
        pairs = free_pairs_after(free_pairs(state.cells, state.radius), option.cells)
        detail = PlaceDetail(option, gained, track)
        if not pairs or min(track_after) >= state.top:
            tracks = (*state.tracks[:owner], track_after, *state.tracks[owner + 1:])
            return Candidate(option.move(), value + END_VALUE * end_share(tracks, owner), detail)
        raws = raw_columns(analysis(state.radius, cells))
        own_gains = balanced(track_after, state.top, state.thresholds, prefs.weights, tau=tau)
        rest = list(state.racks[seat])
        rest.remove(option.code)
        rest_value = best_value(pairs, raws, own_gains, rest)
        if any(threshold > track[c] and threshold <= track_after[c] for c in gained for threshold in state.thresholds):
            value += rest_value  # the Supernova's bonus placement comes right away, from the rest of the rack
        opponent_gains = None if opponent is None else balanced(
            state.tracks[state.track_of(opponent)], state.top, state.thresholds, tau=scale(state.top))
        replies = 0.0
        nexts = 0.0
        for position in situation.positions:
            sample: NovaState = position.state
            drawn = sample.bag[:max(0, state.rack_size - len(rest))]
            mine = rest + list(drawn)
            if opponent is None or opponent_gains is None:
                nexts += best_value(pairs, raws, own_gains, mine)
                continue
            opponent_pairs = pairs if sample.started[opponent] >= 0 else start_pairs_of(sample, cells, pairs)
            best = best_reply(opponent_pairs, raws, opponent_gains, sample.racks[opponent])
            if best is None:
                nexts += best_value(pairs, raws, own_gains, mine)
                continue
            replies += best[0]
            _worth, cell, partner, first, second = best
            later = cells_after(cells, cell, first, partner, second)
            later_pairs = free_pairs_after(pairs, (cell, partner))
            nexts += best_value(later_pairs, raw_columns(analysis(state.radius, later)), own_gains, mine)
        count = len(situation.positions)
        several = len({state.track_of(other) for other in range(state.seats)}) > 2
        reply = replies / count
        next_value = nexts / count
        value += NEXT_WEIGHT * next_value - (REPLY_WEIGHT_MANY if several else REPLY_WEIGHT) * reply
        return Candidate(option.move(), value, PlaceDetail(option, gained, track, opponent, reply, next_value))

    # ---- the swap ----------------------------------------------------------------------------------------
    def swap_candidates(self, situation: Situation) -> list[Candidate]:
        """Return swap and keep, valued by the rack's best placement now against racks drawn from the unseen tiles."""
        state: NovaState = situation.position.state
        seat, level = situation.seat, situation.level
        raws, track, prefs, gains = _valuing(situation, state)
        pairs = [pair for pair in free_pairs(state.cells, state.radius)
                 if prefs.keep_free.isdisjoint((pair[0], pair[2]))] or free_pairs(state.cells, state.radius)
        rack = state.racks[seat]
        keep = best_value(pairs, raws, gains, rack)
        rng = situation.rng.derive("tausch")
        drawn: list[float] = []
        for position in situation.positions:
            pool = list(position.state.bag) + list(rack)
            for _ in range(SWAP_DRAWS.get(level, 4)):
                drawn.append(best_value(pairs, raws, gains, rng.shuffle(pool)[:len(rack)]))
        swap = sum(drawn) / len(drawn)
        low = min(track)
        detail = SwapDetail(keep, swap, tuple(colour for colour, value in enumerate(track) if value == low))
        return [Candidate({"tauschen": True}, swap - SWAP_MARGIN, detail), Candidate({"tauschen": False}, keep, detail)]

    # ---- advice --------------------------------------------------------------------------------------------
    def reason(self, situation: Situation, chosen: Candidate) -> Json:
        """Return the German reason for the advised decision."""
        if isinstance(chosen.detail, team.SignalDetail):
            return team.signal_reason(chosen.detail)
        if isinstance(chosen.detail, SwapDetail):
            return reasons.swap_reason(chosen.move, chosen.detail)
        return reasons.place_reason(situation, chosen.detail)


POLICY = SpeednovaPolicy()
"""Speednova's computer player (every seat count, teams and both solo variants)."""


def _valuing(situation: Situation, state: NovaState) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...],
                                                            team.Preferences, Gains]:
    """Return what placements and swaps are valued with: per colour the raw points on every cell, the seat's
    (team's) track, the team's preferences (none outside teams) and the level's value tables."""
    raws = raw_columns(analysis(state.radius, state.cells))
    track = state.tracks[state.track_of(situation.seat)]
    prefs = team.preferences(situation.view, situation.seat) if state.teams else team.NO_PREFERENCES
    return raws, track, prefs, gains_for(situation.level, state, track, prefs.weights)
