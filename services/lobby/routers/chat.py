"""Table chat: `POST /games/{game_id}/chat`, `GET /games/{game_id}/chat`, `GET /games/{game_id}/chat/live`."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query
from starlette.responses import StreamingResponse

from libs.platform.http_errors import refusals
from libs.platform.service import CurrentPlayer, RuntimeDep
from services.lobby import chat
from services.lobby.schemas import ChatBody

router = APIRouter(prefix="/games/{game_id}/chat", tags=["chat"], responses=refusals(403, 404, 409, 429))


@router.post("", status_code=201)
async def post_message(game_id: str, body: ChatBody, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """Write to the game's chat (seated humans, while the game runs); author and seat come from the token."""
    return await chat.post_message(runtime, player, game_id, body.text)


@router.get("")
async def read_messages(game_id: str, player: CurrentPlayer, runtime: RuntimeDep,
                        after: Annotated[int, Query(ge=0)] = 0,
                        limit: Annotated[int, Query(ge=1, le=chat.READ_LIMIT)] = 50) -> dict[str, Any]:
    """The game's messages after number `after`, oldest first."""
    return await chat.read_messages(runtime, player, game_id, after, limit)


@router.get("/live")
async def live_messages(game_id: str, player: CurrentPlayer, runtime: RuntimeDep,
                        after: Annotated[int, Query(ge=0)] = 0,
                        last_event_id: Annotated[str | None, Header()] = None) -> StreamingResponse:
    """Server-sent events: the messages after `after` (or the `Last-Event-ID`), then each new one once stored."""
    since = int(last_event_id) if last_event_id and last_event_id.isdigit() else after
    return await chat.live_messages(runtime, player, game_id, since)
