""""Nochmal" at the same table (lobby `POST /tables/{id}/rematch`): after a game with other humans the players'
seats are kept for them for two minutes; the next game starts once everyone is back (docs/services/lobby.md,
"Rematch"). The game page knows only the game: the table is the lobby's listed table whose game it was."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from services.web.api import ApiError
from services.web.pages import Page

router = APIRouter(include_in_schema=False)
TABLE_GONE = "Diesen Tisch gibt es nicht mehr; eröffne auf der Startseite einen neuen."


async def table_of_game(page: Page, game_id: str) -> dict[str, Any] | None:
    """The lobby's table whose current game is `game_id` (finished, waiting for "Nochmal", or reopened)."""
    lists = await asyncio.gather(*(page.call("lobby", "GET", "/tables", params={"status": status})
                                   for status in ("finished", "rematch", "open")), return_exceptions=True)
    for tables in lists:
        if isinstance(tables, list):
            for table in tables:
                if table.get("game_id") == game_id:
                    return dict(table)
    return None


@router.post("/spiel/{game_id}/nochmal")
async def again_at_the_table(game_id: str, request: Request) -> Response:
    page = Page(request)
    await page.form()
    if not page.token:
        return page.redirect("/")
    table = await table_of_game(page, game_id)
    if table is None:
        return page.render("message.html", status=404, title="Nochmal", message=TABLE_GONE)
    try:
        answer = await page.call("lobby", "POST", f"/tables/{table['table_id']}/rematch")
    except ApiError as error:
        if error.code != "already_back":
            return page.render("message.html", status=error.status if error.status < 500 else 503,
                               title="Nochmal", message=error.detail)
        answer = table
    if answer.get("status") == "playing" and answer.get("game_id") and answer.get("game_id") != game_id:
        return page.redirect(f"/spiel/{answer['game_id']}")
    return page.redirect(f"/tisch/{table['table_id']}")
