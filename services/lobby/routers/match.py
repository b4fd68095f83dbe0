"""Quick match ("Schnell spielen"): enter the queue, look at it (the heartbeat), leave it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from libs.platform.http_errors import refusals
from libs.platform.service import CurrentPlayer, RuntimeDep
from services.lobby import matchmaking
from services.lobby.schemas import MatchBody

router = APIRouter(prefix="/match", tags=["match"], responses=refusals(404, 409, 503))


@router.post("", status_code=201)
async def enter_queue(body: MatchBody, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """Wait for players of like rating in the game's variant at 2, 3 or 4 seats (or "2–4"), stake held.

    The reply is the match (`status: "waiting"`, `match_id`); ask `GET /match/{match_id}` at least every
    `heartbeat_seconds` (else you are dropped) until it says `seated`, with `table_id`, `game_id` and the
    table. 409 `already_queued` while you wait elsewhere; 409 "Nicht genug Taler …" for a stake you cannot
    pay; 422 for an unknown game or variant, a seat count the game does not allow, or a stake not offered.
    """
    return await matchmaking.enter_queue(runtime, player, body.game, body.variant, body.seats, body.stake,
                                         body.fill_after)


@router.get("/{match_id}")
async def look_at(match_id: str, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """Your match as it stands: `waiting` (with the current rating window), `seated` (where the game is:
    `game_id`, `table_id`, `table`), `cancelled` or `dropped` (with the German `reason`). Counts as your
    heartbeat while you wait."""
    return await matchmaking.look_at(runtime, player, match_id)


@router.delete("/{match_id}")
async def cancel(match_id: str, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """Stop waiting; a held stake goes back. 409 `already_seated` once a table was found (the game is on)."""
    return await matchmaking.cancel(runtime, player, match_id)
