"""HTTP: a player's finished games."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from libs.platform.database import session_factory
from libs.platform.http_errors import refusals
from libs.platform.http_params import Offset
from libs.platform.service import RuntimeDep
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
