"""Zuschauen: the running games open to watching, and a spectator page that follows one live.

Open to watching are the games at the lobby's tables that are not solo (lobby `GET /tables?status=playing`:
open tables and quick-match tables; solo tables, the solo modes' daily games and campaigns among them, are never
listed; the platform has no private tables). The spectator page shows exactly the table's spectator view (table
`GET /games/{id}` and `GET /games/{id}/live` without a token: no seat, so no seat's hand, rack or hidden tiles),
drawn by the game's board renderer without move controls, under a strip of the seats with their scores. No
sign-in is needed; the page never sends the visitor's token to the table."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from markupsafe import Markup

from services.web import metrics
from services.web.api import ApiError
from services.web.boards import renderer_for
from services.web.pages import TEMPLATES, Page, _me, idle_after_end, live_views, sse_event
from services.web.start import shown_games

router = APIRouter(include_in_schema=False)
NOT_WATCHABLE = "Diese Partie kann man nicht (mehr) ansehen: sie ist beendet, oder es ist ein Solo-Spiel."


async def running_tables(page: Page) -> list[dict[str, Any]]:
    """The lobby's running tables (newest first, at most 100) of the games players are offered."""
    tables, games = await asyncio.gather(page.call("lobby", "GET", "/tables", params={"status": "playing"}),
                                         page.call("lobby", "GET", "/games"))
    titles = {game["game"]: str((game.get("spec") or {}).get("title") or game["game"])
              for game in shown_games(page, games)}
    return [{**table, "title": titles[table["game"]]} for table in tables
            if table.get("game") in titles and table.get("game_id")]


@router.get("/zuschauen", response_class=HTMLResponse)
async def watch_list(request: Request) -> Response:
    page = Page(request)
    try:
        tables, me = await asyncio.gather(running_tables(page), _me(page))
    except ApiError as error:
        return page.render("message.html", status=error.status if error.status < 500 else 503,
                           title="Zuschauen", message=error.detail)
    return page.render("watch_list.html", title="Zuschauen", tables=tables, me=me)


def seat_strip(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Each seat of the spectator's view: name, computer or not, score (the board's optional `seat_scores`),
    whether it is to move, its place after the end."""
    renderer = renderer_for(str(view.get("game", "")))
    scores_of = getattr(renderer, "seat_scores", None)
    scores = list(scores_of(view)) if callable(scores_of) else []
    outcome = view.get("outcome") or {}
    places, points = outcome.get("places") or [], outcome.get("scores") or []
    to_move = set(view.get("to_move") or []) | set(view.get("may_act") or [])
    strip = []
    for index, seat in enumerate(view.get("seats") or []):
        score = scores[index] if index < len(scores) else None
        if score is None and index < len(points) and points[index] is not None:
            score = f"{points[index]} {'Punkt' if points[index] == 1 else 'Punkte'}"
        strip.append({"seat": index, "name": seat.get("name") or "Computer", "bot": seat.get("kind") == "bot",
                      "score": score, "to_move": index in to_move and view.get("status") != "ended",
                      "place": places[index] if index < len(places) else None, "left": bool(seat.get("left"))})
    return strip


def watch_context(view: dict[str, Any], title: str) -> dict[str, Any]:
    """What `_watch.html` draws: the seats and the board of the spectator's view, never a move control."""
    started = time.perf_counter()
    shown = {**view, "you": None, "legal_moves": [], "can_undo": False}
    board = renderer_for(str(view.get("game", ""))).render(shown)
    metrics.BOARD_SECONDS.labels(str(view.get("game", ""))).observe(time.perf_counter() - started)
    return {"view": view, "board": board, "seats": seat_strip(view), "game_title": title,
            "ended": view.get("status") == "ended"}


async def _watchable(page: Page, game_id: str) -> dict[str, Any] | None:
    """The running table of `game_id` when it is open to watching, else None."""
    for table in await running_tables(page):
        if table.get("game_id") == game_id:
            return table
    return None


@router.get("/zuschauen/{game_id}", response_class=HTMLResponse)
async def watch_page(game_id: str, request: Request) -> Response:
    page = Page(request)
    try:
        table, me = await asyncio.gather(_watchable(page, game_id), _me(page))
        if table is None:
            return page.render("message.html", status=404, title="Zuschauen", message=NOT_WATCHABLE, me=me)
        view = await page.api.call("table", "GET", f"/games/{game_id}", client_ip=page.client_ip)
    except ApiError as error:
        return page.render("message.html", status=error.status if error.status < 500 else 503,
                           title="Zuschauen", message=error.detail)
    return page.render("watch.html", title=f"{table['title']} ansehen", game_id=game_id, me=me,
                       **watch_context(view, table["title"]))


@router.get("/zuschauen/{game_id}/live")
async def watch_live(game_id: str, request: Request) -> Response:
    """Server-sent events for htmx: `watch`, the seats and the board after every event (table `GET
    /games/{id}/live` without a token: the spectator's stream)."""
    page = Page(request)
    try:
        table = await _watchable(page, game_id)
    except ApiError as error:
        return Response(status_code=error.status if error.status < 500 else 503)
    if table is None:
        return Response(status_code=404)
    return StreamingResponse(_stream(page, game_id, str(table["title"])), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def _stream(page: Page, game_id: str, title: str) -> AsyncIterator[bytes]:
    fragment = TEMPLATES.get_template("_watch.html")
    try:
        async with page.api.stream("table", f"/games/{game_id}/live", token=None,
                                   client_ip=page.client_ip) as answer:
            async for view in live_views(answer.aiter_lines()):
                started = time.perf_counter()
                yield sse_event("watch", fragment.render({"game_id": game_id, **watch_context(view, title)}))
                metrics.LIVE_UPDATE_SECONDS.observe(time.perf_counter() - started)
        async for alive in idle_after_end(page):
            yield alive
    except ApiError as error:
        yield sse_event("watch", Markup('<p class="error" role="alert">{}</p>').format(error.detail))
