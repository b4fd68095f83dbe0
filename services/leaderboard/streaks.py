"""Streaks: consecutive Berlin days on which a player finished (and did not leave) a daily mode's game."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import pairwise

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.leaderboard.models import Result

ONE_DAY = timedelta(days=1)


def run_through(days: Iterable[date], day: date) -> int:
    """Return the length of the run of consecutive days in `days` that contains `day` (0 if absent)."""
    played = set(days)
    if day not in played:
        return 0
    before = 0
    while day - (before + 1) * ONE_DAY in played:
        before += 1
    after = 0
    while day + (after + 1) * ONE_DAY in played:
        after += 1
    return before + 1 + after


@dataclass(frozen=True)
class StreakSummary:
    """A player's streak in one daily mode: the current run, the longest run, the last day played."""

    current: int
    longest: int
    last_day: date | None


def summarize(days: Iterable[date], today: date) -> StreakSummary:
    """Return the streaks of `days`: `current` is the run ending on the last day if that is today or yesterday."""
    played = sorted(set(days))
    if not played:
        return StreakSummary(current=0, longest=0, last_day=None)
    longest, run = 1, 1
    for previous, day in pairwise(played):
        run = run + 1 if day - previous == ONE_DAY else 1
        longest = max(longest, run)
    last = played[-1]
    # `run` is now the run ending on the last day; it is still alive until the day after tomorrow begins.
    current = run if last >= today - ONE_DAY else 0
    return StreakSummary(current=current, longest=longest, last_day=last)


async def days_played(session: AsyncSession, player_id: str, game: str, mode: str) -> list[date]:
    """Return the Berlin days on which the player finished a game of the daily `mode` without leaving it.

    Practice games count; a day is the game's `mode.day` (the day whose seed it played).
    """
    query = (select(Result.day).distinct()
             .where(Result.player_id == player_id, Result.game == game, Result.mode == mode,
                    Result.day.is_not(None), Result.has_left.is_(False)))
    return [day for day in await session.scalars(query) if day is not None]
