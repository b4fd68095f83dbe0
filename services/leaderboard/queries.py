"""Reading the lists: ranked standings per (game, variant) and a player's results."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import distinct, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from libs.rules import registry
from services.leaderboard.home import UnknownGame
from services.leaderboard.models import Result, Standing

__all__ = ["PlayerResult", "RankedEntry", "UnknownGame", "VariantSummary", "ensure_known_game", "list_variants",
           "player_results", "ranked_list"]


@dataclass(frozen=True)
class RankedEntry:
    """One line of a list; equal points share a rank (1, 2, 2, 4)."""

    rank: int
    player_id: str
    name: str
    points: int
    games: int
    wins: int
    best_score: int


@dataclass(frozen=True)
class VariantSummary:
    """A variant's list and how many players are in it."""

    variant: str
    players: int


@dataclass(frozen=True)
class PlayerResult:
    """One finished game from a player's history."""

    game_id: str
    game: str
    variant: str
    seat: int
    place: int
    score: int
    points: int
    players: int
    has_left: bool
    ended_at: datetime


async def ensure_known_game(session: AsyncSession, game: str) -> None:
    """Refuse with 404 unless a rule module or a stored list knows `game`."""
    if any(module.game == game for module in registry.all_modules()):
        return
    seen = await session.scalar(select(Standing.game).where(Standing.game == game).limit(1))
    if seen is None:
        raise UnknownGame(game)


async def list_variants(session: AsyncSession, game: str) -> list[VariantSummary]:
    """Return the variants of `game` that have a list, with their number of players."""
    await ensure_known_game(session, game)
    rows = await session.execute(
        select(Standing.variant, func.count(distinct(Standing.player_id)))
        .where(Standing.game == game).group_by(Standing.variant).order_by(Standing.variant)
    )
    return [VariantSummary(variant=variant, players=players) for variant, players in rows]


async def ranked_list(
    session: AsyncSession, game: str, variant: str, limit: int, offset: int
) -> tuple[int, list[RankedEntry]]:
    """Return the list's size and one page of it, best first."""
    await ensure_known_game(session, game)
    in_list = (Standing.game == game) & (Standing.variant == variant)
    total = await session.scalar(select(func.count()).select_from(Standing).where(in_list)) or 0
    ranked = select(
        func.rank().over(order_by=Standing.points.desc()).label("rank"),
        Standing.player_id, Standing.name, Standing.points, Standing.games, Standing.wins, Standing.best_score,
    ).where(in_list).subquery()
    rows = await session.execute(
        select(ranked).order_by(ranked.c.rank, ranked.c.name, ranked.c.player_id).limit(limit).offset(offset)
    )
    return total, [RankedEntry(rank=row.rank, player_id=row.player_id, name=row.name, points=row.points,
                               games=row.games, wins=row.wins, best_score=row.best_score) for row in rows]


async def player_results(session: AsyncSession, player_id: str, limit: int, offset: int) -> list[PlayerResult]:
    """Return the player's finished games, newest first."""
    rows = await session.scalars(
        select(Result).where(Result.player_id == player_id)
        .order_by(Result.ended_at.desc(), Result.game_id).limit(limit).offset(offset)
    )
    return [PlayerResult(game_id=row.game_id, game=row.game, variant=row.variant, seat=row.seat,
                         place=row.place, score=row.score, points=row.points, players=row.players,
                         has_left=row.has_left, ended_at=row.ended_at) for row in rows]
