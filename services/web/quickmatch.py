""""Schnell spielen" (lobby `POST /match`): the form on the start page, the waiting page that asks the lobby
every 2 s how the search stands (htmx polling; each look is the search's heartbeat, so a closed page ends the
search within the lobby's MATCH_HEARTBEAT_SECONDS), "Abbrechen", and the way to the game page once seated."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from services.web import forms
from services.web.api import ApiError
from services.web.pages import Page
from services.web.start import as_a_player, signed_in, start_page

router = APIRouter(include_in_schema=False)


@router.post("/schnell")
async def enter_queue(request: Request) -> Response:
    """Lobby `POST /match` (a visitor without a session waits as a new guest)."""
    page = Page(request)
    form = await page.form()
    try:
        match = await as_a_player(page, lambda: page.call("lobby", "POST", "/match", json=forms.read_quick_match(form)))
    except ApiError as error:
        return signed_in(page, await start_page(page, errors={"match": error.detail},
                                                status=error.status if error.status < 500 else 503))
    return signed_in(page, page.redirect(f"/schnell/{match['match_id']}"))


async def _waiting_page(page: Page, match_id: str, error: str = "") -> Response:
    try:
        match = await page.call("lobby", "GET", f"/match/{match_id}")
    except ApiError as failure:
        return page.render("message.html", status=failure.status if failure.status < 500 else 503,
                           title="Schnell spielen", message=failure.detail)
    if match.get("status") == "seated" and match.get("game_id"):
        return page.redirect(f"/spiel/{match['game_id']}")
    context: dict[str, Any] = {"match": match, "match_id": match_id, "error": error,
                               "title_of": await _title_of(page, match)}
    # 286 tells htmx to stop polling: a cancelled or dropped search does not change any more.
    status = 286 if page.is_htmx and match.get("status") != "waiting" else 200
    return page.render("_quick_match.html" if page.is_htmx else "quick_match.html", status=status,
                       title="Schnell spielen", **context)


async def _title_of(page: Page, match: dict[str, Any]) -> str:
    """"Speedmosaik – Kachelwand": the list the player waits in, as the form named it."""
    try:
        game = await page.call("lobby", "GET", f"/games/{match['game']}")
    except ApiError:
        return str(match.get("game"))
    chosen = f"{match['game']}/{match['variant']}"
    for choice in forms.quick_match_fields([game])[0].choices:
        if choice.value == chosen:
            return choice.text
    return str(match.get("game"))


@router.get("/schnell/{match_id}", response_class=HTMLResponse)
async def waiting_page(match_id: str, request: Request) -> Response:
    page = Page(request)
    if not page.token:
        return page.redirect("/")
    return await _waiting_page(page, match_id)


@router.post("/schnell/{match_id}/abbrechen", response_class=HTMLResponse)
async def cancel(match_id: str, request: Request) -> Response:
    page = Page(request)
    await page.form()
    if not page.token:
        return page.redirect("/")
    try:
        await page.call("lobby", "DELETE", f"/match/{match_id}")
    except ApiError as error:
        if error.code != "already_seated":
            return await _waiting_page(page, match_id, error=error.detail)
    return await _waiting_page(page, match_id)
