"""Replay: a finished game step by step (table `GET /games/{id}/replay?n=&seat=`, docs/replay.md), drawn by the
game's board renderer, with the audit's verdict (`GET /games/{id}/audit`) and the export as a download
(`GET /games/{id}/export`). Players see their own seat (or the public view); operators sign in on `/betrieb`
with an operator token (`speed operator-token NAME`) and see any seat or the whole game.

The operator's token lives in its own HttpOnly cookie (`speed_operator`), beside the player's session: a
player who runs the platform stays signed in as a player, and the start page (which checks the session with
the lobby, where an operator token means nothing) never drops it."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from services.web.api import UNAVAILABLE, ApiError
from services.web.boards import renderer_for
from services.web.pages import Page, _me
from services.web.security import drop_cookie, set_cookie

router = APIRouter(include_in_schema=False)
OPERATOR_COOKIE = "speed_operator"


class ReplayPage(Page):
    """A page that reads the table as the operator when one is signed in, else as the player."""

    def __init__(self, request: Request) -> None:
        super().__init__(request)
        self.operator_token = request.cookies.get(OPERATOR_COOKIE) or None
        self.player_token = self.token
        if self.operator_token:
            self.token = self.operator_token


def _seat_choice(text: str) -> str:
    return text if text in ("all", "public") or text.isdigit() else ""


async def _default_seat(page: ReplayPage, game_id: str) -> str:
    """An operator sees the whole game; a player their own seat (their view of the ended game), else the public."""
    if page.operator_token:
        return "all"
    try:
        view = await page.call("table", "GET", f"/games/{game_id}/view")
    except ApiError:
        return "public"
    return str(view["you"]) if isinstance(view.get("you"), int) else "public"


def _boards(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The step's board(s), drawn by the game's renderer without move buttons (nothing is played here); for
    the whole game each seat's board as that seat saw it."""
    view = {**(answer.get("view") or {}), "legal_moves": [], "can_undo": False}
    renderer = renderer_for(str(view.get("game", "")))
    seat_boards = view.pop("seat_boards", None)
    boards = [{"title": "Tisch" if seat_boards else "", "html": renderer.render(view)}]
    for index, board in enumerate(seat_boards or []):
        seats = view.get("seats") or []
        name = (seats[index].get("name") if index < len(seats) else None) or "Computer"
        boards.append({"title": f"Sicht von {name}",
                       "html": renderer.render({**view, "board": board, "you": index})})
    return boards


@router.get("/wiederholung/{game_id}", response_class=HTMLResponse)
async def replay(game_id: str, request: Request, n: str = "", sicht: str = "") -> Response:
    page = ReplayPage(request)
    if not page.token:
        return page.redirect("/")
    seat = _seat_choice(sicht) or await _default_seat(page, game_id)
    step = int(n) if n.isdigit() and int(n) > 0 else 1
    try:
        answer = await page.call("table", "GET", f"/games/{game_id}/replay", params={"n": step, "seat": seat})
    except ApiError as error:
        if error.code == "no_such_event" and step > 1:  # past the last step: show the last one
            answer = None
        else:
            return page.render("message.html", status=error.status if error.status < 500 else 503,
                               title="Wiederholung", message=error.detail)
    if answer is None:
        first = await page.call("table", "GET", f"/games/{game_id}/replay", params={"n": 1, "seat": seat})
        answer = await page.call("table", "GET", f"/games/{game_id}/replay",
                                 params={"n": first.get("of", 1), "seat": seat})
    context = {"game_id": game_id, "step": answer, "seat": seat, "boards": _boards(answer),
               "seats": (answer.get("view") or {}).get("seats") or [], "operator": bool(page.operator_token)}
    if page.is_htmx and not request.headers.get("hx-history-restore-request"):
        return page.render("_replay.html", **context)
    audit, me = await asyncio.gather(_audit(page, game_id), _me(_as_player(page)))
    return page.render("replay.html", title="Wiederholung", audit=audit, me=me, **context)


def _as_player(page: ReplayPage) -> Page:
    player = Page(page.request)
    player.token = page.player_token
    return player


async def _audit(page: Page, game_id: str) -> dict[str, Any]:
    try:
        audit: dict[str, Any] = await page.call("table", "GET", f"/games/{game_id}/audit")
        return audit
    except ApiError as error:
        return {"error": error.detail}


@router.get("/wiederholung/{game_id}/export")
async def export(game_id: str, request: Request) -> Response:
    """The table's export (`speed-game-export/1`, what `speed audit FILE` checks) as a download, read with the
    cookie's token (the operator's whole export, or the player's with the others' private parts as digests)."""
    page = ReplayPage(request)
    if not page.token:
        return page.redirect("/")
    try:
        answer = await page.api.clients["table"].get(
            f"/games/{game_id}/export", headers={"Authorization": f"Bearer {page.token}",
                                                 "X-Forwarded-For": page.client_ip or ""})
    except httpx.HTTPError:
        return page.render("message.html", status=503, title="Export", message=UNAVAILABLE)
    if answer.status_code >= 400:
        try:
            detail = str(answer.json().get("detail") or "Das hat nicht geklappt.")
        except ValueError:
            detail = "Das hat nicht geklappt."
        return page.render("message.html", status=answer.status_code if answer.status_code < 500 else 503,
                           title="Export", message=detail if answer.status_code < 500 else UNAVAILABLE)
    safe_id = "".join(ch for ch in game_id if ch.isalnum() or ch in "-_")[:80] or "partie"
    response = Response(answer.content, media_type="application/json", headers={
        "Content-Disposition": f'attachment; filename="speed-partie-{safe_id}.json"'})
    return page.finish(response)


# ---- operators ---------------------------------------------------------------------------------------------

@router.get("/betrieb", response_class=HTMLResponse)
async def operator_page(request: Request) -> Response:
    page = ReplayPage(request)
    return page.render("operator.html", title="Betrieb", signed_in=bool(page.operator_token), error="")


@router.post("/betrieb", response_class=HTMLResponse)
async def operator_sign_in(request: Request) -> Response:
    """Paste an operator token (`speed operator-token NAME`); it goes into the HttpOnly `speed_operator` cookie.
    The table checks it on every read (the web cannot: it holds no secret); the page only checks its shape."""
    page = ReplayPage(request)
    form = await page.form()
    token = form.get("token", "").strip()
    if not token or len(token) > 4096 or any(ch.isspace() for ch in token):
        return page.render("operator.html", status=422, title="Betrieb", signed_in=False,
                           error="Das ist kein Betriebs-Token (erzeugt mit „speed operator-token NAME“).")
    response = page.redirect("/betrieb")
    set_cookie(response, request, OPERATOR_COOKIE, token, page.settings.web_cookie_secure)
    return response


@router.post("/betrieb/abmelden")
async def operator_sign_out(request: Request) -> Response:
    page = ReplayPage(request)
    await page.form()
    response = page.redirect("/betrieb")
    drop_cookie(response, request, OPERATOR_COOKIE, page.settings.web_cookie_secure)
    return response

