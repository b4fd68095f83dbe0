"""Rating the games finished before the ratings existed (migration 0004), from their stored end tables."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import Connection, text

from services.leaderboard.rating_model import KeyState, RatedGame, change_row, rated_seats, replay, state_row

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
