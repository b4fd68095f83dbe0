"""The end of a Speedmosaik game, the same for every workshop: ranking, shared places, the summary."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from libs.rules.protocol import ComputationLine, Outcome, leaderboard_points, shared_places
from libs.rules.speedmosaik.texts import phrase, seat_name

TieDetail = Callable[[int], tuple[str, dict[str, Any]]]
"""For a winning seat: what decided nothing either (German words and params), e.g. "2 vollen Reihen"."""


def ranked_outcome(
    workshop: str,
    scores: tuple[int, ...],
    tie_break: tuple[int, ...],
    lines: tuple[tuple[ComputationLine, ...], ...],
    tie_detail: TieDetail,
) -> Outcome:
    """Rank seats by score, then by the workshop's tie-break (higher is better); equal seats share a place."""
    places = shared_places(tuple(zip(scores, tie_break, strict=True)))
    winners = [seat for seat, place in enumerate(places) if place == 1]
    best = scores[winners[0]]
    if len(winners) == 1:
        summary = phrase(
            f"{workshop}.ergebnis.sieg",
            f"{seat_name(winners[0])} gewinnt mit {best} Punkten.",
            platz=winners[0] + 1,
            punkte=best,
        )
    else:
        names = " und ".join(seat_name(seat) for seat in winners)
        detail, params = tie_detail(winners[0])
        summary = phrase(
            f"{workshop}.ergebnis.gleichstand",
            f"{names} teilen sich den ersten Platz mit je {best} Punkten und {detail}.",
            plaetze=[seat + 1 for seat in winners],
            punkte=best,
            **params,
        )
    return Outcome(
        places=places,
        scores=scores,
        tie_break=tie_break,
        lines=lines,
        leaderboard_points=leaderboard_points(scores, places),
        summary=summary,
    )
