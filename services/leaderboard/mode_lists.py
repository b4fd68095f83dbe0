"""A solo mode's lists: the all-time list (each player's best counting result) and a daily mode's day lists.

A counting result is neither practice nor left. Results are ordered by the list key vector (descending,
element by element), equal keys share a rank (1, 2, 2, 4), and among equals the earlier result comes first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import ColumnElement, distinct, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from services.leaderboard.models import Result


@dataclass(frozen=True)
class ModeEntry:
    """One line of a mode's list."""

    rank: int
    player_id: str
    name: str
    score: int
    list_key: list[int]
    game_id: str
    ended_at: datetime
    day: date | None


async def _ranked(session: AsyncSession, where: ColumnElement[bool], limit: int,
                  offset: int) -> tuple[int, list[ModeEntry]]:
    """Return the number of players and one page of their best results among those matching `where`."""
    counting = where & Result.practice.is_(False) & Result.has_left.is_(False) & Result.list_key.is_not(None)
    total = await session.scalar(select(func.count(distinct(Result.player_id))).where(counting)) or 0
    best = select(
        Result.player_id, Result.name, Result.score, Result.list_key, Result.game_id, Result.ended_at, Result.day,
        func.row_number().over(partition_by=Result.player_id,
                               order_by=(Result.list_key.desc(), Result.ended_at, Result.game_id)).label("nth"),
    ).where(counting).subquery()
    ranked = select(
        best.c.player_id, best.c.name, best.c.score, best.c.list_key, best.c.game_id, best.c.ended_at, best.c.day,
        func.rank().over(order_by=best.c.list_key.desc()).label("rank"),
    ).where(best.c.nth == 1).subquery()
    rows = await session.execute(
        select(ranked).order_by(ranked.c.rank, ranked.c.ended_at, ranked.c.game_id).limit(limit).offset(offset))
    return total, [ModeEntry(rank=row.rank, player_id=row.player_id, name=row.name, score=row.score,
                             list_key=list(row.list_key), game_id=row.game_id, ended_at=row.ended_at, day=row.day)
                   for row in rows]


async def all_time_list(session: AsyncSession, game: str, mode: str, limit: int,
                        offset: int) -> tuple[int, list[ModeEntry]]:
    """Return the mode's all-time list: each player's best counting result, best first."""
    return await _ranked(session, (Result.game == game) & (Result.mode == mode), limit, offset)


async def day_list(session: AsyncSession, game: str, mode: str, day: date, limit: int,
                   offset: int) -> tuple[int, list[ModeEntry]]:
    """Return a daily mode's list of one Berlin day: the players' first attempts of that day, best first."""
    where = (Result.game == game) & (Result.mode == mode) & (Result.day == day) & (Result.attempt == 1)
    return await _ranked(session, where, limit, offset)
