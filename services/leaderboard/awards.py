"""Badge awards: once per (player, game, badge), from a finished game's badges and the player's streaks.

A game badge is awarded when `GameEnded.badges[seat]` names it (the rule module decided it from the log);
a streak badge when the game's daily mode is the badge's and the player's run of consecutive Berlin days
through this game's day reaches the badge's days. The first game to qualify keeps the award
(`ON CONFLICT DO NOTHING`); that game's end table shows it as new.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from itertools import groupby

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.envelope import EventType
from libs.platform.logging import get_logger
from libs.rules.home import Badge, Home
from services.leaderboard.home import home_of
from services.leaderboard.models import BadgeAward, ProcessedEvent, Result
from services.leaderboard.streaks import days_played, run_through


@dataclass(frozen=True)
class SeatEarning:
    """One human seat of a finished game, as far as badges go."""

    player_id: str
    has_left: bool
    badges: tuple[str, ...]
    """The game badges GameEnded lists for the seat."""


@dataclass(frozen=True)
class Earning:
    """A finished game, as far as badges go: its humans, and its daily mode's day."""

    game_id: str
    game: str
    ended_at: datetime
    mode: str | None
    day: date | None
    seats: tuple[SeatEarning, ...]


@dataclass(frozen=True)
class Award:
    """A badge a game awarded to a player (first time only)."""

    player_id: str
    game: str
    badge: str


def _game_badges(home: Home | None, earning: Earning, seat: SeatEarning) -> list[Badge]:
    """Return the known game badges the seat's keys name; unknown keys are logged and skipped."""
    badges = []
    for key in dict.fromkeys(seat.badges):  # each key once, in the event's order
        badge = None if home is None else home.badge(key)
        if badge is None or badge.earned is None:
            get_logger().warning("badge_unknown", game=earning.game, game_id=earning.game_id, badge=key,
                                 reason=f"Ein Abzeichen „{key}“ kennt {earning.game} nicht; es wird nicht vergeben.")
            continue
        badges.append(badge)
    return badges


DaysPlayed = dict[tuple[str, str, str], set[date]]
"""(player_id, game, mode) -> the days of that daily mode the player finished a game on (the rebuild's memory)."""


async def _streak_badges(session: AsyncSession, home: Home | None, earning: Earning, seat: SeatEarning,
                         played: DaysPlayed | None) -> list[Badge]:
    """Return the streak badges of this game's daily mode whose days the player's run through its day reaches."""
    if home is None or earning.mode is None or earning.day is None:
        return []
    candidates = [badge for badge in home.badges if badge.streak is not None and badge.streak.mode == earning.mode]
    if not candidates:
        return []
    if played is None:
        days: set[date] = set(await days_played(session, seat.player_id, earning.game, earning.mode))
    else:
        days = played.setdefault((seat.player_id, earning.game, earning.mode), set())
        days.add(earning.day)
    run = run_through(days, earning.day)
    return [badge for badge in candidates if badge.streak is not None and run >= badge.streak.days]


async def award_badges(session: AsyncSession, earning: Earning, played: DaysPlayed | None = None) -> list[Award]:
    """Award the game's badges inside the session's transaction (after its results are stored).

    Returns the awards made now; a badge the player holds already stays with the game that earned it first.
    A seat that left the game (the computer finished it) earns nothing. A streak counts the days stored in
    `results` (this game's included), or, in the rebuild's replay, the days `played` has seen so far.
    """
    home = home_of(earning.game)
    awards: list[Award] = []
    for seat in earning.seats:
        if seat.has_left:
            continue
        badges = _game_badges(home, earning, seat) + await _streak_badges(session, home, earning, seat, played)
        for badge in badges:
            added = await session.execute(
                insert(BadgeAward)
                .values(player_id=seat.player_id, game=earning.game, badge=badge.key, game_id=earning.game_id,
                        awarded_at=earning.ended_at)
                .on_conflict_do_nothing(index_elements=[BadgeAward.player_id, BadgeAward.game, BadgeAward.badge])
                .returning(BadgeAward.badge)
            )
            if added.first() is not None:
                awards.append(Award(player_id=seat.player_id, game=earning.game, badge=badge.key))
    return awards


async def rebuild_awards(session: AsyncSession) -> None:
    """Recompute every badge award from the stored results, replaying the games in the order they were projected.

    That order is the tracking rows' (`processed_events.processed_at`, then the games' ends), so the replay
    gives the rows the projection wrote; each streak sees only the days of the games replayed so far.
    """
    await session.execute(delete(BadgeAward))
    projected = (select(ProcessedEvent.game_id, func.min(ProcessedEvent.processed_at).label("at"))
                 .where(ProcessedEvent.event_type == EventType.GAME_ENDED).group_by(ProcessedEvent.game_id).subquery())
    rows = (await session.scalars(
        select(Result).outerjoin(projected, projected.c.game_id == Result.game_id)
        .order_by(projected.c.at.asc().nulls_last(), Result.ended_at, Result.game_id, Result.seat))).all()
    played: DaysPlayed = {}
    for _, group in groupby(rows, key=lambda row: row.game_id):
        seats = list(group)
        first = seats[0]
        earning = Earning(game_id=first.game_id, game=first.game, ended_at=first.ended_at, mode=first.mode,
                          day=first.day, seats=tuple(SeatEarning(player_id=row.player_id, has_left=row.has_left,
                                                                 badges=tuple(row.badges or ())) for row in seats))
        await award_badges(session, earning, played)
