"""Victory points (public and own), the Rechenweg, the ranking and the leaderboard rule."""

from __future__ import annotations

from libs.rules.protocol import ComputationLine, LeaderboardRule, Outcome, Phrase, shared_places
from libs.rules.speedspore.material import FUNDE, SPECIAL_POINTS
from libs.rules.speedspore.state import ENDE, SporeState

LEADERBOARD = LeaderboardRule(per_point=5, place_bonus=(30, 15, 5), bonus_needs_more_seats=True)
"""5 per victory point; 30 for place 1, 15 for place 2 from three players, 5 for place 3 with four."""


def funde(state: SporeState, seat: int) -> int:
    """Return how many Funde the seat holds (hidden from others until the end)."""
    return sum(1 for card in state.cards[seat] if card in FUNDE)


def public_points(state: SporeState, seat: int) -> int:
    """Return the points everyone sees: buildings and special cards (Funde left out while running)."""
    fks, towers = state.pieces[seat][1], state.pieces[seat][2]
    points = fks + 2 * towers
    if state.longest_holder == seat:
        points += SPECIAL_POINTS
    if state.largest_holder == seat:
        points += SPECIAL_POINTS
    return points


def points(state: SporeState, seat: int) -> int:
    """Return the seat's real victory points (Funde included)."""
    return public_points(state, seat) + funde(state, seat)


def lines(state: SporeState, seat: int, with_funde: bool = True) -> tuple[ComputationLine, ...]:
    """Return the Rechenweg: Fruchtkörper, Türme, Funde, Geflecht, Wolke (adding up to the points)."""
    fks, towers = state.pieces[seat][1], state.pieces[seat][2]
    result = [
        ComputationLine(f"Fruchtkörper: {fks} × 1", fks, "speedspore.rechenweg.fruchtkoerper", {"anzahl": fks}),
        ComputationLine(f"Sporentürme: {towers} × 2", 2 * towers, "speedspore.rechenweg.tuerme", {"anzahl": towers}),
    ]
    if with_funde:
        found = funde(state, seat)
        result.append(ComputationLine(f"Funde: {found} × 1", found, "speedspore.rechenweg.funde", {"anzahl": found}))
    longest = SPECIAL_POINTS if state.longest_holder == seat else 0
    result.append(ComputationLine("Weitestes Geflecht" if longest else "Weitestes Geflecht: nein", longest,
                                  "speedspore.rechenweg.geflecht", {"haelt": bool(longest)}))
    largest = SPECIAL_POINTS if state.largest_holder == seat else 0
    result.append(ComputationLine("Größte Sporenwolke" if largest else "Größte Sporenwolke: nein", largest,
                                  "speedspore.rechenweg.wolke", {"haelt": bool(largest)}))
    return tuple(result)


def hand_size(state: SporeState, seat: int) -> int:
    """Return the seat's resource cards in hand."""
    return sum(state.hands[seat])


def rank_keys(state: SporeState) -> tuple[tuple[int, ...], ...]:
    """Return per seat (won, points, towers, cards in hand): higher is better."""
    return tuple((1 if state.winner == seat else 0, points(state, seat), state.pieces[seat][2], hand_size(state, seat))
                 for seat in range(state.seats))


def outcome(state: SporeState) -> Outcome:
    """Return the final ranking; ValueError while the game runs."""
    if state.phase != ENDE:
        raise ValueError("the game is still running")
    keys = rank_keys(state)
    places = shared_places(keys)
    scores = tuple(points(state, seat) for seat in range(state.seats))
    winner = state.winner
    text = f"Platz {winner + 1} gewinnt mit {scores[winner]} Siegpunkten." if winner >= 0 else "Die Partie ist zu Ende."
    return Outcome(
        places=places, scores=scores,
        tie_break=tuple(state.pieces[seat][2] * 1000 + hand_size(state, seat) for seat in range(state.seats)),
        lines=tuple(lines(state, seat) for seat in range(state.seats)),
        leaderboard_points=LEADERBOARD.points(scores, places),
        summary=Phrase("speedspore.ende", {"sieger": winner, "punkte": list(scores)}, text),
        rank_keys=keys,
    )
