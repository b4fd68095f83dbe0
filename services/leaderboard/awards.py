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

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.logging import get_logger
from libs.rules.home import Badge, Home
from services.leaderboard.home import home_of
from services.leaderboard.models import BadgeAward, Result
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


async def _streak_badges(session: AsyncSession, home: Home | None, earning: Earning, seat: SeatEarning,
                         up_to: tuple[datetime, str] | None) -> list[Badge]:
    """Return the streak badges of this game's daily mode whose days the player's run through its day reaches."""
    if home is None or earning.mode is None or earning.day is None:
        return []
    candidates = [badge for badge in home.badges if badge.streak is not None and badge.streak.mode == earning.mode]
    if not candidates:
        return []
    run = run_through(await days_played(session, seat.player_id, earning.game, earning.mode, up_to), earning.day)
    return [badge for badge in candidates if badge.streak is not None and run >= badge.streak.days]


async def award_badges(session: AsyncSession, earning: Earning,
                       up_to: tuple[datetime, str] | None = None) -> list[Award]:
    """Award the game's badges inside the session's transaction (after its results are stored).

    Returns the awards made now; a badge the player holds already stays with the game that earned it first.
    A seat that left the game (the computer finished it) earns nothing. `up_to` limits the streak's days to
    games that ended no later than (ended_at, game_id) (the rebuild's replay).
    """
    home = home_of(earning.game)
    awards: list[Award] = []
    for seat in earning.seats:
        if seat.has_left:
            continue
        badges = _game_badges(home, earning, seat) + await _streak_badges(session, home, earning, seat, up_to)
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
    """Recompute every badge award from the stored results, replaying the games in the order they ended.

    Gives the rows the projection wrote when the games were delivered in that order (as the table publishes
    them); a game delivered late may have taken an award the replay gives to a later game of the run.
    """
    await session.execute(delete(BadgeAward))
    rows = (await session.scalars(
        select(Result).order_by(Result.ended_at, Result.game_id, Result.seat))).all()
    for _, group in groupby(rows, key=lambda row: row.game_id):
        seats = list(group)
        first = seats[0]
        earning = Earning(game_id=first.game_id, game=first.game, ended_at=first.ended_at, mode=first.mode,
                          day=first.day, seats=tuple(SeatEarning(player_id=row.player_id, has_left=row.has_left,
                                                                 badges=tuple(row.badges or ())) for row in seats))
        await award_badges(session, earning, up_to=(first.ended_at, first.game_id))
