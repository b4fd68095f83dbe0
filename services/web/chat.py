"""The table chat on the game page (lobby `POST/GET /games/{id}/chat`, `GET /games/{id}/chat/live`): a small
panel where the game has other humans and allows chat, messages escaped, 300 characters, the lobby's German
refusals (too long, too many: "Zu viele Nachrichten im Tisch-Chat. …") beside the field. Live through this
service's own proxy, as the game's stream: the browser's URL never carries the token."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse

from services.web.api import ApiError
from services.web.pages import KEEP_ALIVE_SECONDS, TEMPLATES, Page, sse_event

router = APIRouter(include_in_schema=False)
MAX_CHARS = 300


@router.get("/spiel/{game_id}/chat", response_class=HTMLResponse)
async def chat_panel(game_id: str, request: Request) -> Response:
    """The panel (loaded by the game page): nothing at a table without other humans or where chat is off."""
    page = Page(request)
    if not page.token:
        return page.finish(HTMLResponse(""))
    try:
        view, chat = await asyncio.gather(page.call("table", "GET", f"/games/{game_id}/view"),
                                          page.call("lobby", "GET", f"/games/{game_id}/chat", params={"limit": 100}))
    except ApiError:
        return page.finish(HTMLResponse(""))  # chat off in this variant, not seated, unknown to the lobby
    humans = sum(1 for seat in view.get("seats") or [] if seat.get("kind") == "human")
    if humans < 2:
        return page.finish(HTMLResponse(""))
    messages = chat.get("messages") or []
    last = max((int(message.get("seq") or 0) for message in messages), default=0)
    return page.render("_chat.html", game_id=game_id, messages=messages, last=last, open=bool(chat.get("open")),
                       max_chars=int(chat.get("max_chars") or MAX_CHARS), text="", error="")


@router.post("/spiel/{game_id}/chat", response_class=HTMLResponse)
async def chat_post(game_id: str, request: Request) -> Response:
    """Lobby `POST /games/{id}/chat`; the message itself arrives through the live stream, as for the others."""
    page = Page(request)
    form = await page.form()
    text = form.get("text", "")
    error = ""
    try:
        await page.call("lobby", "POST", f"/games/{game_id}/chat", json={"text": text})
        text = ""
    except ApiError as failure:
        error = failure.detail
    # Only the form's inside is swapped: the form itself (and htmx's hold on it) stays, so a message typed at
    # once after the last one is never sent by the browser on its own.
    return page.render("_chat_fields.html", game_id=game_id, text=text, error=error, max_chars=MAX_CHARS, open=True,
                       focus=True)


@router.get("/spiel/{game_id}/chat/live")
async def chat_live(game_id: str, request: Request, nach: str = "") -> Response:
    """Server-sent events for htmx: `chat`, one list item per message (`id`: its number)."""
    page = Page(request)
    if not page.token:
        return Response(status_code=401)
    last = request.headers.get("last-event-id", "")
    after = last if last.isdigit() else (nach if nach.isdigit() else "0")
    return StreamingResponse(_live(page, game_id, after), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def _live(page: Page, game_id: str, after: str) -> AsyncIterator[bytes]:
    template = TEMPLATES.get_template("_chat_message.html")
    try:
        async with page.api.stream("lobby", f"/games/{game_id}/chat/live?after={after}", token=page.token,
                                   client_ip=page.client_ip) as answer:
            async for message in _messages(answer.aiter_lines()):
                if message is None:  # the lobby's keep-alive, passed on (a closed browser is noticed)
                    yield b": keep-alive\n\n"
                else:
                    yield sse_event("chat", template.render({"m": message}), message.get("seq"))
    except ApiError as error:
        yield sse_event("chatnotice", TEMPLATES.get_template("_notice.html").render({"message": error.detail}), None)
        while not await page.request.is_disconnected():  # no reconnect loop after a refusal
            await asyncio.sleep(KEEP_ALIVE_SECONDS)
            yield b": keep-alive\n\n"


async def _messages(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, Any] | None]:
    """The stream's messages; None for each keep-alive comment."""
    data: list[str] = []
    async for line in lines:
        if line.startswith(":"):
            yield None
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif line == "" and data:
            try:
                message = json.loads("\n".join(data))
            except ValueError:
                message = None
            if isinstance(message, dict):
                yield message
            data = []
