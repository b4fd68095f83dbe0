"""HTTP: a player's finished games ("Meine Partien": history, score curve, streaks) and badges."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from libs.platform.clock import clock_of
from libs.platform.database import session_factory
from libs.platform.days import berlin_day
from libs.platform.http_errors import refusals
from libs.platform.http_params import Offset
from libs.platform.service import RuntimeDep
from services.leaderboard.history import player_badges, player_history
from services.leaderboard.queries import player_results

router = APIRouter(prefix="/players", tags=["players"], responses=refusals(404))


class ResultOut(BaseModel):
    """One finished game of the player."""

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


class ResultsOut(BaseModel):
    """A page of the player's history, newest first."""

    player_id: str
    limit: int
    offset: int
    results: list[ResultOut]


@router.get("/{player_id}/results", response_model=ResultsOut)
async def get_player_results(
    player_id: str,
    runtime: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Offset = 0,
) -> ResultsOut:
    """The player's finished games, newest first (empty for a player without any)."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        results = await player_results(session, player_id, limit, offset)
    return ResultsOut(player_id=player_id, limit=limit, offset=offset,
                      results=[ResultOut(**result.__dict__) for result in results])


class ModeRefOut(BaseModel):
    """The solo mode a game was played in."""

    key: str
    title: str


class HistoryGameOut(BaseModel):
    """One finished game in "Meine Partien"."""

    game_id: str
    game: str
    variant: str
    mode: ModeRefOut | None
    day: date | None
    """A daily game's day (its seed's day)."""
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


class CurvePointOut(BaseModel):
    """One result on the score curve."""

    game_id: str
    date: date
    score: int


class CurveOut(BaseModel):
    """The scores of the player's last 30 finished (not left) games, oldest first, and the best scores."""

    points: list[CurvePointOut]
    best: int | None
    """The best score of these games."""
    best_all_time: int | None


class StreakOut(BaseModel):
    """The player's days in a row in one daily mode (Europe/Berlin days)."""

    game: str
    mode: str
    title: str
    current: int
    """The run ending on the last day played, if that is today or yesterday; else 0."""
    longest: int
    last_day: date | None


class HistoryOut(BaseModel):
    """A page of the player's finished games, newest first, with the curve and the streaks."""

    player_id: str
    game: str | None
    total: int
    limit: int
    offset: int
    games: list[HistoryGameOut]
    curve: CurveOut
    streaks: list[StreakOut]


class BadgeOut(BaseModel):
    """One badge of a game's home, earned or not."""

    game: str
    key: str
    title: str
    description: str
    book: str
    kind: str
    earned: bool
    awarded_at: datetime | None
    game_id: str | None
    """The game that earned it."""


class BadgesOut(BaseModel):
    """Every badge of the game's home (or of every game), grouped by book, and how many the player holds."""

    player_id: str
    game: str | None
    earned: int
    badges: list[BadgeOut]


GameFilter = Annotated[str | None, Query(max_length=64, description="Nur dieses Spiel (z. B. speedmosaik).")]


@router.get("/{player_id}/history", response_model=HistoryOut)
async def get_player_history(
    player_id: str,
    runtime: RuntimeDep,
    game: GameFilter = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Offset = 0,
) -> HistoryOut:
    """The player's finished games (of `game`, or all), newest first; 404 for an unknown game."""
    assert runtime.engine is not None
    today = berlin_day(clock_of(runtime).now())
    async with session_factory(runtime.engine)() as session:
        history = await player_history(session, player_id, game, today, limit, offset)
    return HistoryOut(
        player_id=player_id, game=game, total=history.total, limit=limit, offset=offset,
        games=[HistoryGameOut(
            game_id=item.game_id, game=item.game, variant=item.variant,
            mode=None if item.mode is None else ModeRefOut(key=item.mode, title=item.mode_title or item.mode),
            day=item.day, practice=item.practice, stage=item.stage, date=item.date, ended_at=item.ended_at,
            place=item.place, players=item.players, score=item.score, points=item.points, has_left=item.has_left,
        ) for item in history.games],
        curve=CurveOut(points=[CurvePointOut(**point.__dict__) for point in history.curve.points],
                       best=history.curve.best, best_all_time=history.curve.best_all_time),
        streaks=[StreakOut(game=streak.game, mode=streak.mode, title=streak.title, current=streak.summary.current,
                           longest=streak.summary.longest, last_day=streak.summary.last_day)
                 for streak in history.streaks],
    )


@router.get("/{player_id}/badges", response_model=BadgesOut)
async def get_player_badges(player_id: str, runtime: RuntimeDep, game: GameFilter = None) -> BadgesOut:
    """Every badge of the game's home (or of every game), earned or not; 404 for an unknown game."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        badges = await player_badges(session, player_id, game)
    return BadgesOut(player_id=player_id, game=game, earned=sum(badge.earned for badge in badges),
                     badges=[BadgeOut(**badge.__dict__) for badge in badges])
