"""The end of a Speednova game: ranking by the weakest colour, then the next weakest, ...; the end table's
computation line of each weakest colour; the leaderboard's points.
"""

from __future__ import annotations

from libs.rules.protocol import ComputationLine, LeaderboardRule, Outcome, Phrase, shared_places
from libs.rules.speednova.state import NovaState
from libs.rules.speednova.texts import end_line_text, seat_name
from libs.rules.speednova.tiles import COLOUR_NAMES, COLOURS

LEADERBOARD = LeaderboardRule(per_point=10, place_bonus=(50, 25, 10), bonus_needs_more_seats=True)
"""The text: "10 Punkte je Punkt deiner schwächsten Farbe, dazu ein Platzbonus von 50 für den Sieg (ab drei
Spielern 25 für Platz 2, zu viert 10 für Platz 3)"; alone nobody is beaten: no win bonus."""


def place_bonus(place: int, seats: int) -> int:
    """Return the leaderboard bonus of a (shared) place: 50 for the win (not alone: a solo game has no win),
    25 for place 2 from three players, 10 for place 3 with four."""
    return LEADERBOARD.bonus(place, seats)


def speednova_points(weakest: tuple[int, ...], places: tuple[int, ...]) -> tuple[int, ...]:
    """Return each seat's leaderboard points: 10 × its weakest colour + its place's bonus."""
    return LEADERBOARD.points(weakest, places)


def weakest_of(track: tuple[int, ...]) -> int:
    """Return the track's weakest colour (the first in colour order among equals)."""
    low = min(track)
    return track.index(low)


def weakest_line(state: NovaState, owner: int) -> ComputationLine:
    """Return the end table's line for a track's weakest colour: "Riese 9 = 3 + 2 + 4"."""
    track = state.tracks[owner]
    colour = weakest_of(track)
    gains = state.gains[owner][colour]
    return ComputationLine(label=end_line_text(colour, gains), points=track[colour], key="speednova.schwaechste",
                           params={"farbe": COLOURS[colour], "name": COLOUR_NAMES[colour], "wert": track[colour],
                                   "summanden": list(gains)})


def final_outcome(state: NovaState) -> Outcome:
    """Rank the seats (partners share their team's vector, so their place); raise ValueError while running."""
    if not state.is_finished:
        raise ValueError("the game is not over yet")
    owners = tuple(state.track_of(seat) for seat in range(state.seats))
    keys = tuple(tuple(sorted(state.tracks[owner])) for owner in owners)
    places = shared_places(keys)
    scores = tuple(key[0] for key in keys)
    tie_break = tuple(key[1] for key in keys)
    lines = tuple((weakest_line(state, owner),) for owner in owners)
    return Outcome(places=places, scores=scores, tie_break=tie_break, lines=lines,
                   leaderboard_points=speednova_points(scores, places), summary=summary(state, places, scores),
                   rank_keys=keys)


def summary(state: NovaState, places: tuple[int, ...], scores: tuple[int, ...]) -> Phrase:
    """Return the German summary: who won with which weakest colour."""
    if state.seats == 1:
        line = weakest_line(state, 0)
        return Phrase("speednova.ergebnis.solo", {"wert": scores[0], "farbe": line.params["farbe"]},
                      f"Deine schwächste Farbe: {line.label}.")
    winners = [seat for seat, place in enumerate(places) if place == 1]
    best = scores[winners[0]]
    if state.teams and len({state.track_of(seat) for seat in winners}) == 1:
        names = " + ".join(seat_name(seat) for seat in winners)
        return Phrase("speednova.ergebnis.team", {"plaetze": [s + 1 for s in winners], "wert": best},
                      f"Das Team {names} gewinnt mit der schwächsten Farbe auf {best}.")
    if len(winners) == 1:
        return Phrase("speednova.ergebnis.sieg", {"platz": winners[0] + 1, "wert": best},
                      f"{seat_name(winners[0])} gewinnt mit der schwächsten Farbe auf {best}.")
    names = " und ".join(seat_name(seat) for seat in winners)
    return Phrase("speednova.ergebnis.gleichstand", {"plaetze": [s + 1 for s in winners], "wert": best},
                  f"{names} teilen sich den ersten Platz: alle Farben gleich stark, die schwächste auf {best}.")
