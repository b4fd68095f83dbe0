"""HTTP: a game's solo modes, a mode's all-time list and a daily mode's day lists."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel

from libs.platform.database import session_factory
from libs.platform.days import parse_day
from libs.platform.http_errors import refusals
from libs.platform.http_params import Offset
from libs.platform.service import RuntimeDep
from services.leaderboard.home import BadDay, NotDaily, known_home, known_mode
from services.leaderboard.mode_lists import ModeEntry, all_time_list, day_list

router = APIRouter(prefix="/modes", tags=["modes"], responses=refusals(404, 422))


class StageOut(BaseModel):
    """One stage of a campaign."""

    number: int
    title: str
    settings: dict[str, Any]
    opponents: list[str]


class ModeOut(BaseModel):
    """A solo mode as players choose it."""

    key: str
    title: str
    description: str
    daily: bool
    list_order: list[str]
    campaign: list[StageOut]
    """The campaign's stages in order (empty: not a campaign)."""


class ModesOut(BaseModel):
    """A game's solo modes."""

    game: str
    modes: list[ModeOut]


class ModeEntryOut(BaseModel):
    """One line of a mode's list; equal list keys share a rank."""

    rank: int
    player_id: str
    name: str
    score: int
    list_key: list[int]
    game_id: str
    ended_at: datetime
    day: date | None


class ModeListOut(BaseModel):
    """One page of a mode's all-time list (`day` None) or of one day's list, best first."""

    game: str
    mode: str
    title: str
    day: date | None
    list_order: list[str]
    total: int
    limit: int
    offset: int
    entries: list[ModeEntryOut]


Limit = Annotated[int, Query(ge=1, le=200)]


def _entries(entries: list[ModeEntry]) -> list[ModeEntryOut]:
    return [ModeEntryOut(**entry.__dict__) for entry in entries]


@router.get("/{game}", response_model=ModesOut)
async def get_modes(game: str) -> ModesOut:
    """The game's solo modes; 404 for an unknown game."""
    home = known_home(game)
    return ModesOut(game=game, modes=[ModeOut(
        key=mode.key, title=mode.title, description=mode.description, daily=mode.daily,
        list_order=[key.value for key in mode.list_order],
        campaign=[StageOut(**stage.to_json()) for stage in mode.stages]) for mode in home.modes])


@router.get("/{game}/{mode}", response_model=ModeListOut)
async def get_mode_list(game: str, mode: str, runtime: RuntimeDep, limit: Limit = 50,
                        offset: Offset = 0) -> ModeListOut:
    """The mode's all-time list: each player's best counting result; 404 for an unknown game or mode."""
    solo = known_mode(game, mode)
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        total, entries = await all_time_list(session, game, mode, limit, offset)
    return ModeListOut(game=game, mode=mode, title=solo.title, day=None,
                       list_order=[key.value for key in solo.list_order], total=total, limit=limit, offset=offset,
                       entries=_entries(entries))


@router.get("/{game}/{mode}/days/{day}", response_model=ModeListOut)
async def get_day_list(game: str, mode: str, day: str, runtime: RuntimeDep, limit: Limit = 50,
                       offset: Offset = 0) -> ModeListOut:
    """A daily mode's list of one Berlin day (first attempts only); 404 for a mode without days, 422 for a bad day."""
    solo = known_mode(game, mode)
    if not solo.daily:
        raise NotDaily(solo)
    try:
        the_day = parse_day(day)
    except ValueError:
        raise BadDay(day) from None
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        total, entries = await day_list(session, game, mode, the_day, limit, offset)
    return ModeListOut(game=game, mode=mode, title=solo.title, day=the_day,
                       list_order=[key.value for key in solo.list_order], total=total, limit=limit, offset=offset,
                       entries=_entries(entries))
