"""A player's home as the leaderboard sees it: "Meine Partien" (history, score curve, streaks) and badges."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import ColumnElement, func, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.days import berlin_day
from services.leaderboard.home import home_of, known_home, mode_title, registered_games
from services.leaderboard.models import BadgeAward, Result
from services.leaderboard.streaks import StreakSummary, days_played, summarize

CURVE_GAMES = 30
"""The score curve shows this many of the player's latest results."""


@dataclass(frozen=True)
class HistoryGame:
    """One finished game in the player's history."""

    game_id: str
    game: str
    variant: str
    mode: str | None
    mode_title: str | None
    day: date | None
    practice: bool
    stage: int | None
    date: date
    """The Berlin day the game ended."""
    ended_at: datetime
    place: int
    players: int
    score: int
    points: int
    has_left: bool


@dataclass(frozen=True)
class CurvePoint:
    """One result on the score curve."""

    game_id: str
    date: date
    score: int


@dataclass(frozen=True)
class Curve:
    """The scores of the player's latest results (oldest first), their best, and the best of all time."""

    points: list[CurvePoint]
    best: int | None
    best_all_time: int | None


@dataclass(frozen=True)
class ModeStreak:
    """The player's streak in one daily mode."""

    game: str
    mode: str
    title: str
    summary: StreakSummary


@dataclass(frozen=True)
class History:
    """One page of the player's finished games, newest first, with the curve and the streaks."""

    total: int
    games: list[HistoryGame]
    curve: Curve
    streaks: list[ModeStreak]


def _of_player(player_id: str, game: str | None) -> ColumnElement[bool]:
    return (Result.player_id == player_id) & (Result.game == game if game is not None else true())


def _history_game(row: Result) -> HistoryGame:
    return HistoryGame(
        game_id=row.game_id, game=row.game, variant=row.variant, mode=row.mode,
        mode_title=None if row.mode is None else mode_title(row.game, row.mode), day=row.day,
        practice=row.practice, stage=row.stage, date=berlin_day(row.ended_at), ended_at=row.ended_at,
        place=row.place, players=row.players, score=row.score, points=row.points, has_left=row.has_left)


async def _curve(session: AsyncSession, mine: ColumnElement[bool]) -> Curve:
    """The curve counts the games the player finished themselves (a left game is the computer's)."""
    played = mine & Result.has_left.is_(False)
    latest = (await session.scalars(
        select(Result).where(played).order_by(Result.ended_at.desc(), Result.game_id.desc()).limit(CURVE_GAMES)
    )).all()
    points = [CurvePoint(game_id=row.game_id, date=berlin_day(row.ended_at), score=row.score)
              for row in reversed(latest)]
    best_all_time = await session.scalar(select(func.max(Result.score)).where(played))
    return Curve(points=points, best=max((point.score for point in points), default=None),
                 best_all_time=best_all_time)


async def _streaks(session: AsyncSession, player_id: str, game: str | None, today: date) -> list[ModeStreak]:
    streaks = []
    for name in [game] if game is not None else registered_games():
        home = home_of(name)
        for mode in home.modes if home is not None else ():
            if mode.daily:
                days = await days_played(session, player_id, name, mode.key)
                streaks.append(ModeStreak(game=name, mode=mode.key, title=mode.title, summary=summarize(days, today)))
    return streaks


async def player_history(session: AsyncSession, player_id: str, game: str | None, today: date, limit: int,
                         offset: int) -> History:
    """Return the player's finished games of `game` (None: of every game), the curve and the daily streaks.

    `today` is the leaderboard's Berlin day: a streak is current if its last day is today or yesterday.
    """
    if game is not None:
        known_home(game)
    mine = _of_player(player_id, game)
    total = await session.scalar(select(func.count()).select_from(Result).where(mine)) or 0
    rows = (await session.scalars(
        select(Result).where(mine).order_by(Result.ended_at.desc(), Result.game_id.desc()).limit(limit).offset(offset)
    )).all()
    return History(total=total, games=[_history_game(row) for row in rows], curve=await _curve(session, mine),
                   streaks=await _streaks(session, player_id, game, today))


@dataclass(frozen=True)
class BadgeState:
    """One badge of a game's home and whether the player holds it."""

    game: str
    key: str
    title: str
    description: str
    book: str
    kind: str
    """"game" (earned by one game) or "streak" (earned by days in a row)."""
    earned: bool
    awarded_at: datetime | None
    game_id: str | None


async def player_badges(session: AsyncSession, player_id: str, game: str | None) -> list[BadgeState]:
    """Return every badge of the game's home (None: of every game), earned or not, grouped by book.

    Order: by game, then the books in the order the home first names them, then the home's order.
    """
    games = [game] if game is not None else registered_games()
    if game is not None:
        known_home(game)
    query = select(BadgeAward).where(BadgeAward.player_id == player_id)
    if game is not None:
        query = query.where(BadgeAward.game == game)
    held = {(award.game, award.badge): award for award in await session.scalars(query)}
    states = []
    for name in games:
        home = home_of(name)
        badges = home.badges if home is not None else ()
        books = list(dict.fromkeys(badge.book for badge in badges))
        for badge in sorted(badges, key=lambda badge: books.index(badge.book)):  # stable: the home's order
            award = held.get((name, badge.key))
            states.append(BadgeState(
                game=name, key=badge.key, title=badge.title, description=badge.description, book=badge.book,
                kind="streak" if badge.streak is not None else "game", earned=award is not None,
                awarded_at=None if award is None else award.awarded_at,
                game_id=None if award is None else award.game_id))
    return states
