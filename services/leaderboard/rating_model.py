"""The skill rating: which finished games are rated, who forms a side, and one game's update (openskill's
Plackett–Luce model). Pure: no I/O, the same inputs in the same order give bit-identical floats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
"""openskill's Plackett–Luce model with its defaults: μ 25, σ 25/3, β 25/6, τ 25/300 (σ grows by τ before each
game, so a rating never freezes)."""

INITIAL_MU: float = MODEL.mu
INITIAL_SIGMA: float = MODEL.sigma

DISPLAY_SCALE = 60
"""The shown rating ("Wertung") is round(60 · μ): a new player shows 1500, a step of 60 is one μ."""

RATED_LIST_MIN_GAMES = 10
"""A player enters a game's rating list after this many rated games of that list (before: "vorläufig")."""

COMPUTER_PREFIX = "computer:"


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate: mean μ and uncertainty σ (openskill's units)."""

    mu: float
    sigma: float

    @property
    def shown(self) -> int:
        """The rating as players read it: round(60 · μ)."""
        return round(DISPLAY_SCALE * self.mu)

    @property
    def shown_uncertainty(self) -> int:
        """The uncertainty as players read it: round(60 · σ) ("± …")."""
        return round(DISPLAY_SCALE * self.sigma)


INITIAL = Rating(INITIAL_MU, INITIAL_SIGMA)


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """One seat of a rated game: whose rating it moves, on which side, at which rank (1 best, ties share)."""

    seat: int
    key: str
    """A human's player id, or ``computer:<level>`` (each computer level has one rating per list)."""
    side: int
    rank: int


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A finished game as the rating sees it; ``order`` places it among the list's games."""

    game_id: str
    game: str
    variant: str
    ended_at: datetime
    seats: tuple[RatedSeat, ...]

    @property
    def order(self) -> tuple[datetime, str]:
        """The rating order: the game's end (`GameEnded.at`), then its id. A game's rating update reads the
        ratings of every game of the same list before it in this order, whatever order they arrived in."""
        return (self.ended_at, self.game_id)


def computer_key(level: str | None) -> str:
    """The rating key of a computer seat of ``level``."""
    return f"{COMPUTER_PREFIX}{level or 'normal'}"


def is_computer(key: str) -> bool:
    """True for a computer level's rating key."""
    return key.startswith(COMPUTER_PREFIX)


def rated_seats(seats: Sequence[Mapping[str, Any]], teams: Sequence[Sequence[int]],
                left: frozenset[int]) -> tuple[RatedSeat, ...]:
    """Return the rated seats of a finished game, or () when it is not rated (fewer than two sides, no human).

    ``seats`` are the end table's (``seat``, ``kind``, ``level``, ``player_id``, ``place``). A side is a team
    (``teams``) or a single seat. A seat's rank is its side's place, except for a human who left (``left``): that
    seat ranks last, behind every side that stayed (all leavers share the last rank), because the computer finished
    its game. A team member who stayed keeps the team's place (eigene Festlegung: the rules score the team by its
    result, and the partner played it to the end), so one side may hold seats of two ranks (`rate` says what that
    means); a team whose members all left ranks last as a whole.
    """
    team_of = {seat: index for index, team in enumerate(teams) for seat in team}
    sides: dict[int, list[Mapping[str, Any]]] = {}
    for seat in seats:
        if seat.get("kind") == "human" and not seat.get("player_id"):
            continue  # a human seat without a player: nobody's rating to move
        index = int(seat["seat"])
        side = team_of.get(index, len(seats) + index)
        sides.setdefault(side, []).append(seat)
    if len(sides) < 2 or not any(seat.get("kind") == "human" for members in sides.values() for seat in members):
        return ()
    last = len(seats) + 1
    rated: list[RatedSeat] = []
    for number, side in enumerate(sorted(sides)):
        members = sides[side]
        place = min(int(member["place"]) for member in members)
        for member in members:
            deserted = member.get("kind") == "human" and int(member["seat"]) in left
            key = (str(member["player_id"]) if member.get("kind") == "human" else computer_key(member.get("level")))
            rated.append(RatedSeat(seat=int(member["seat"]), key=key, side=number, rank=last if deserted else place))
    return tuple(sorted(rated, key=lambda seat: seat.seat))


def rate(game: RatedGame, before: Mapping[str, Rating]) -> dict[str, Rating]:
    """Return each key's rating after ``game``, from its rating before (``INITIAL`` when missing).

    The game as played: every side at its best seat's rank. A seat ranked worse than its own side (a team member
    who left while the partner played on) takes its rating from one more update of the same sides, in which only
    its side has that seat's rank (last): the leaver moves as if the team had come last, every other seat as the
    game went. A key that holds several seats (two computers of one level) moves by the sum of its seats' changes
    in μ and takes the smallest of their σ: each seat is one more result of that level (eigene Festlegung).
    """
    sides: dict[int, list[RatedSeat]] = {}
    for seat in game.seats:
        sides.setdefault(seat.side, []).append(seat)
    order = sorted(sides)
    teams = [[MODEL.rating(mu=before.get(seat.key, INITIAL).mu, sigma=before.get(seat.key, INITIAL).sigma)
              for seat in sides[side]] for side in order]
    played = [min(seat.rank for seat in sides[side]) for side in order]
    as_played = MODEL.rate(teams, ranks=[float(rank) for rank in played])
    moved: dict[str, list[Rating]] = {}
    for position, side in enumerate(order):
        for index, seat in enumerate(sides[side]):
            updated = as_played
            if seat.rank != played[position]:
                updated = MODEL.rate(teams, ranks=[float(seat.rank if other == position else rank)
                                                   for other, rank in enumerate(played)])
            rating = updated[position][index]
            moved.setdefault(seat.key, []).append(Rating(float(rating.mu), float(rating.sigma)))
    after: dict[str, Rating] = {}
    for key, results in moved.items():
        if len(results) == 1:
            after[key] = results[0]
            continue
        prior = before.get(key, INITIAL)
        mu = prior.mu
        for result in results:
            mu += result.mu - prior.mu
        after[key] = Rating(mu, min(result.sigma for result in results))
    return after


@dataclass(frozen=True, slots=True)
class KeyState:
    """A key's rating in one list, with its number of rated games and its last game's end."""

    rating: Rating
    games: int
    last_ended_at: datetime | None


FRESH = KeyState(INITIAL, 0, None)


@dataclass(frozen=True, slots=True)
class SeatChange:
    """What one game did to one seat's rating."""

    game: RatedGame
    seat: RatedSeat
    before: Rating
    games_before: int
    after: Rating


def replay(games: Sequence[RatedGame], states: dict[str, KeyState]) -> list[SeatChange]:
    """Rate ``games`` (all of one list, in rating order) one after another, starting from ``states`` (updated in
    place; a missing key is new); return every seat's change, game by game, seat by seat."""
    changes: list[SeatChange] = []
    for game in games:
        before = {seat.key: states.get(seat.key, FRESH) for seat in game.seats}
        after = rate(game, {key: state.rating for key, state in before.items()})
        for seat in game.seats:
            state = before[seat.key]
            changes.append(SeatChange(game=game, seat=seat, before=state.rating, games_before=state.games,
                                      after=after[seat.key]))
        for key, rating in after.items():
            states[key] = KeyState(rating, before[key].games + 1, game.ended_at)
    return changes


def change_row(change: SeatChange) -> dict[str, Any]:
    """The `rating_changes` row of one seat's change."""
    game = change.game
    return {"game_id": game.game_id, "seat": change.seat.seat, "game": game.game, "variant": game.variant,
            "ended_at": game.ended_at, "rating_key": change.seat.key, "side": change.seat.side,
            "rank": change.seat.rank, "mu_before": change.before.mu, "sigma_before": change.before.sigma,
            "games_before": change.games_before, "mu_after": change.after.mu, "sigma_after": change.after.sigma}


def state_row(game: str, variant: str, key: str, state: KeyState) -> dict[str, Any]:
    """The `ratings` row of a key's state."""
    return {"game": game, "variant": variant, "rating_key": key, "mu": state.rating.mu,
            "sigma": state.rating.sigma, "games": state.games, "last_ended_at": state.last_ended_at}
