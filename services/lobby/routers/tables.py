"""Tables: solo games, open tables, join, leave, start, rematch."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from libs.platform.http_errors import refusals
from libs.platform.service import CurrentPlayer, RuntimeDep
from services.lobby import modes, tables
from services.lobby.schemas import OpenTableBody, SoloBody

router = APIRouter(prefix="/tables", tags=["tables"], responses=refusals(403, 404, 409, 429, 503))


@router.post("/solo", status_code=201)
async def create_solo(body: SoloBody, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """You against 1–3 computers, started at once; the reply carries the `game_id`."""
    return await tables.start_solo(runtime, player, body.game, body.settings, body.opponents, body.bot_level)


@router.post("", status_code=201)
async def create_table(body: OpenTableBody, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """Open a table for 2–4 players; you take seat 0 and host it."""
    return await tables.open_table(runtime, player, body.game, body.settings, body.player_count,
                                   body.bot_level, body.fill_with_bots)


@router.get("")
async def list_tables(runtime: RuntimeDep, status: str = "open",
                      limit: Annotated[int, Query(ge=1, le=tables.LIST_LIMIT)] = tables.LIST_LIMIT,
                      ) -> list[dict[str, Any]]:
    """Tables by status, newest first, at most `limit` (100); open tables only while a seat is free; solo tables
    never (no token needed: what a visitor may look at, e.g. the running games to watch)."""
    return await tables.list_tables(runtime, status, limit)


@router.get("/{table_id}")
async def show_table(table_id: str, runtime: RuntimeDep) -> dict[str, Any]:
    """One table: seats, status, settings, host and current game."""
    return await tables.show_table(runtime, table_id)


@router.post("/{table_id}/join")
async def join_table(table_id: str, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """Take the lowest free seat of an open table."""
    return await tables.join_table(runtime, player, table_id)


@router.post("/{table_id}/leave")
async def leave_table(table_id: str, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """Stand up before the start."""
    return await tables.leave_table(runtime, player, table_id)


@router.post("/{table_id}/start")
async def start_table(table_id: str, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """Start the game (host only)."""
    return await tables.start_table(runtime, player, table_id)


@router.post("/{table_id}/rematch")
async def rematch_table(table_id: str, player: CurrentPlayer, runtime: RuntimeDep,
                        next_stage: bool = False) -> dict[str, Any]:
    """"Nochmal" after the game: solo starts the next game at once; with others, your seat is yours again.

    At a solo mode table the next game is in the same mode (daily: the next attempt; campaign: the same
    stage, or the next one with `next_stage=true`).
    """
    in_mode = await modes.rematch_mode_table(runtime, player, table_id, next_stage)
    if in_mode is not None:
        return in_mode
    return await tables.rematch_table(runtime, player, table_id)
