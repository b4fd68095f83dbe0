"""HTTP: the end table of finished games (every seat, computers included), newest first.

Besides the seats' places and points, the end table names the game's solo mode, the badges the game
awarded (new for that player), each seat's rating before and after the game, and for a campaign game the
stage it was and the stage it opens.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.database import session_factory
from libs.platform.http_errors import refusals, shown
from libs.platform.rpc import CommandRefused
from libs.platform.service import RuntimeDep
from services.leaderboard.home import home_of
from services.leaderboard.models import BadgeAward, FinishedGameRow, RatingChange
from services.leaderboard.rating_model import Rating
from services.leaderboard.rating_queries import game_rating_changes

router = APIRouter(prefix="/games", tags=["games"], responses=refusals(404))


class NewBadgeOut(BaseModel):
    """A badge this game awarded to the seat's player (their first time)."""

    key: str
    title: str
    book: str


class SeatRatingOut(BaseModel):
    """What the game did to the seat's rating (shown: round(60 · μ); raw: openskill's μ, σ)."""

    before: int
    after: int
    change: int
    uncertainty_before: int
    uncertainty_after: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    games: int
    """Rated games of this list with this one."""


class EndSeatOut(BaseModel):
    """One seat of the end table."""

    seat: int
    name: str | None
    kind: str
    level: str | None
    player_id: str | None
    place: int
    score: int
    points: int
    has_left: bool
    new_badges: list[NewBadgeOut]
    rating: SeatRatingOut | None = None
    """None when the game is not rated (solo, practice, no human) or the seat has no rating (a human seat
    without a player)."""


class GameModeOut(BaseModel):
    """The solo mode the game was played in."""

    key: str
    title: str
    day: date | None
    attempt: int | None
    practice: bool
    """A daily game after the first attempt of the day ("Übung"), or one that ended too late: in no list."""
    late: bool = False
    """A daily game that ended after its day was over (its seed was public by then): in no list."""
    stage: int | None


class NextStageOut(BaseModel):
    """The campaign stage a won game opens."""

    number: int
    title: str


class CampaignOut(BaseModel):
    """A campaign game's stage, whether the human won it (place 1), and the stage that opens next."""

    mode: str
    stage: int
    won: bool
    next: NextStageOut | None


class FinishedGameOut(BaseModel):
    """One finished game's end table."""

    game_id: str
    game: str
    variant: str
    rules: str
    ended_at: datetime
    seats: list[EndSeatOut]
    mode: GameModeOut | None
    campaign: CampaignOut | None


def _mode_and_campaign(row: FinishedGameRow) -> tuple[GameModeOut | None, CampaignOut | None]:
    stored = row.mode
    if not stored:
        return None, None
    home = home_of(row.game)
    solo = None if home is None else home.mode(stored["key"])
    day = stored.get("day")
    mode = GameModeOut(key=stored["key"], title=stored["key"] if solo is None else solo.title,
                       day=None if day is None else date.fromisoformat(day), attempt=stored.get("attempt"),
                       practice=bool(stored.get("practice")), late=bool(stored.get("late")),
                       stage=stored.get("stage"))
    if solo is None or not solo.is_campaign or mode.stage is None:
        return mode, None
    won = any(seat.get("kind") == "human" and seat.get("place") == 1 and not seat.get("has_left")
              for seat in row.seats)
    following = solo.stage(mode.stage + 1) if won else None
    return mode, CampaignOut(mode=solo.key, stage=mode.stage, won=won,
                             next=None if following is None else NextStageOut(number=following.number,
                                                                              title=following.title))


def _seat_rating(change: RatingChange | None) -> SeatRatingOut | None:
    if change is None:
        return None
    before, after = Rating(change.mu_before, change.sigma_before), Rating(change.mu_after, change.sigma_after)
    return SeatRatingOut(before=before.shown, after=after.shown, change=after.shown - before.shown,
                         uncertainty_before=before.shown_uncertainty, uncertainty_after=after.shown_uncertainty,
                         mu_before=before.mu, sigma_before=before.sigma, mu_after=after.mu, sigma_after=after.sigma,
                         games=change.games_before + 1)


def _end_table(row: FinishedGameRow, awards: Sequence[BadgeAward],
               changes: Mapping[tuple[str, int], RatingChange]) -> FinishedGameOut:
    home = home_of(row.game)
    new: dict[str, list[NewBadgeOut]] = defaultdict(list)
    for award in awards:
        badge = None if home is None else home.badge(award.badge)
        new[award.player_id].append(NewBadgeOut(key=award.badge, title=award.badge if badge is None else badge.title,
                                                book="" if badge is None else badge.book))
    seats: list[dict[str, Any]] = [
        {**seat, "new_badges": new.get(seat.get("player_id") or "", []) if seat.get("kind") == "human" else [],
         "rating": _seat_rating(changes.get((row.game_id, int(seat["seat"]))))}
        for seat in row.seats]
    mode, campaign = _mode_and_campaign(row)
    return FinishedGameOut(game_id=row.game_id, game=row.game, variant=row.variant, rules=row.rules,
                           ended_at=row.ended_at, seats=[EndSeatOut(**seat) for seat in seats], mode=mode,
                           campaign=campaign)


async def _end_tables(session: AsyncSession, rows: Sequence[FinishedGameRow]) -> list[FinishedGameOut]:
    """Return the rows' end tables with the badges each game awarded (one query for all of them)."""
    awards: dict[str, list[BadgeAward]] = defaultdict(list)
    if rows:
        query = (select(BadgeAward).where(BadgeAward.game_id.in_([row.game_id for row in rows]))
                 .order_by(BadgeAward.badge))
        for award in await session.scalars(query):
            awards[award.game_id].append(award)
    changes = await game_rating_changes(session, [row.game_id for row in rows])
    return [_end_table(row, awards[row.game_id], changes) for row in rows]


@router.get("", response_model=list[FinishedGameOut])
async def recent_games(runtime: RuntimeDep, limit: Annotated[int, Query(ge=1, le=200)] = 20) -> list[FinishedGameOut]:
    """The most recently finished games."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        rows = (await session.scalars(
            select(FinishedGameRow).order_by(FinishedGameRow.ended_at.desc()).limit(limit))).all()
        return await _end_tables(session, rows)


@router.get("/{game_id}", response_model=FinishedGameOut)
async def finished_game(game_id: str, runtime: RuntimeDep) -> FinishedGameOut:
    """The end table of one finished game (404 while it runs or when it does not exist)."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        row = await session.get(FinishedGameRow, game_id)
        if row is None:
            raise CommandRefused(404, f"Eine beendete Partie {shown(game_id)} ist hier nicht bekannt.",
                                 "game_not_found")
        [table] = await _end_tables(session, [row])
    return table
