"""Speedkoi's scoring: a seat's points at any moment (they are all public), the end table's Rechenweg, the
ranking (points, then pearls, then a shared place) and the leaderboard points (10 per point + 50 / 25 / 10).
"""

from __future__ import annotations

from libs.rules.protocol import ComputationLine, LeaderboardRule, Outcome, Phrase, shared_places
from libs.rules.speedkoi.material import (
    COLOUR_NAMES,
    COLOURS,
    FESTIVAL,
    FIGURE_NAMES,
    MASTER,
    PILGRIM,
    STONE_VALUES,
    figure_points,
    pearl_points,
)
from libs.rules.speedkoi.state import KoiState

POINTS_PER_SCORE = 10
"""Leaderboard: 10 points per score point (never below 0 in all)."""
PLACE_BONUS: tuple[int, ...] = (50, 25, 10)
"""Leaderboard bonus of places 1, 2, 3 (a shared place gets its place's bonus; place 4 gets none)."""
ORDINALS: tuple[str, ...] = ("Erster", "Zweiter", "Dritter", "Vierter")


def score(state: KoiState, seat: int) -> int:
    """Return the seat's points if the game ended now: figures (master ×2), pearls, blossoms, Teehaus."""
    master = state.masters[seat]
    stones = state.stones[seat]
    total = 0
    for path in range(len(stones)):
        total += figure_points(stones[path], path == master)
    return total + pearl_points(state.taken[seat][0]) + state.blossoms[seat] + state.teahouse[seat]


def scores(state: KoiState) -> tuple[int, ...]:
    """Return every seat's points if the game ended now."""
    return tuple(score(state, seat) for seat in range(state.seats))


def places(state: KoiState, points: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """Return the (shared) places by points, then pearls."""
    points = scores(state) if points is None else points
    return shared_places(tuple((points[seat], state.taken[seat][0]) for seat in range(state.seats)))


def lines(state: KoiState, seat: int) -> tuple[ComputationLine, ...]:
    """Return the seat's Rechenweg: one line per placed figure, pearls, blossoms (and the Teehaus)."""
    result: list[ComputationLine] = []
    master = state.masters[seat]
    for path, stone in enumerate(state.stones[seat]):
        if stone == 0:
            continue
        art = MASTER if path == master else PILGRIM
        value = STONE_VALUES[stone]
        points = figure_points(stone, art == MASTER)
        detail = f" × 2 = {_signed(points)}" if art == MASTER else ""
        result.append(ComputationLine(
            label=f"{FIGURE_NAMES[art]} {COLOUR_NAMES[path]}: Stein {stone} = {_signed(value)}{detail}",
            points=points, key="speedkoi.figur",
            params={"farbe": COLOURS[path], "art": art, "stein": stone, "wert": value}))
    pearls = state.taken[seat][0]
    result.append(ComputationLine(label=f"Perlen: {pearls} → {_signed(pearl_points(pearls))}",
                                  points=pearl_points(pearls), key="speedkoi.perlen", params={"perlen": pearls}))
    result.append(ComputationLine(label=f"Kirschblüten: {_signed(state.blossoms[seat])}", points=state.blossoms[seat],
                                  key="speedkoi.blueten", params={"punkte": state.blossoms[seat]}))
    if state.spielart == FESTIVAL:
        result.append(ComputationLine(label=f"Teehaus-Bonus: {_signed(state.teahouse[seat])}",
                                      points=state.teahouse[seat], key="speedkoi.teehaus",
                                      params={"punkte": state.teahouse[seat]}))
    return tuple(result)


LEADERBOARD = LeaderboardRule(per_point=POINTS_PER_SCORE, place_bonus=PLACE_BONUS)
"""The text: "10 Punkte je Wertungspunkt (mindestens 0) und einen Platzbonus von 50, 25 und 10"."""


def leaderboard_points(points: tuple[int, ...], ranks: tuple[int, ...]) -> tuple[int, ...]:
    """Return 10 per score point (at least 0) plus the bonus of the (shared) place."""
    return LEADERBOARD.points(points, ranks)


def outcome(state: KoiState) -> Outcome:
    """Return the final ranking; raise ValueError while the game runs."""
    if not state.is_finished:
        raise ValueError("the game is not over yet")
    points = scores(state)
    ranks = places(state, points)
    pearls = tuple(state.taken[seat][0] for seat in range(state.seats))
    return Outcome(places=ranks, scores=points, tie_break=pearls,
                   lines=tuple(lines(state, seat) for seat in range(state.seats)),
                   leaderboard_points=leaderboard_points(points, ranks), summary=_summary(points, pearls, ranks))


def _summary(points: tuple[int, ...], pearls: tuple[int, ...], ranks: tuple[int, ...]) -> Phrase:
    winners = [seat for seat, place in enumerate(ranks) if place == 1]
    best = points[winners[0]]
    if len(winners) == 1:
        return Phrase("speedkoi.ergebnis.sieg", {"platz": winners[0] + 1, "punkte": best},
                      f"Platz {winners[0] + 1} gewinnt mit {best} Punkten.")
    names = " und ".join(f"Platz {seat + 1}" for seat in winners)
    return Phrase("speedkoi.ergebnis.gleichstand",
                  {"plaetze": [seat + 1 for seat in winners], "punkte": best, "perlen": pearls[winners[0]]},
                  f"{names} teilen sich den ersten Platz mit je {best} Punkten und {pearls[winners[0]]} Perlen.")


def standings_text(points: tuple[int, ...], ranks: tuple[int, ...], seat: int) -> str:
    """Return "du 23, Platz 2 27 → du würdest Zweiter" (the seat's view of standings after a move)."""
    parts = [f"{'du' if other == seat else f'Platz {other + 1}'} {number(points[other])}"
             for other in range(len(points))]
    place = ranks[seat]
    shared = sum(1 for other in ranks if other == place) > 1
    return f"{', '.join(parts)} → du würdest {ORDINALS[place - 1]}{' (geteilt)' if shared else ''}"


def number(points: int) -> str:
    """Return points with a real minus sign: "−16", "0", "23"."""
    return f"−{-points}" if points < 0 else str(points)


def _signed(points: int) -> str:
    if points > 0:
        return f"+{points}"
    if points < 0:
        return f"−{-points}"
    return "0"
