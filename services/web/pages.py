"""The pages: start (guest, sign up, log in, log out), the games with their settings forms, a solo table
against computers, and the game page with its live stream. Every page is built from the other services'
public HTTP APIs with the player's token from the session cookie."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from libs.platform.ratelimit import client_address
from libs.platform.settings import Settings
from services.web import forms, game_view, metrics
from services.web.api import Api, ApiError
from services.web.boards import renderer_for
from services.web.security import (
    CSRF_COOKIE,
    CSRF_FIELD,
    CSRF_HEADER,
    SESSION_COOKIE,
    csrf_seed,
    csrf_token,
    csrf_valid,
    drop_cookie,
    set_cookie,
)

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
TEMPLATES.env.autoescape = True  # every template, whatever its name: typed text is always escaped
TEMPLATES.env.filters["fieldtext"] = forms.field_text
TEMPLATES.env.filters["phrase"] = lambda value: game_view.phrase_text(value) or ("" if value is None else str(value))
router = APIRouter(include_in_schema=False)
KEEP_ALIVE_SECONDS = 15.0
ENDED_STREAM_SECONDS = 600.0
"""After the end the page keeps its stream open (idle) so the browser does not reconnect in a loop."""


class Page:
    """One request's context: settings, API, the session token, the CSRF token for the page."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self.settings: Settings = request.app.state.settings
        self.api: Api = request.app.state.api
        self.token = request.cookies.get(SESSION_COOKIE) or None
        self.seed, self.new_seed = csrf_seed(request)
        self.csrf = csrf_token(self.settings.auth_secret, self.seed)
        self.client_ip = client_address(request.scope, self.settings.trusted_proxies)
        self.is_htmx = request.headers.get("hx-request") == "true"

    async def call(self, service: str, method: str, path: str, **kwargs: Any) -> Any:
        return await self.api.call(service, method, path, token=self.token, client_ip=self.client_ip, **kwargs)

    def render(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        started = time.perf_counter()
        response = TEMPLATES.TemplateResponse(self.request, template, {"csrf": self.csrf, **context},
                                              status_code=status)
        metrics.RENDER_SECONDS.labels(template).observe(time.perf_counter() - started)
        self.finish(response)
        return response

    def finish(self, response: Response) -> Response:
        if self.new_seed:
            set_cookie(response, self.request, CSRF_COOKIE, self.seed, self.settings.web_cookie_secure)
        response.headers["Cache-Control"] = "no-store"
        return response

    def redirect(self, to: str) -> Response:
        if self.is_htmx:
            response: Response = Response(status_code=204, headers={"HX-Redirect": to})
        else:
            response = RedirectResponse(to, status_code=303)
        return self.finish(response)

    async def form(self) -> dict[str, str]:
        """The posted form, after the CSRF check (403 page otherwise)."""
        raw = await self.request.form()
        form = {key: str(value) for key, value in raw.items() if isinstance(value, str)}
        presented = self.request.headers.get(CSRF_HEADER) or form.get(CSRF_FIELD)
        if not csrf_valid(self.settings.auth_secret, self.request, presented):
            raise Forbidden()
        return form


class Forbidden(Exception):
    """A state-changing request without a valid CSRF token."""


def forbidden_page(request: Request) -> Response:
    page = Page(request)
    return page.render("message.html", status=403, title="Abgelehnt",
                       message="Diese Seite ist abgelaufen oder kam nicht von hier. Bitte lade sie neu.")


# ---- start, accounts -----------------------------------------------------------------------------------

async def _me(page: Page) -> dict[str, Any] | None:
    if not page.token:
        return None
    try:
        me: dict[str, Any] = await page.call("lobby", "GET", "/me")
        return me
    except ApiError as error:
        if error.status == 401:
            return None
        raise


async def start_page(page: Page, errors: dict[str, str] | None = None, status: int = 200,
                     values: dict[str, str] | None = None) -> Response:
    """The start page (`services/web/start.py`) with a form's refusal beside it."""
    from services.web.start import start_page as shown  # the start page's module builds on this one

    return await shown(page, errors, status, values)


async def _wallet(page: Page) -> int | None:
    """The player's own Taler beside a stake (lobby `GET /me/wallet`); None for guests or when unknown."""
    try:
        wallet = await page.call("lobby", "GET", "/me/wallet")
    except ApiError:
        return None
    balance = (wallet or {}).get("balance")
    return balance if isinstance(balance, int) else None


async def _account(request: Request, path: str, where: str, with_password: bool) -> Response:
    page = Page(request)
    form = await page.form()
    body: dict[str, Any] = {"name": form.get("name", "")}
    if with_password:
        body["password"] = form.get("password", "")
    try:
        answer = await page.api.call("lobby", "POST", path, json=body, client_ip=page.client_ip)
    except ApiError as error:
        return await start_page(page, errors={where: error.detail},
                                status=error.status if error.status < 500 else 503,
                                values={where: form.get("name", "")})
    response = page.redirect("/")
    set_cookie(response, request, SESSION_COOKIE, str(answer["token"]), page.settings.web_cookie_secure)
    return response


@router.post("/gast")
async def as_guest(request: Request) -> Response:
    return await _account(request, "/guests", "guest", with_password=False)


@router.post("/registrieren")
async def sign_up(request: Request) -> Response:
    return await _account(request, "/players", "signup", with_password=True)


@router.post("/anmelden")
async def log_in(request: Request) -> Response:
    return await _account(request, "/sessions", "login", with_password=True)


@router.post("/abmelden")
async def log_out(request: Request) -> Response:
    page = Page(request)
    await page.form()
    response = page.redirect("/")
    drop_cookie(response, request, SESSION_COOKIE, page.settings.web_cookie_secure)
    return response


# ---- a solo table: `POST /solo` and `/spielen` are in services/web/start.py ------------------------------------

# ---- the game page ---------------------------------------------------------------------------------------

def game_context(view: dict[str, Any], finished: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything `_game.html` draws, from the seat's view (and, after the end, the leaderboard's end table): the
    player strip, the turn banner, the opponents' last moves, the listed moves, the end banner and table."""
    started = time.perf_counter()
    board = renderer_for(str(view.get("game", ""))).render(view)
    metrics.BOARD_SECONDS.labels(str(view.get("game", ""))).observe(time.perf_counter() - started)
    you = view.get("you")
    ended = view.get("status") == "ended"
    turn = game_view.turn(view)
    end_rows = game_view.end_table(view, finished) if ended else []
    summary = (view.get("outcome") or {}).get("summary")
    moves = game_view.moves_of(view)
    return {
        "view": view, "board": board, "moves": moves, "you": you,
        "strip": game_view.strip(view), "turn": turn,
        "prompt": game_view.prompt(view, listed=bool(moves)) if turn else "",
        "waiting": "" if turn or ended else game_view.waiting_line(view),
        "last_lines": game_view.last_lines(view) if not ended else [],
        "my_turn": turn == "move",
        "status_text": game_view.STATUS_WORDS.get(str(view.get("status")), view.get("status")),
        "ended": ended,
        "end_rows": end_rows, "result": game_view.result(view, end_rows) if ended else {},
        "summary": game_view.phrase(summary, view) if summary else "",
        "left": game_view.has_left(view),
        "pot_line": game_view.pot_line(finished),
        "again": _again(view),
        # A solo mode's game (daily, campaign): "Nochmal" in the same mode, the campaign's next stage once won.
        "mode": (finished or {}).get("mode"), "campaign": (finished or {}).get("campaign"),
        "undo_json": '{"zurueck":true}',
    }


def _again(view: dict[str, Any]) -> dict[str, str]:
    """"Nochmal": the same solo table again (settings and computers as in this game)."""
    seats = view.get("seats") or []
    levels = [seat.get("level") for seat in seats if seat.get("kind") == "bot" and seat.get("level")]
    return {"game": str(view.get("game", "")), "settings": json.dumps(view.get("settings") or {}),
            "opponents": str(len(seats) - 1), "bot_level": str(levels[0] if levels else "normal")}


async def _finished(page: Page, view: dict[str, Any]) -> dict[str, Any] | None:
    """After the end: the leaderboard's end table (list points, new badges, the mode) with the lobby's Taler of
    the game under `taler` (`GET /pots/{game_id}`); what is not there yet is left out, None before the end."""
    if view.get("status") != "ended":
        return None
    board, taler = await asyncio.gather(_quietly(page.call("leaderboard", "GET", f"/games/{view['game_id']}")),
                                        _quietly(page.call("lobby", "GET", f"/pots/{view['game_id']}")))
    if board is None and taler is None:
        return None  # the leaderboard has not projected the end yet: the view's outcome stands alone
    return {**(board or {}), "taler": taler}


async def _quietly(answer: Awaitable[Any]) -> dict[str, Any] | None:
    """An API's answer, or None where it has none (yet) or refuses: a part of the end table stays empty then."""
    try:
        result = await answer
    except ApiError:
        return None
    return result if isinstance(result, dict) else None


@router.get("/spiel/{game_id}", response_class=HTMLResponse)
async def game_page(game_id: str, request: Request) -> Response:
    page = Page(request)
    if not page.token:
        return page.redirect("/")
    try:
        view, log = await asyncio.gather(page.call("table", "GET", f"/games/{game_id}/view"),
                                         page.call("table", "GET", f"/games/{game_id}/events"))
    except ApiError as error:
        return page.render("message.html", status=error.status if error.status < 500 else 503,
                           title="Partie", message=error.detail)
    finished = await _finished(page, view)
    return page.render("game.html", title=await _title(page, str(view.get("game", ""))),
                       game_id=game_id, log=game_view.log_entries(log.get("events") or [], view=view),
                       **game_context(view, finished))


_TITLES: dict[str, tuple[float, str]] = {}
TITLE_SECONDS = 300.0
"""A game's title (the lobby's `GET /games/{game}`, `spec.title`) is kept this long: it changes only with a
release."""


async def _title(page: Page, game: str) -> str:
    cached = _TITLES.get(game)
    if cached is not None and time.monotonic() - cached[0] < TITLE_SECONDS:
        return cached[1]
    try:
        description = await page.call("lobby", "GET", f"/games/{game}")
        title = str((description.get("spec") or {}).get("title") or game.capitalize())
    except ApiError:
        return game.capitalize()
    _TITLES[game] = (time.monotonic(), title)
    return title


def _move_of(form: dict[str, str]) -> Any:
    if "move" not in form and any(key == "m" or key.startswith("m.") for key in form):
        return _move_from_fields(form)
    try:
        return json.loads(form.get("move", ""))
    except ValueError:
        return None


def _move_from_fields(form: dict[str, str]) -> Any:
    """A move from a board's form of counts (`m.<key>.<…>.<name>` = a number, e.g. `m.abwerfen.humus=2`, a
    discard or an offer): nested objects of the counts above 0, in the fields' sorted order, put into the move's
    fixed part when the form has one (`m` = a JSON object, e.g. `{"aktion": "behalten", "steine": {}}`, so a
    choice of no tiles at all is still a whole move); None for a fixed part that is no JSON object."""
    move: dict[str, Any] = {}
    if "m" in form:
        try:
            move = json.loads(form["m"])
        except ValueError:
            return None
        if not isinstance(move, dict):
            return None
    for key, value in sorted(form.items()):
        if not key.startswith("m.") or not value.strip().isdigit() or int(value) <= 0:
            continue
        *path, leaf = key[2:].split(".")
        node: Any = move
        for part in path:
            node = node.setdefault(part, {}) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return None
        node[leaf] = int(value)
    return move


def _expected(form: dict[str, str]) -> int | None:
    text = form.get("n", "")
    return int(text) if text.isdigit() else None


def _refused(page: Page, error: ApiError) -> Response:
    """The German reason beside the move's controls; the board stays as it was (htmx swaps only the notice)."""
    response = page.render("_notice.html", message=error.detail, code=error.code or "")
    response.headers["HX-Retarget"] = "#preview"
    response.headers["HX-Reswap"] = "innerHTML"
    return response


@router.post("/spiel/{game_id}/vorschau", response_class=HTMLResponse)
async def preview(game_id: str, request: Request) -> Response:
    """A move clicked on the board. With `direkt=1` (web.js sends it while "Züge bestätigen" is off) the move is
    made at once and answered as `/zug` answers, unless the table's preview warns (tiles that break, points lost,
    the last stone): warnings always ask. Otherwise the move bar: the move's gain in one line, the warnings,
    "Zug ausführen" and "Abbrechen", and the board with the move shown on it (the board's `render_ghost`)."""
    page = Page(request)
    form = await page.form()
    move = _move_of(form)
    try:
        if form.get("direkt") == "1":
            answer = await page.call("table", "POST", f"/games/{game_id}/preview", json={"move": move})
            if not _warns(answer):
                return await _move(page, game_id, move, _expected(form))
            view = await page.call("table", "GET", f"/games/{game_id}/view")
        else:
            answer, view = await asyncio.gather(
                page.call("table", "POST", f"/games/{game_id}/preview", json={"move": move}),
                page.call("table", "GET", f"/games/{game_id}/view"))
    except ApiError as error:
        return _refused(page, error)
    return page.render("_preview.html", game_id=game_id,
                       move_json=form.get("move") or json.dumps(move, separators=(",", ":"), ensure_ascii=False),
                       n=form.get("n", ""), **preview_context(view, move, answer))


def _inner(answer: Any) -> Any:
    """The preview itself from the table's answer `{"move", "preview"}`."""
    return (answer or {}).get("preview") if isinstance((answer or {}).get("preview"), dict) else answer


def preview_context(view: dict[str, Any], move: Any, answer: Any) -> dict[str, Any]:
    """What the move bar draws from the table's preview answer: the move's words, its gain in one German line,
    the warnings, and the board with the move on it when the board can draw that (`render_ghost`; None: the
    board stays as it is, with the player's half-made choice on it)."""
    inner = _inner(answer)
    renderer = renderer_for(str(view.get("game", "")))
    ghost = getattr(renderer, "render_ghost", None)
    return {"label": renderer.move_label(move, view), "line": game_view.preview_line(move, inner, view),
            "warnings": game_view.preview_warnings(inner, view),
            "ghost": ghost(view, move, inner) if callable(ghost) else None}


def _warns(answer: Any) -> bool:
    return bool(game_view.preview_warnings(_inner(answer), {}))


async def _move(page: Page, game_id: str, move: Any, expected: int | None, retarget: bool = True) -> Response:
    """Make the move; answer the game part after it (the plain board and the closed bar out of band), or the
    refusal beside the board."""
    body: dict[str, Any] = {"move": move}
    if expected is not None:
        body["expected_n"] = expected
    try:
        view = await page.call("table", "POST", f"/games/{game_id}/moves", json=body)
    except ApiError as error:
        return _refused(page, error)
    metrics.MOVES.inc()
    response = page.render("_game.html", game_id=game_id, clear_preview=True, swapped=True,
                           **game_context(view, await _finished(page, view)))
    if retarget:  # a move made at its first click: the request aimed at the bar
        response.headers["HX-Retarget"] = "#game"
        response.headers["HX-Reswap"] = "innerHTML"
    return response


@router.post("/spiel/{game_id}/zug", response_class=HTMLResponse)
async def make_move(game_id: str, request: Request) -> Response:
    page = Page(request)
    form = await page.form()
    return await _move(page, game_id, _move_of(form), _expected(form), retarget=False)


@router.get("/spiel/{game_id}/abbrechen", response_class=HTMLResponse)
async def cancel(game_id: str, request: Request) -> Response:
    """"Abbrechen" in the move bar: the bar closes and the board is drawn plain again (no ghost, no choice)."""
    page = Page(request)
    try:
        view = await page.call("table", "GET", f"/games/{game_id}/view")
    except ApiError:
        return page.finish(HTMLResponse(""))
    board = renderer_for(str(view.get("game", ""))).render(view)
    return page.finish(HTMLResponse(Markup('<section id="board" hx-swap-oob="innerHTML">{}</section>').format(board)))


@router.get("/spiel/{game_id}/brett", response_class=HTMLResponse)
async def board_choice(game_id: str, request: Request) -> Response:
    """The board in a state of a choice made by clicking on it (e.g. a tile picked, then a cell): the renderer's
    optional `render_choice(view, query)`; a board without one is drawn as always. Nothing is sent anywhere."""
    page = Page(request)
    try:
        view = await page.call("table", "GET", f"/games/{game_id}/view")
    except ApiError as error:
        return _refused(page, error)
    renderer = renderer_for(str(view.get("game", "")))
    choose = getattr(renderer, "render_choice", None)
    query = {key: value for key, value in request.query_params.items()}
    board = choose(view, query) if choose is not None else renderer.render(view)
    return page.finish(HTMLResponse(str(board)))


@router.get("/spiel/{game_id}/leer", response_class=HTMLResponse)
async def clear(game_id: str, request: Request) -> Response:
    return Page(request).finish(HTMLResponse(""))


# ---- live: the table's stream for this seat, as HTML fragments for htmx ------------------------------------

@router.get("/spiel/{game_id}/live")
async def live(game_id: str, request: Request) -> Response:
    """Server-sent events for htmx: `update` (the game part re-rendered), `log` (new log lines) and, after a
    reconnect, `logall` (the whole log again, so nothing missed stays missing). The table's stream is read with
    the session's token in a header; the browser's URL carries none."""
    page = Page(request)
    if not page.token:
        return Response(status_code=401)
    last = request.headers.get("last-event-id", "")
    last_n = int(last) if last.isdigit() else None
    # The page's own state (`seit`): its first live view, when it is still that state, is not drawn again. A
    # redraw of what the page shows would only replace the board and moves under the player's hands and take
    # the keyboard focus (a half-made choice, the preview's "Zug ausführen").
    since = request.query_params.get("seit", "")
    shown = last_n if last_n is not None else (int(since) if since.isdigit() else None)
    return StreamingResponse(_live(page, game_id, last_n, shown), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def _live(page: Page, game_id: str, last_n: int | None, shown: int | None = None) -> AsyncIterator[bytes]:
    metrics.LIVE_STREAMS.inc()
    try:
        async with page.api.stream("table", f"/games/{game_id}/live", token=page.token,
                                   client_ip=page.client_ip) as answer:
            first = True
            before: dict[str, Any] | None = None  # the view before, to tell a move's log line from a repeat
            async for view in live_views(answer.aiter_lines()):
                started = time.perf_counter()
                n = view.get("n")
                if first and shown is not None and n == shown:
                    first = False  # the page shows this state already
                    before = view
                    continue
                context = game_context(view, await _finished(page, view))
                html = TEMPLATES.get_template("_game.html").render({"game_id": game_id, "csrf": page.csrf,
                                                                    "swapped": True, **context})
                yield sse_event("update", html, n)
                yield sse_event("board", context["board"], None)
                if first and last_n is not None and isinstance(n, int) and n > last_n + 1:
                    events = await page.call("table", "GET", f"/games/{game_id}/events")
                    log = TEMPLATES.get_template("_log.html").render(
                        {"log": game_view.log_entries(events.get("events") or [], view=view)})
                    yield sse_event("logall", log, None)
                elif not (first and (last_n is None or n == last_n)):
                    entry = game_view.live_entry(view, before)
                    if entry is not None:
                        yield sse_event("log", TEMPLATES.get_template("_log_entry.html").render({"entry": entry}), None)
                first = False
                before = view
                metrics.LIVE_UPDATE_SECONDS.observe(time.perf_counter() - started)
        async for alive in idle_after_end(page):
            yield alive
    except ApiError as error:
        yield sse_event("notice", TEMPLATES.get_template("_notice.html").render({"message": error.detail}), None)
    finally:
        metrics.LIVE_STREAMS.dec()


async def idle_after_end(page: Page) -> AsyncIterator[bytes]:
    """After a game's last view the stream stays open, idle (keep-alives), so the browser does not reconnect in a
    loop; it ends when the page goes or after ENDED_STREAM_SECONDS."""
    waited = 0.0
    while waited < ENDED_STREAM_SECONDS and not await page.request.is_disconnected():
        yield b": keep-alive\n\n"
        await asyncio.sleep(KEEP_ALIVE_SECONDS)
        waited += KEEP_ALIVE_SECONDS


async def live_views(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, Any]]:
    """The views a table's live stream (server-sent events, one JSON view per event) carries, in order; an event
    that is no JSON object is skipped."""
    data: list[str] = []
    async for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif line == "" and data:
            try:
                view = json.loads("\n".join(data))
            except ValueError:
                view = None
            data = []
            if isinstance(view, dict):
                yield view


def sse_event(event: str, html: str | Markup, n: Any = None) -> bytes:
    """One server-sent event for htmx's SSE extension: its name, the event number as its id (when there is one),
    the HTML as its data lines."""
    lines = [f"event: {event}"]
    if isinstance(n, int):
        lines.append(f"id: {n}")
    lines.extend(f"data: {line}" for line in str(html).splitlines() or [""])
    return ("\n".join(lines) + "\n\n").encode()


# ---- open tables: open, join, seats, start, leave --------------------------------------------------------

@router.post("/tische")
async def open_table(request: Request) -> Response:
    """Lobby `POST /tables` from the game's form: the host sits at seat 0, the table waits for players."""
    from services.web.start import as_a_player, signed_in  # a visitor without a session opens it as a guest

    page = Page(request)
    form = await page.form()
    game = form.get("game", "")
    try:
        description = await page.call("lobby", "GET", f"/games/{game}")
        count = int(form.get("player_count", "2")) if form.get("player_count", "2").isdigit() else 2
        settings = {**forms.read_settings(description, form, seats=count),
                    **forms.read_platform(description, form, keys=forms.TABLE_PLATFORM_KEYS)}
        body = {"game": game, "settings": settings, "player_count": count,
                "bot_level": form.get("bot_level", "normal"), "fill_with_bots": form.get("fill_with_bots") == "true"}
        table = await as_a_player(page, lambda: page.call("lobby", "POST", "/tables", json=body))
    except ApiError as error:
        return signed_in(page, await start_page(page, errors={f"table:{game}": error.detail},
                                                status=error.status if error.status < 500 else 503))
    return signed_in(page, page.redirect(f"/tisch/{table['table_id']}"))


async def _table_page(page: Page, table_id: str, error: str = "", status: int = 200,
                      fragment: bool = False) -> Response:
    from services.web.start import game_title

    try:
        table, me, wallet = await asyncio.gather(page.call("lobby", "GET", f"/tables/{table_id}"), _me(page),
                                                 _wallet(page))
    except ApiError as failure:
        return page.render("message.html", status=failure.status if failure.status < 500 else 503,
                           title="Tisch", message=failure.detail)
    if table.get("status") == "playing" and table.get("game_id") and not error:
        seated = me is not None and any(seat.get("player_id") == me["player_id"] for seat in table["seats"])
        if seated:
            return page.redirect(f"/spiel/{table['game_id']}")
    mine = me is not None and any(seat.get("player_id") == me["player_id"] for seat in table.get("seats", []))
    context = {"table": table, "me": me, "mine": mine, "error": error, "table_id": table_id, "wallet": wallet,
               "game_title": await game_title(page, str(table.get("game", ""))),
               "is_host": me is not None and (table.get("host") or {}).get("player_id") == me["player_id"]}
    return page.render("_table.html" if fragment else "table.html", status=status, title="Tisch", **context)


@router.get("/tisch/{table_id}", response_class=HTMLResponse)
async def table_page(table_id: str, request: Request) -> Response:
    page = Page(request)
    return await _table_page(page, table_id, fragment=page.is_htmx)


@router.post("/tisch/{table_id}/{action}", response_class=HTMLResponse)
async def table_action(table_id: str, action: str, request: Request) -> Response:
    """Beitreten (a visitor without a session joins as a guest), Verlassen (before the start: no penalty),
    Starten (the host)."""
    from services.web.start import as_a_player, signed_in

    page = Page(request)
    await page.form()
    paths = {"beitreten": "join", "verlassen": "leave", "starten": "start", "nochmal": "rematch"}
    if action not in paths or (not page.token and action != "beitreten"):
        return page.redirect("/")
    try:
        def act() -> Awaitable[Any]:
            return page.call("lobby", "POST", f"/tables/{table_id}/{paths[action]}")

        answer = await (as_a_player(page, act) if action == "beitreten" else act())
    except ApiError as error:
        return signed_in(page, await _table_page(page, table_id, error=error.detail, fragment=page.is_htmx))
    if action == "beitreten":
        return signed_in(page, await _table_page(page, table_id, fragment=page.is_htmx))
    if action == "verlassen":
        return page.redirect("/")
    if action == "starten" and answer.get("game_id"):
        return page.redirect(f"/spiel/{answer['game_id']}")
    return await _table_page(page, table_id, fragment=page.is_htmx)


# ---- leaving a running game: the price asked before ----------------------------------------------------------

@router.post("/spiel/{game_id}/verlassen/frage", response_class=HTMLResponse)
async def leave_question(game_id: str, request: Request) -> Response:
    """What leaving costs, asked before anything happens (the table's rule: the computer plays on for the seat;
    with other humans at the table the leaderboard takes 10 points; a stake paid into the pot is lost unless the
    player is the only human of the game: lobby `GET /pots/{id}`)."""
    page = Page(request)
    await page.form()
    try:
        view, pot = await asyncio.gather(page.call("table", "GET", f"/games/{game_id}/view"),
                                         _quietly(page.call("lobby", "GET", f"/pots/{game_id}")))
    except ApiError as error:
        return _refused(page, error)
    seats = view.get("seats") or []
    humans = [seat for index, seat in enumerate(seats)
              if seat.get("kind") == "human" and index != view.get("you") and not seat.get("left")]
    mine = next((line for line in (pot or {}).get("seats") or [] if line.get("seat") == view.get("you")), None)
    stake = int(mine.get("paid") or 0) if mine is not None and (pot or {}).get("state") == "open" else 0
    alone = sum(1 for seat in seats if seat.get("kind") == "human") == 1
    return page.render("_leave.html", game_id=game_id, with_humans=bool(humans), stake=stake, alone=alone)


@router.post("/spiel/{game_id}/verlassen", response_class=HTMLResponse)
async def leave_game(game_id: str, request: Request) -> Response:
    page = Page(request)
    await page.form()
    try:
        await page.call("table", "POST", f"/games/{game_id}/leave")
    except ApiError as error:
        return _refused(page, error)
    return page.redirect(f"/spiel/{game_id}")
