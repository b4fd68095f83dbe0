"""Projecting finished games into the ratings, in rating order whatever order they arrive in.

Every list (game, variant) is rated in its own order, `RatedGame.order` = (`GameEnded.at`, game id). A game
that arrives after a later one of its list was rated (a redelivery, another replica, a republished old end)
rewinds the list to just before it: the later games' changes are taken back (each key gets the rating it had
before its first taken-back game) and all of them are rated again in order. So the ratings are a function of
the set of games projected, never of their arrival: a rebuild from the log gives the same floats.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, delete, select, tuple_, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.database import table_of
from services.leaderboard.models import PlayerRating, RatingChange, RatingPool
from services.leaderboard.rating_model import (
    KeyState,
    RatedGame,
    RatedSeat,
    Rating,
    change_row,
    replay,
    state_row,
)

_POOLS = table_of(RatingPool)
_CLAIM = insert(_POOLS)
_CLAIM_POOL = _CLAIM.on_conflict_do_update(
    index_elements=[RatingPool.game, RatingPool.variant], set_={"games": RatingPool.games},
).returning(RatingPool.games, RatingPool.last_ended_at, RatingPool.last_game_id)
"""Insert the list's row or lock the one there (an update that changes nothing still takes the row lock)."""
_RATINGS = table_of(PlayerRating)
_UPSERT = insert(_RATINGS)
_STORE_RATING = _UPSERT.on_conflict_do_update(
    index_elements=[PlayerRating.game, PlayerRating.variant, PlayerRating.rating_key],
    set_={"mu": _UPSERT.excluded.mu, "sigma": _UPSERT.excluded.sigma, "games": _UPSERT.excluded.games,
          "last_ended_at": _UPSERT.excluded.last_ended_at},
)
_STORE_CHANGE = insert(table_of(RatingChange))
# Read as plain rows, not ORM objects: the session's identity map would hand back rows as first loaded, while
# these tables are rewritten by core statements within the same session (the rebuild rates 200 games in one).
_RATING_COLUMNS = (PlayerRating.rating_key, PlayerRating.mu, PlayerRating.sigma, PlayerRating.games,
                   PlayerRating.last_ended_at)
_CHANGE_COLUMNS = tuple(table_of(RatingChange).c)


async def rate_games(session: AsyncSession, games: Sequence[RatedGame]) -> None:
    """Rate `games` (any lists, any order, none rated before) inside the session's transaction."""
    by_pool: dict[tuple[str, str], list[RatedGame]] = defaultdict(list)
    for rated in games:
        by_pool[(rated.game, rated.variant)].append(rated)
    for (game, variant), pool_games in sorted(by_pool.items()):
        await _rate_pool(session, game, variant, sorted(pool_games, key=lambda each: each.order))


async def _rate_pool(session: AsyncSession, game: str, variant: str, games: list[RatedGame]) -> None:
    """Rate one list's new games (sorted), rewinding the list first when one of them is not its latest."""
    claimed = (await session.execute(_CLAIM_POOL, {"game": game, "variant": variant, "games": 0,
                                                   "last_ended_at": None, "last_game_id": None})).one()
    rated, last_ended_at, last_game_id = claimed
    last = None if last_ended_at is None or last_game_id is None else (last_ended_at, last_game_id)
    states: dict[str, KeyState] = {}
    if last is not None and games[0].order < last:
        taken_back, states = await _take_back(session, game, variant, games[0])
        rated -= len(taken_back)
        games = sorted([*games, *taken_back], key=lambda rated_game: rated_game.order)
    keys = {seat.key for rated_game in games for seat in rated_game.seats} - states.keys()
    if keys:
        stored = await session.execute(select(*_RATING_COLUMNS).where(
            (PlayerRating.game == game) & (PlayerRating.variant == variant) & PlayerRating.rating_key.in_(keys)))
        for row in stored:
            states[row.rating_key] = KeyState(Rating(row.mu, row.sigma), row.games, row.last_ended_at)
    states = {key: state for key, state in states.items() if state.games > 0}
    changes = replay(games, states)
    await session.execute(_STORE_CHANGE, [change_row(change) for change in changes])
    touched = sorted({change.seat.key for change in changes})
    await session.execute(_STORE_RATING, [state_row(game, variant, key, states[key]) for key in touched])
    newest = games[-1].order if last is None else max(last, games[-1].order)
    await session.execute(update(RatingPool).where((RatingPool.game == game) & (RatingPool.variant == variant))
                          .values(games=rated + len(games), last_ended_at=newest[0], last_game_id=newest[1]))


async def _take_back(session: AsyncSession, game: str, variant: str,
                     first: RatedGame) -> tuple[list[RatedGame], dict[str, KeyState]]:
    """Take back every rated game of the list after `first` in rating order: return those games (to rate
    again) and each of their keys' state before its first of them (games 0: the key was new)."""
    # Read from the first game's end on and compared here: game ids in code point order, as Python sorts them
    # (a database collation may order them otherwise).
    from_first = ((RatingChange.game == game) & (RatingChange.variant == variant)
                  & (RatingChange.ended_at >= first.ended_at))
    rows = sorted((row for row in await session.execute(select(*_CHANGE_COLUMNS).where(from_first))
                   if (row.ended_at, row.game_id) > first.order), key=lambda row: (row.ended_at, row.game_id, row.seat))
    seats: dict[str, list[RatedSeat]] = defaultdict(list)
    ends: dict[str, Row[Any]] = {}
    states: dict[str, KeyState] = {}
    for row in rows:
        seats[row.game_id].append(RatedSeat(seat=row.seat, key=row.rating_key, side=row.side, rank=row.rank))
        ends.setdefault(row.game_id, row)
        if row.rating_key not in states:
            states[row.rating_key] = KeyState(Rating(row.mu_before, row.sigma_before), row.games_before,
                                              None)  # its last end before: set again by the replay
    if rows:
        await session.execute(delete(RatingChange).where(
            tuple_(RatingChange.game_id, RatingChange.seat).in_([(row.game_id, row.seat) for row in rows])))
    games = [RatedGame(game_id=game_id, game=game, variant=variant, ended_at=ends[game_id].ended_at,
                       seats=tuple(seated)) for game_id, seated in seats.items()]
    return games, states


async def rebuild_ratings(session: AsyncSession) -> None:
    """Rate every game again from the stored changes' inputs (sides and ranks), in rating order."""
    rows = sorted(await session.execute(select(*_CHANGE_COLUMNS)),
                  key=lambda row: (row.ended_at, row.game_id, row.seat))
    seats: dict[str, list[RatedSeat]] = defaultdict(list)
    ends: dict[str, Row[Any]] = {}
    for row in rows:
        seats[row.game_id].append(RatedSeat(seat=row.seat, key=row.rating_key, side=row.side, rank=row.rank))
        ends.setdefault(row.game_id, row)
    games = [RatedGame(game_id=game_id, game=ends[game_id].game, variant=ends[game_id].variant,
                       ended_at=ends[game_id].ended_at, seats=tuple(seated)) for game_id, seated in seats.items()]
    for table in (RatingChange, PlayerRating, RatingPool):
        await session.execute(delete(table))
    if games:
        await rate_games(session, games)
