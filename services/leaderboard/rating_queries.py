"""Reading the ratings: a list's rating list, a player's ratings and history, a game's changes, many players at
once (for a matchmaker)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from services.leaderboard.models import PlayerRating, RatingChange, Standing
from services.leaderboard.rating_model import (
    COMPUTER_PREFIX,
    DISPLAY_SCALE,
    INITIAL,
    RATED_LIST_MIN_GAMES,
    Rating,
)


@dataclass(frozen=True)
class RatingNow:
    """A key's current rating in one list (a key without rated games: the starting rating, 0 games)."""

    key: str
    mu: float
    sigma: float
    games: int

    @property
    def rating(self) -> int:
        """The shown rating, round(60 · μ)."""
        return Rating(self.mu, self.sigma).shown

    @property
    def uncertainty(self) -> int:
        """The shown uncertainty, round(60 · σ)."""
        return Rating(self.mu, self.sigma).shown_uncertainty

    @property
    def provisional(self) -> bool:
        """Fewer rated games than the rating list asks for ("vorläufig")."""
        return self.games < RATED_LIST_MIN_GAMES


@dataclass(frozen=True)
class ListedRating:
    """One line of a rating list: equal shown ratings share a rank (1, 2, 2, 4)."""

    rank: int
    player_id: str
    name: str
    rating: RatingNow


@dataclass(frozen=True)
class RatingStep:
    """One rated game in a key's history."""

    game_id: str
    ended_at: datetime
    before: Rating
    after: Rating


@dataclass(frozen=True)
class PlayerRatingLine:
    """A player's rating in one list."""

    game: str
    variant: str
    rating: RatingNow
    last_played_at: datetime


def _now(key: str, row: PlayerRating | None) -> RatingNow:
    if row is None:
        return RatingNow(key=key, mu=INITIAL.mu, sigma=INITIAL.sigma, games=0)
    return RatingNow(key=key, mu=row.mu, sigma=row.sigma, games=row.games)


def _in_list(game: str, variant: str) -> ColumnElement[bool]:
    return and_(PlayerRating.game == game, PlayerRating.variant == variant)


async def rating_list(session: AsyncSession, game: str, variant: str, limit: int,
                      offset: int) -> tuple[int, list[ListedRating]]:
    """Return how many humans the list ranks and one page of them, best first: humans with at least
    `RATED_LIST_MIN_GAMES` rated games, by shown rating, then by name."""
    listed = (_in_list(game, variant) & (PlayerRating.games >= RATED_LIST_MIN_GAMES)
              & ~PlayerRating.rating_key.startswith(COMPUTER_PREFIX, autoescape=True))
    total = await session.scalar(select(func.count()).select_from(PlayerRating).where(listed)) or 0
    shown = func.round(PlayerRating.mu * DISPLAY_SCALE)
    ranked = (select(func.rank().over(order_by=shown.desc()).label("rank"), PlayerRating.rating_key,
                     PlayerRating.mu, PlayerRating.sigma, PlayerRating.games,
                     func.coalesce(Standing.name, PlayerRating.rating_key).label("name"))
              .outerjoin(Standing, and_(Standing.game == PlayerRating.game, Standing.variant == PlayerRating.variant,
                                        Standing.player_id == PlayerRating.rating_key))
              .where(listed).subquery())
    rows = await session.execute(select(ranked).order_by(ranked.c.rank, ranked.c.name, ranked.c.rating_key)
                                 .limit(limit).offset(offset))
    return total, [ListedRating(rank=row.rank, player_id=row.rating_key, name=row.name,
                                rating=RatingNow(key=row.rating_key, mu=row.mu, sigma=row.sigma, games=row.games))
                   for row in rows]


async def computer_ratings(session: AsyncSession, game: str, variant: str) -> list[tuple[str, RatingNow]]:
    """Return each computer level's rating in the list (levels that played a rated game), strongest first."""
    rows = await session.scalars(select(PlayerRating).where(
        _in_list(game, variant) & PlayerRating.rating_key.startswith(COMPUTER_PREFIX, autoescape=True))
        .order_by(PlayerRating.mu.desc(), PlayerRating.rating_key))
    return [(row.rating_key.removeprefix(COMPUTER_PREFIX), _now(row.rating_key, row)) for row in rows]


async def ratings_of(session: AsyncSession, game: str, variant: str, keys: Sequence[str]) -> list[RatingNow]:
    """Return the ratings of `keys` in one list, in the order asked (the starting rating for a key without
    rated games)."""
    rows = await session.scalars(select(PlayerRating).where(_in_list(game, variant)
                                                            & PlayerRating.rating_key.in_(set(keys))))
    found = {row.rating_key: row for row in rows}
    return [_now(key, found.get(key)) for key in keys]


async def rating_rank(session: AsyncSession, game: str, variant: str, rating: RatingNow) -> int | None:
    """Return the rank the rating has in its list, or None while it is provisional (not in the list)."""
    if rating.provisional:
        return None
    better = await session.scalar(select(func.count()).select_from(PlayerRating).where(
        _in_list(game, variant) & (PlayerRating.games >= RATED_LIST_MIN_GAMES)
        & ~PlayerRating.rating_key.startswith(COMPUTER_PREFIX, autoescape=True)
        & (func.round(PlayerRating.mu * DISPLAY_SCALE) > rating.rating)))
    return (better or 0) + 1


async def rating_history(session: AsyncSession, game: str, variant: str, key: str, limit: int) -> list[RatingStep]:
    """Return the key's last `limit` rated games of the list, oldest first."""
    rows = (await session.execute(
        select(RatingChange.game_id, RatingChange.ended_at, RatingChange.mu_before, RatingChange.sigma_before,
               RatingChange.mu_after, RatingChange.sigma_after)
        .where((RatingChange.game == game) & (RatingChange.variant == variant) & (RatingChange.rating_key == key))
        .order_by(RatingChange.ended_at.desc(), RatingChange.game_id.desc(), RatingChange.seat.desc())
        .limit(limit))).all()
    return [RatingStep(game_id=row.game_id, ended_at=row.ended_at, before=Rating(row.mu_before, row.sigma_before),
                       after=Rating(row.mu_after, row.sigma_after)) for row in reversed(rows)]


async def player_ratings(session: AsyncSession, player_id: str) -> list[PlayerRatingLine]:
    """Return the player's rating in every list they have one in, most recently played first."""
    rows = await session.scalars(select(PlayerRating).where(PlayerRating.rating_key == player_id)
                                 .order_by(PlayerRating.last_ended_at.desc(), PlayerRating.game, PlayerRating.variant))
    return [PlayerRatingLine(game=row.game, variant=row.variant, rating=_now(player_id, row),
                             last_played_at=row.last_ended_at) for row in rows]


async def game_rating_changes(session: AsyncSession, game_ids: Sequence[str]) -> dict[tuple[str, int], RatingChange]:
    """Return the rating changes of the games, by (game id, seat)."""
    if not game_ids:
        return {}
    rows = await session.scalars(select(RatingChange).where(RatingChange.game_id.in_(list(game_ids))))
    return {(row.game_id, row.seat): row for row in rows}
