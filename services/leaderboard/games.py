"""HTTP: the end table of finished games (every seat, computers included), newest first."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel
from sqlalchemy import select

from libs.platform.database import session_factory
from libs.platform.http_errors import refusals, shown
from libs.platform.rpc import CommandRefused
from libs.platform.service import RuntimeDep
from services.leaderboard.models import FinishedGameRow

router = APIRouter(prefix="/games", tags=["games"], responses=refusals(404))


class FinishedGameOut(BaseModel):
    """One finished game's end table."""

    game_id: str
    game: str
    variant: str
    rules: str
    ended_at: datetime
    seats: list[dict[str, Any]]


@router.get("", response_model=list[FinishedGameOut])
async def recent_games(runtime: RuntimeDep, limit: Annotated[int, Query(ge=1, le=200)] = 20) -> list[FinishedGameOut]:
    """The most recently finished games."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        rows = (await session.scalars(
            select(FinishedGameRow).order_by(FinishedGameRow.ended_at.desc()).limit(limit))).all()
    return [FinishedGameOut.model_validate(row, from_attributes=True) for row in rows]


@router.get("/{game_id}", response_model=FinishedGameOut)
async def finished_game(game_id: str, runtime: RuntimeDep) -> FinishedGameOut:
    """The end table of one finished game (404 while it runs or when it does not exist)."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        row = await session.get(FinishedGameRow, game_id)
    if row is None:
        raise CommandRefused(404, f"Eine beendete Partie {shown(game_id)} ist hier nicht bekannt.", "game_not_found")
    return FinishedGameOut.model_validate(row, from_attributes=True)
