"""Rating the games finished before the ratings existed (migration 0004), from their stored end tables; rating
again the lists where a team member who stayed was ranked with a partner who left (migration 0006)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import Connection, text

from services.leaderboard.rating_model import (
    KeyState,
    RatedGame,
    RatedSeat,
    change_row,
    rated_seats,
    replay,
    state_row,
)

_FINISHED = text("""
SELECT game_id, game, variant, ended_at, seats, mode FROM leaderboard.finished_games
ORDER BY game, variant, ended_at, game_id
""")
_CHANGE = text("""
INSERT INTO leaderboard.rating_changes (game_id, seat, game, variant, ended_at, rating_key, side, rank, mu_before,
    sigma_before, games_before, mu_after, sigma_after)
VALUES (:game_id, :seat, :game, :variant, :ended_at, :rating_key, :side, :rank, :mu_before, :sigma_before,
    :games_before, :mu_after, :sigma_after)
""")
_RATING = text("""
INSERT INTO leaderboard.ratings (game, variant, rating_key, mu, sigma, games, last_ended_at)
VALUES (:game, :variant, :rating_key, :mu, :sigma, :games, :last_ended_at)
""")
_POOL = text("""
INSERT INTO leaderboard.rating_pools (game, variant, games, last_ended_at, last_game_id)
VALUES (:game, :variant, :games, :last_ended_at, :last_game_id)
""")


def rated_game_of_row(row: Any) -> RatedGame | None:
    """The rated game of a stored end table (`finished_games`), as `projection.rated_game_of` decides for the
    event: older ends name no teams, so every seat is a side of its own."""
    mode = row.mode or {}
    if mode.get("practice"):
        return None
    left = frozenset(int(seat["seat"]) for seat in row.seats if seat.get("has_left"))
    seats = rated_seats(row.seats, (), left)
    if not seats:
        return None
    return RatedGame(game_id=row.game_id, game=row.game, variant=row.variant, ended_at=row.ended_at, seats=seats)


def rate_finished_games(connection: Connection) -> int:
    """Rate every stored finished game in rating order, list by list; return how many were rated."""
    pools: dict[tuple[str, str], list[RatedGame]] = defaultdict(list)
    for row in connection.execute(_FINISHED):
        rated = rated_game_of_row(row)
        if rated is not None:
            pools[(rated.game, rated.variant)].append(rated)
    for (game, variant), unordered in pools.items():
        games = sorted(unordered, key=lambda rated: rated.order)  # game ids in code point order, as Python sorts
        states: dict[str, KeyState] = {}
        changes = replay(games, states)
        connection.execute(_CHANGE, [change_row(change) for change in changes])
        connection.execute(_RATING, [state_row(game, variant, key, state) for key, state in sorted(states.items())])
        last = games[-1]
        connection.execute(_POOL, {"game": game, "variant": variant, "games": len(games),
                                   "last_ended_at": last.ended_at, "last_game_id": last.game_id})
    return sum(len(games) for games in pools.values())


_TEAM_SEATS = text("""
SELECT c.game_id, c.game, c.variant, c.seat, c.side, c.rank, g.seats FROM leaderboard.rating_changes c
JOIN leaderboard.finished_games g ON g.game_id = c.game_id
WHERE (c.game_id, c.side) IN (SELECT game_id, side FROM leaderboard.rating_changes GROUP BY game_id, side
                              HAVING count(*) > 1)
""")
_SET_RANK = text("UPDATE leaderboard.rating_changes SET rank = :rank WHERE game_id = :game_id AND seat = :seat")
_LIST_CHANGES = text("""
SELECT game_id, seat, ended_at, rating_key, side, rank FROM leaderboard.rating_changes
WHERE game = :game AND variant = :variant
""")
_DROP_LIST = (text("DELETE FROM leaderboard.rating_changes WHERE game = :game AND variant = :variant"),
              text("DELETE FROM leaderboard.ratings WHERE game = :game AND variant = :variant"))


def rerate_partners_who_played_on(connection: Connection) -> int:
    """Give every team member who stayed while a partner left the team's place as their rank, where an older
    release ranked the whole team last (`rating_model.rated_seats` now), and rate each list with such a game
    again from its stored sides and ranks, in rating order; return how many seats changed rank."""
    sides: dict[tuple[str, int], list[Any]] = defaultdict(list)
    for row in connection.execute(_TEAM_SEATS):
        sides[(row.game_id, row.side)].append(row)
    moved: list[dict[str, Any]] = []
    lists: set[tuple[str, str]] = set()
    for members in sides.values():
        end = {int(seat["seat"]): seat for seat in members[0].seats}
        place = min(int(end[member.seat]["place"]) for member in members)
        for member in members:
            seat = end[member.seat]
            if not (seat.get("kind") == "human" and seat.get("has_left")) and member.rank != place:
                moved.append({"game_id": member.game_id, "seat": member.seat, "rank": place})
                lists.add((member.game, member.variant))
    if moved:
        connection.execute(_SET_RANK, moved)
    for game, variant in sorted(lists):
        seats: dict[str, list[RatedSeat]] = defaultdict(list)
        ends: dict[str, Any] = {}
        for row in connection.execute(_LIST_CHANGES, {"game": game, "variant": variant}):
            seats[row.game_id].append(RatedSeat(seat=row.seat, key=row.rating_key, side=row.side, rank=row.rank))
            ends[row.game_id] = row.ended_at
        games = sorted((RatedGame(game_id=game_id, game=game, variant=variant, ended_at=ends[game_id],
                                  seats=tuple(sorted(seated, key=lambda seat: seat.seat)))
                        for game_id, seated in seats.items()), key=lambda rated: rated.order)
        states: dict[str, KeyState] = {}
        changes = replay(games, states)
        for statement in _DROP_LIST:
            connection.execute(statement, {"game": game, "variant": variant})
        connection.execute(_CHANGE, [change_row(change) for change in changes])
        connection.execute(_RATING, [state_row(game, variant, key, state) for key, state in sorted(states.items())])
    return len(moved)
