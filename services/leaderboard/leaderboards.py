"""HTTP: the lists, one per game and variant."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from libs.platform.database import session_factory
from libs.platform.http_errors import refusals
from libs.platform.http_params import Offset
from libs.platform.service import RuntimeDep
from services.leaderboard.queries import list_variants, ranked_list

router = APIRouter(prefix="/leaderboards", tags=["leaderboards"], responses=refusals(404))


class VariantOut(BaseModel):
    """A variant's list and how many players are in it."""

    variant: str
    players: int


class GameListsOut(BaseModel):
    """The lists a game has, one per variant."""

    game: str
    variants: list[VariantOut]


class EntryOut(BaseModel):
    """One line of a list; equal points share a rank."""

    rank: int
    player_id: str
    name: str
    points: int
    games: int
    wins: int
    best_score: int


class LeaderboardOut(BaseModel):
    """One page of a list, best first."""

    game: str
    variant: str
    total: int
    limit: int
    offset: int
    entries: list[EntryOut]


@router.get("/{game}", response_model=GameListsOut)
async def get_game_lists(game: str, runtime: RuntimeDep) -> GameListsOut:
    """The variants of `game` that have a list; 404 for an unknown game."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        variants = await list_variants(session, game)
    return GameListsOut(game=game, variants=[VariantOut(**variant.__dict__) for variant in variants])


@router.get("/{game}/{variant}", response_model=LeaderboardOut)
async def get_leaderboard(
    game: str,
    variant: str,
    runtime: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Offset = 0,
) -> LeaderboardOut:
    """The all-time list of one variant (e.g. speedmosaik/kachelwand); 404 for an unknown game."""
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        total, entries = await ranked_list(session, game, variant, limit, offset)
    return LeaderboardOut(game=game, variant=variant, total=total, limit=limit, offset=offset,
                          entries=[EntryOut(**entry.__dict__) for entry in entries])
