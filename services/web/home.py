"""The player's home ("Meine Seite"): today's daily games with their published seed commitments, each game's
solo modes with their lists (all-time and the day's), campaign progress (e.g. Speedkoi's Gärten-Reise),
"Weiterspielen", the history with its curve, streaks, the badge books (e.g. Speedkoi's Gartenbuch), the
leaderboards per variant, the skill ratings (with their curve, and each variant's rating list) and the wallet.
Everything from the lobby's and the leaderboard's public APIs."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from services.web.api import ApiError
from services.web.pages import Page, _me, _wallet
from services.web.start import shown_games

router = APIRouter(include_in_schema=False)
LIST_TOP = 10
CURVE_WIDTH, CURVE_HEIGHT, CURVE_PAD = 320, 120, 12


async def _quiet(page: Page, service: str, path: str, default: Any, **params: Any) -> Any:
    """One API read for a part of the page; a part that fails shows as empty rather than the whole page failing."""
    try:
        return await page.call(service, "GET", path, params=params or None)
    except ApiError:
        return default


def curve_svg(curve: dict[str, Any]) -> Markup:
    """The history's curve as inline SVG: the scores of the last games (oldest first), the best of them as a
    dashed line, each point with its date and score as a title (a screen reader reads the summary label)."""
    points = [point for point in curve.get("points") or [] if isinstance(point.get("score"), (int, float))]
    if not points:
        return Markup('<p class="curve-empty">Noch keine beendete Partie.</p>')
    scores = [float(point["score"]) for point in points]
    best = curve.get("best")
    low, high = min([*scores, 0.0]), max(scores + ([float(best)] if isinstance(best, (int, float)) else []))
    span = (high - low) or 1.0
    inner_w, inner_h = CURVE_WIDTH - 2 * CURVE_PAD, CURVE_HEIGHT - 2 * CURVE_PAD

    def x(index: int) -> float:
        return CURVE_PAD + (inner_w * index / (len(points) - 1) if len(points) > 1 else inner_w / 2)

    def y(score: float) -> float:
        return CURVE_PAD + inner_h * (1 - (score - low) / span)

    label = (f"Verlauf der Punkte in den letzten {len(points)} Partien: zuerst {_num(scores[0])}, "
             f"zuletzt {_num(scores[-1])}")
    if isinstance(best, (int, float)):
        label += f", Bestwert {_num(best)}"
    parts = [Markup('<svg class="curve" viewBox="0 0 {w} {h}" role="img" aria-label="{label}">'
                    '<title>{label}</title>').format(w=CURVE_WIDTH, h=CURVE_HEIGHT, label=label)]
    parts.append(Markup('<line class="curve-axis" x1="{a}" y1="{b}" x2="{c}" y2="{b}"/>').format(
        a=CURVE_PAD, b=f"{y(low):.1f}", c=CURVE_WIDTH - CURVE_PAD))
    if isinstance(best, (int, float)):
        parts.append(Markup('<line class="curve-best" x1="{a}" y1="{b}" x2="{c}" y2="{b}"><title>Bestwert {t}'
                            '</title></line>').format(a=CURVE_PAD, b=f"{y(float(best)):.1f}",
                                                      c=CURVE_WIDTH - CURVE_PAD, t=_num(best)))
    line = " ".join(f"{x(i):.1f},{y(score):.1f}" for i, score in enumerate(scores))
    parts.append(Markup('<polyline class="curve-line" points="{p}"/>').format(p=line))
    for i, (point, score) in enumerate(zip(points, scores, strict=True)):
        parts.append(Markup('<circle class="curve-point{best}" cx="{cx}" cy="{cy}" r="3"><title>{date}: {s}'
                            '</title></circle>').format(
            best=" best" if isinstance(best, (int, float)) and score == float(best) else "",
            cx=f"{x(i):.1f}", cy=f"{y(score):.1f}", date=point.get("date") or "", s=_num(score)))
    parts.append(Markup("</svg>"))
    return Markup("").join(parts)


def rating_curve_svg(history: list[dict[str, Any]]) -> Markup:
    """A rating's history as inline SVG: the rating after each rated game (oldest first, the start 1500 before
    the first), with its uncertainty as a band around the line; each point titled with its date and rating."""
    steps = [step for step in history if isinstance(step.get("after"), int)]
    if not steps:
        return Markup('<p class="curve-empty">Noch keine gewertete Partie.</p>')
    values = [float(steps[0].get("before") or 0)] + [float(step["after"]) for step in steps]
    spreads = [float(steps[0].get("uncertainty") or 0)] + [float(step.get("uncertainty") or 0) for step in steps]
    low = min(value - spread for value, spread in zip(values, spreads, strict=True))
    high = max(value + spread for value, spread in zip(values, spreads, strict=True))
    span = (high - low) or 1.0
    inner_w, inner_h = CURVE_WIDTH - 2 * CURVE_PAD, CURVE_HEIGHT - 2 * CURVE_PAD

    def x(index: int) -> float:
        return CURVE_PAD + inner_w * index / (len(values) - 1)

    def y(value: float) -> float:
        return CURVE_PAD + inner_h * (1 - (value - low) / span)

    label = (f"Verlauf der Wertung in den letzten {len(steps)} gewerteten Partien: vorher {_num(values[0])}, "
             f"jetzt {_num(values[-1])} (±{_num(spreads[-1])})")
    upper = [f"{x(i):.1f},{y(value + spread):.1f}" for i, (value, spread) in enumerate(zip(values, spreads,
                                                                                         strict=True))]
    lower = [f"{x(i):.1f},{y(value - spread):.1f}" for i, (value, spread) in enumerate(zip(values, spreads,
                                                                                         strict=True))]
    parts = [Markup('<svg class="rating-curve" viewBox="0 0 {w} {h}" role="img" aria-label="{label}">'
                    '<title>{label}</title>').format(w=CURVE_WIDTH, h=CURVE_HEIGHT, label=label),
             Markup('<polygon class="curve-band" points="{p}"><title>Unsicherheit</title></polygon>').format(
                 p=" ".join(upper + lower[::-1])),
             Markup('<polyline class="curve-line" points="{p}"/>').format(
                 p=" ".join(f"{x(i):.1f},{y(value):.1f}" for i, value in enumerate(values)))]
    for i, step in enumerate(steps, start=1):
        parts.append(Markup('<circle class="curve-point" cx="{cx}" cy="{cy}" r="3"><title>{date}: {r} (±{u})'
                            '</title></circle>').format(cx=f"{x(i):.1f}", cy=f"{y(values[i]):.1f}",
                                                        date=str(step.get("ended_at") or "")[:10], r=step["after"],
                                                        u=step.get("uncertainty")))
    parts.append(Markup("</svg>"))
    return Markup("").join(parts)


async def _ratings_part(page: Page, player: str, game: str, variants: list[str]) -> dict[str, Any]:
    """The player's ratings in the game's lists (each with its curve) and each variant's rating list, top 10."""
    mine = await _quiet(page, "leaderboard", f"/players/{player}/ratings", {})
    played = [line["variant"] for line in (mine or {}).get("ratings") or [] if line.get("game") == game]
    listed = sorted(set(variants) | set(played))
    details, lists = await asyncio.gather(
        asyncio.gather(*(_quiet(page, "leaderboard", f"/players/{player}/ratings/{game}/{variant}", {}, history=50)
                         for variant in played)),
        asyncio.gather(*(_quiet(page, "leaderboard", f"/ratings/{game}/{variant}", {}, limit=LIST_TOP)
                         for variant in listed)))
    return {"mine": [{**detail, "curve": rating_curve_svg(detail.get("history") or [])}
                     for detail in details if detail],
            "lists": [answer for answer in lists if answer]}


def _num(value: Any) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() else f"{number:.1f}"


def _books(badges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Badges by book in the order the answer names them (e.g. "Abzeichen", "Gartenbuch")."""
    books: dict[str, list[dict[str, Any]]] = {}
    for badge in badges:
        books.setdefault(str(badge.get("book") or "Abzeichen"), []).append(badge)
    return [{"title": title, "badges": items, "earned": sum(1 for badge in items if badge.get("earned"))}
            for title, items in books.items()]


async def _mode_part(page: Page, game: str, mode: dict[str, Any]) -> dict[str, Any]:
    key = mode["key"]
    today = mode.get("today") or {}
    reads = [_quiet(page, "leaderboard", f"/modes/{game}/{key}", {}, limit=LIST_TOP)]
    if mode.get("daily") and today.get("day"):
        reads.append(_quiet(page, "leaderboard", f"/modes/{game}/{key}/days/{today['day']}", {}, limit=LIST_TOP))
    if mode.get("campaign"):
        reads.append(_quiet(page, "lobby", f"/me/campaigns/{game}/{key}", {}))
    answers = await asyncio.gather(*reads)
    part = {**mode, "all_time": answers[0], "day_list": None, "progress": None}
    rest = list(answers[1:])
    if mode.get("daily") and today.get("day"):
        part["day_list"] = rest.pop(0)
    if mode.get("campaign"):
        part["progress"] = rest.pop(0)
    return part


@router.get("/meine-seite", response_class=HTMLResponse)
async def home(request: Request, spiel: str = "") -> Response:
    page = Page(request)
    me = await _me(page)
    if me is None:
        return page.redirect("/")
    games, daily, unfinished, wallet = await asyncio.gather(
        _quiet(page, "lobby", "/games", []), _quiet(page, "lobby", "/daily", []),
        _quiet(page, "lobby", "/me/unfinished", []), _wallet(page))
    games = shown_games(page, games)
    titles = {game["game"]: (game.get("spec") or {}).get("title") or game["game"] for game in games}
    game = spiel if spiel in titles else (next(iter(titles)) if titles else "")
    context: dict[str, Any] = {"me": me, "games": titles, "game": game, "wallet": wallet,
                               "unfinished": unfinished, "error": request.query_params.get("fehler", ""),
                               "daily": [entry for entry in daily
                                         if entry.get("day") == _today(daily) and entry.get("game") in titles]}
    if game:
        player = me["player_id"]
        modes, history, badges, boards = await asyncio.gather(
            _quiet(page, "lobby", f"/games/{game}/modes", []),
            _quiet(page, "leaderboard", f"/players/{player}/history", {}, game=game, limit=20),
            _quiet(page, "leaderboard", f"/players/{player}/badges", {}, game=game),
            _quiet(page, "leaderboard", f"/leaderboards/{game}", {}))
        variants = [entry["variant"] for entry in (boards or {}).get("variants") or []]
        mode_parts, variant_lists = await asyncio.gather(
            asyncio.gather(*(_mode_part(page, game, mode) for mode in modes)),
            asyncio.gather(*(_quiet(page, "leaderboard", f"/leaderboards/{game}/{variant}", {}, limit=LIST_TOP)
                             for variant in variants)))
        ratings = await _ratings_part(page, player, game, variants)
        context.update(modes=list(mode_parts), history=history or {}, ratings=ratings,
                       curve=curve_svg((history or {}).get("curve") or {}),
                       books=_books((badges or {}).get("badges") or []), leaderboards=list(variant_lists))
    return page.render("home.html", title="Meine Seite", **context)


def _today(daily: list[dict[str, Any]]) -> str:
    """Today (Berlin): the earliest day `GET /daily` lists (it lists today and tomorrow)."""
    days = sorted({str(entry.get("day")) for entry in daily if entry.get("day")})
    return days[0] if days else ""


@router.post("/meine-seite/start")
async def start_mode(request: Request) -> Response:
    """Lobby `POST /solo`: a game in one of the game's solo modes (a daily game, a campaign's stage, free)."""
    page = Page(request)
    form = await page.form()
    if not page.token:
        return page.redirect("/")
    body: dict[str, Any] = {"game": form.get("game", ""), "mode": form.get("mode", ""),
                            "give_up_unfinished": form.get("give_up") == "true"}
    if form.get("stage", "").isdigit():
        body["stage"] = int(form["stage"])
    try:
        table = await page.call("lobby", "POST", "/solo", json=body)
    except ApiError as error:
        home_url = f"/meine-seite?spiel={body['game']}"
        context = {"title": "Meine Seite", "message": error.detail, "back": home_url,
                   "give_up": error.code == "unfinished_game", "form": body}
        return page.render("mode_refused.html", status=error.status if error.status < 500 else 503, **context)
    return page.redirect(f"/spiel/{table['game_id']}")


@router.get("/liste/{game}/{mode}", response_class=HTMLResponse)
async def mode_list(game: str, mode: str, request: Request, tag: str = "") -> Response:
    """A mode's all-time list, or (with `tag`) a daily mode's day list, the first 100 places."""
    page = Page(request)
    path = f"/modes/{game}/{mode}/days/{tag}" if tag else f"/modes/{game}/{mode}"
    try:
        answer = await page.call("leaderboard", "GET", path, params={"limit": 100})
    except ApiError as error:
        return page.render("message.html", status=error.status if error.status < 500 else 503,
                           title="Liste", message=error.detail)
    return page.render("list.html", title=f"Liste {answer.get('title') or mode}", list=answer, game=game,
                       me=await _me(page))


@router.get("/wertung/{game}/{variant}", response_class=HTMLResponse)
async def rating_list(game: str, variant: str, request: Request) -> Response:
    """A variant's rating list: the first 100 players with enough rated games, and the computers' ratings."""
    page = Page(request)
    try:
        answer = await page.call("leaderboard", "GET", f"/ratings/{game}/{variant}", params={"limit": 100})
    except ApiError as error:
        return page.render("message.html", status=error.status if error.status < 500 else 503,
                           title="Wertungsliste", message=error.detail)
    return page.render("rating_list.html", title=f"Wertungsliste {game} {variant}", ratings=answer, game=game,
                       me=await _me(page))


@router.get("/rangliste/{game}/{variant}", response_class=HTMLResponse)
async def leaderboard(game: str, variant: str, request: Request) -> Response:
    page = Page(request)
    try:
        answer = await page.call("leaderboard", "GET", f"/leaderboards/{game}/{variant}", params={"limit": 100})
    except ApiError as error:
        return page.render("message.html", status=error.status if error.status < 500 else 503,
                           title="Rangliste", message=error.detail)
    return page.render("leaderboard.html", title=f"Rangliste {game} {variant}", board=answer, game=game,
                       me=await _me(page))
