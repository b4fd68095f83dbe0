"""The start page and the one-click start: every game with its picture, its title and a line about it before
anyone signs in; "Spielen" starts a game against one computer (normal) with the game's defaults, as a guest with
a generated name when the visitor has no session; "Optionen" holds every setting (generated from the lobby's
description, `forms.py`). Beside the games: "Weiterspielen", "Schnell spielen", the open tables, running games
to watch, and (secondary) the guest name, sign-up and log-in."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from services.web import forms
from services.web.api import ApiError
from services.web.boards import renderer_for
from services.web.pages import Page, _me, _wallet
from services.web.security import SESSION_COOKIE, drop_cookie, set_cookie

router = APIRouter(include_in_schema=False)
RUNNING_ON_START = 5
"""How many running games the start page names under "Zuschauen" (the whole list is on /zuschauen)."""
GUEST_NAME_TRIES = 4

GAME_LINES = {
    "speedmosaik": "Fliesen aus Schalen nehmen und Muster legen – in drei Werkstätten.",
    "speednova": "Sechseck-Steine in sechs Sternfarben legen; deine schwächste Farbe zählt.",
    "speedkoi": "Laternen auf fünf Pfaden auslegen, Pilger und Meister voranbringen.",
    "speedspore": "Eine Insel besiedeln, Rohstoffe tauschen und den Schimmel fernhalten.",
}
"""A line about each game for the start page; a game without one gets its player counts."""


def game_line(game: dict[str, Any]) -> str:
    """The start page's line about `game` (the lobby's description), and who plays it."""
    counts = sorted(n for n in (game.get("spec") or {}).get("seat_counts") or [] if isinstance(n, int) and n > 1)
    alone = 1 in ((game.get("spec") or {}).get("seat_counts") or [])
    players = ""
    if counts:
        players = f"{counts[0]} Spieler" if counts[0] == counts[-1] else f"{counts[0]}–{counts[-1]} Spieler"
        players = f"Allein oder {players}" if alone else players
    line = GAME_LINES.get(str(game.get("game")), "")
    return " ".join(part for part in (line, players + "." if players else "") if part)


_THUMBNAILS: dict[str, Markup] = {}


def thumbnail(game: str, title: str) -> Markup:
    """The game's picture: its board renderer's optional `thumbnail()`, else a plain card with its initial."""
    cached = _THUMBNAILS.get(game)
    if cached is not None:
        return cached
    drawn = getattr(renderer_for(game), "thumbnail", None)
    picture = Markup(drawn()) if callable(drawn) else Markup(
        '<svg class="thumb-plain" viewBox="0 0 120 80" role="img" aria-label="{title}"><title>{title}</title>'
        '<rect x="2" y="2" width="116" height="76" rx="10"/><text x="60" y="54" text-anchor="middle">{letter}'
        '</text></svg>').format(title=title, letter=(title[:1] or "?").upper())
    _THUMBNAILS[game] = picture
    return picture


_TITLES: dict[str, tuple[float, str]] = {}
TITLE_SECONDS = 300.0


async def game_title(page: Page, game: str) -> str:
    """The game's title as players read it (lobby `GET /games/{game}`, `spec.title`; kept 5 minutes)."""
    cached = _TITLES.get(game)
    if cached is not None and time.monotonic() - cached[0] < TITLE_SECONDS:
        return cached[1]
    try:
        description = await page.call("lobby", "GET", f"/games/{game}")
    except ApiError:
        return game.capitalize()
    title = str((description.get("spec") or {}).get("title") or game.capitalize())
    _TITLES[game] = (time.monotonic(), title)
    return title


def shown_games(page: Page, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The games players are offered: test games (the lobby's `test_game`) only with WEB_SHOW_TEST_GAMES."""
    return [game for game in games if page.settings.web_show_test_games or not game.get("test_game")]


def offer_of(game: dict[str, Any]) -> dict[str, Any]:
    """One game's card: picture, title, line, and the fields of its "Optionen" and open-table forms."""
    title = str((game.get("spec") or {}).get("title") or game["game"])
    return {"game": game["game"], "title": title, "line": game_line(game), "picture": thumbnail(game["game"], title),
            "fields": forms.rule_fields(game), "platform": forms.platform_fields(game),
            "opponents": forms.opponent_field(game), "level": forms.level_field(game),
            "seat_count": forms.seat_count_field(game),
            "table_platform": forms.platform_fields(game, forms.TABLE_PLATFORM_KEYS)}


async def _quiet(answer: Any, default: Any) -> Any:
    try:
        return await answer
    except ApiError:
        return default


async def start_page(page: Page, errors: dict[str, str] | None = None, status: int = 200,
                     values: dict[str, str] | None = None) -> Response:
    """The start page, for visitors and players alike (a player also sees "Weiterspielen" and the wallet)."""
    me = await _me(page)
    games, open_tables, running = await asyncio.gather(
        page.call("lobby", "GET", "/games"),
        _quiet(page.call("lobby", "GET", "/tables", params={"status": "open"}), []),
        _quiet(page.call("lobby", "GET", "/tables", params={"status": "playing", "limit": 20}), []))
    unfinished: list[dict[str, Any]] = []
    wallet: int | None = None
    if me is not None:
        unfinished, wallet = await asyncio.gather(_quiet(page.call("lobby", "GET", "/me/unfinished"), []),
                                                  _wallet(page))
    games = shown_games(page, games)
    titles = {game["game"]: str((game.get("spec") or {}).get("title") or game["game"]) for game in games}
    response = page.render(
        "start.html", status=status, title="Start", me=me, offers=[offer_of(game) for game in games],
        titles=titles, unfinished=[u for u in unfinished if u.get("game") in titles],
        open_tables=[t for t in open_tables if t.get("game") in titles],
        running=[t for t in running if t.get("game") in titles and t.get("game_id")][:RUNNING_ON_START],
        errors=errors or {}, values=values or {}, wallet=wallet, quick=forms.quick_match_fields(games))
    if me is None and page.token:  # a token the lobby no longer knows: forget it
        drop_cookie(response, page.request, SESSION_COOKIE, page.settings.web_cookie_secure)
    return response


@router.get("/", response_class=HTMLResponse)
async def start(request: Request) -> Response:
    return await start_page(Page(request))


async def as_new_guest(page: Page, name: str = "") -> str:
    """Sign the visitor up as a guest (lobby `POST /guests`), named `name` or "Gast 4821" (a number drawn until
    the lobby takes it); the token becomes the page's, and `signed_in` puts it into the answer's cookie."""
    tries = 1 if name else GUEST_NAME_TRIES
    for attempt in range(tries):
        try:
            answer = await page.api.call("lobby", "POST", "/guests", client_ip=page.client_ip,
                                         json={"name": name or f"Gast {1000 + secrets.randbelow(9000)}"})
        except ApiError as error:
            if name or error.status != 409 or attempt == tries - 1:
                raise
            continue
        page.token = str(answer["token"])
        page.request.state.new_token = page.token
        break
    return page.token or ""


def _new_token(page: Page) -> str:
    """The token of a guest signed up while answering this request, or ""."""
    return str(getattr(page.request.state, "new_token", "") or "")


def signed_in(page: Page, response: Response) -> Response:
    """`response`, with the session cookie of a guest signed up while answering the request."""
    token = _new_token(page)
    if token:
        set_cookie(response, page.request, SESSION_COOKIE, token, page.settings.web_cookie_secure)
    return response


async def as_a_player(page: Page, call: Callable[[], Awaitable[Any]]) -> Any:
    """`call()` as the visitor's player: a new guest first when there is no session, or when the lobby no longer
    knows the session's token (401)."""
    if not page.token:
        await as_new_guest(page)
    try:
        return await call()
    except ApiError as error:
        if error.status != 401 or _new_token(page):
            raise
    await as_new_guest(page)
    return await call()


@router.post("/spielen")
@router.post("/solo")
async def play(request: Request) -> Response:
    """Lobby `POST /tables/solo`: "Spielen" (one computer, normal, the game's defaults) or the "Optionen" form
    (or "Nochmal": the finished game's settings as they were); then the game page."""
    page = Page(request)
    form = await page.form()
    game = form.get("game", "")
    try:
        description = await page.call("lobby", "GET", f"/games/{game}")
        opponents = int(form["opponents"]) if form.get("opponents", "").isdigit() else 1
        settings = {**forms.read_settings(description, form, seats=1 + opponents),
                    **forms.read_platform(description, form)}
        if form.get("again"):  # "Nochmal": the finished game's settings as they were
            again = forms.json_object(form["again"])
            settings = again if again is not None else settings
        body = {"game": game, "settings": settings, "opponents": opponents,
                "bot_level": form.get("bot_level", "normal")}
        table = await as_a_player(page, lambda: page.call("lobby", "POST", "/tables/solo", json=body))
    except ApiError as error:
        return signed_in(page, await start_page(page, errors={f"solo:{game}": error.detail},
                                                status=error.status if error.status < 500 else 503))
    return signed_in(page, page.redirect(f"/spiel/{table['game_id']}"))
