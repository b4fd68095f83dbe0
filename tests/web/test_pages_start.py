"""The start page, the one-click start and Zuschauen against stand-in services (the web's HTTP clients over a
mock transport): what a visitor sees before signing in, what "Spielen" sends, which games are offered, and that
the spectator page holds only the spectator's view."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from libs.platform.settings import Settings
from services.lobby.routers.games import list_games
from services.web.app import create_app
from tests.rules.helpers import registered_plugins

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
PORTS = {8101: "lobby", 8102: "table", 8105: "leaderboard", 8103: "bot"}
HAND = ["rot-7", "blau-3"]


@pytest.fixture(scope="module")
def games() -> Iterator[list[dict[str, Any]]]:
    with registered_plugins("tests.rules.tinygame"):
        yield asyncio.run(list_games())


def _spectator_view(seat: int | None) -> dict[str, Any]:
    """A tiny game's view as the table serves it: a seat's with its hand, the spectator's without any."""
    board = {"spiel": "tinygame", "runde": 1, "stapel": 9, "spieler": [{"platz": 1, "karten": 2, "punkte": 1},
                                                                       {"platz": 2, "karten": 2, "punkte": 0}],
             "du": None if seat is None else {"platz": seat + 1, "hand": HAND}}
    return {"game_id": "g1", "game": "tinygame", "n": 4, "status": "running", "to_move": [1], "may_act": [],
            "you": seat, "board": board, "legal_moves": [] if seat is None else [{"karte": "rot-7"}],
            "seats": [{"name": "Anna", "kind": "human"}, {"name": "Computer 1", "kind": "bot", "level": "normal"}]}


@dataclass
class Services:
    games: list[dict[str, Any]]
    sent: list[tuple[str, str, str, Any, str | None]] = field(default_factory=list)
    guest_names: list[str] = field(default_factory=list)
    taken: int = 0

    def answer(self, request: httpx.Request) -> httpx.Response:
        service = PORTS[request.url.port or 80]
        path, method = request.url.path, request.method
        body = json.loads(request.content) if request.content else None
        token = request.headers.get("authorization")
        self.sent.append((service, method, path, body, token))
        if service == "lobby":
            return self.lobby(method, path, request.url.params, body, token)
        if service == "table" and path == "/games/g1" and token is None:
            return httpx.Response(200, json=_spectator_view(None))
        return httpx.Response(404, json={"detail": "Gibt es nicht.", "code": "not_found"})

    def lobby(self, method: str, path: str, params: Any, body: Any, token: str | None) -> httpx.Response:
        if path == "/games":
            return httpx.Response(200, json=self.games)
        if path.startswith("/games/"):
            return httpx.Response(200, json=next(g for g in self.games if g["game"] == path.split("/")[2]))
        if path == "/tables" and method == "GET":
            if params.get("status") == "playing":
                return httpx.Response(200, json=[
                    {"table_id": "t1", "game": "tinygame", "game_id": "g1", "solo": False, "status": "playing",
                     "seats": [{"name": "Anna"}, {"name": "Computer 1"}]},
                    {"table_id": "t2", "game": "speedkoi", "game_id": "g2", "solo": False, "status": "playing",
                     "seats": [{"name": "Bernd"}, {"name": "Clara"}]}])
            return httpx.Response(200, json=[])
        if path == "/guests":
            self.guest_names.append(body["name"])
            if self.taken:
                self.taken -= 1
                return httpx.Response(409, json={"detail": "Der Name ist vergeben.", "code": "name_taken"})
            return httpx.Response(201, json={"player_id": "p1", "name": body["name"], "kind": "guest",
                                             "token": "guest-token"})
        if path == "/me":
            if token is None:
                return httpx.Response(401, json={"detail": "Bitte melde dich an.", "code": "unauthorized"})
            return httpx.Response(200, json={"player_id": "p1", "name": "Gast 1234", "kind": "guest"})
        if path == "/tables/solo":
            if token is None:
                return httpx.Response(401, json={"detail": "Bitte melde dich an.", "code": "unauthorized"})
            return httpx.Response(201, json={"table_id": "t9", "game_id": "g9", "status": "playing"})
        return httpx.Response(200, json=[])


def _client(services: Services, show_test_games: bool) -> TestClient:
    settings = Settings(web_show_test_games=show_test_games)
    app = create_app(settings, transport=httpx.MockTransport(services.answer))
    return TestClient(app, base_url="http://testserver", follow_redirects=False)


def test_the_start_page_shows_every_game_with_a_picture_and_a_play_button_before_sign_in(
        games: list[dict[str, Any]]) -> None:
    with _client(Services(games), show_test_games=False) as client:
        page = client.get("/").text

    offered = re.findall(r'<section class="card game-offer"[^>]*data-game="([a-z]+)"', page)
    assert offered == ["speedkoi", "speedmosaik", "speednova", "speedspore"]  # no test game without the setting
    assert "Zwergenstich" not in page and "tinygame" not in page
    cards = page.split('class="card game-offer"')[1:]
    for card in cards:
        assert "<svg" in card.split('class="game-pic"')[1].split("</div>")[0]  # a picture
        assert re.search(r'<p class="game-line">[^<]{20,}</p>', card)
        assert re.search(r'<button type="submit" class="play"[^>]*>Spielen</button>', card)
        assert "<summary>Optionen</summary>" in card
    assert "Turbo" not in page and "(nur solo)" not in page and "Einsatz (Taler" not in page
    # Speednova's long choices are radio buttons (their labels wrap), not a select that cuts them.
    assert re.search(r'type="radio" name="s:solo" value="rekordjagd"[^>]*> <span>Rekordjagd \(ohne Bank, ein Stein '
                     r'nach dem anderen\)</span>', page)
    assert "Als Gast spielen" in page and "<summary>Registrieren oder anmelden</summary>" in page
    assert "Als Betrieb" not in page and "/betrieb" not in page
    # Zuschauen beside the games: the running games of the offered games only.
    assert 'href="/zuschauen/g2"' in page and 'href="/zuschauen/g1"' not in page


def test_the_development_setting_offers_the_test_game(games: list[dict[str, Any]]) -> None:
    with _client(Services(games), show_test_games=True) as client:
        page = client.get("/").text
    assert 'data-game="tinygame"' in page and "Zwergenstich" in page


def test_spielen_signs_a_new_visitor_up_as_a_numbered_guest_and_starts_against_one_normal_computer(
        games: list[dict[str, Any]]) -> None:
    services = Services(games, taken=1)
    with _client(services, show_test_games=False) as client:
        csrf = CSRF.search(client.get("/").text).group(1)  # type: ignore[union-attr]
        answer = client.post("/spielen", data={"csrf": csrf, "game": "speedkoi"})

    assert answer.status_code == 303 and answer.headers["location"] == "/spiel/g9"
    assert "speed_session=guest-token" in answer.headers["set-cookie"]
    assert len(services.guest_names) == 2  # the first number drawn was taken: another one
    assert all(re.fullmatch(r"Gast \d{4}", name) for name in services.guest_names)
    solo = [entry for entry in services.sent if entry[2] == "/tables/solo"]
    assert solo == [("lobby", "POST", "/tables/solo", {"game": "speedkoi", "settings": {}, "opponents": 1,
                                                        "bot_level": "normal"}, "Bearer guest-token")]


def test_the_options_form_sends_its_settings(games: list[dict[str, Any]]) -> None:
    services = Services(games)
    with _client(services, show_test_games=False) as client:
        client.cookies.set("speed_session", "guest-token")
        csrf = CSRF.search(client.get("/").text).group(1)  # type: ignore[union-attr]
        answer = client.post("/spielen", data={"csrf": csrf, "game": "speednova", "opponents": "0",
                                               "s:solo": "klassisch", "p:turbo": "true", "bot_level": "strong"})

    assert answer.status_code == 303
    solo = next(entry for entry in services.sent if entry[2] == "/tables/solo")
    assert solo[3] == {"game": "speednova", "settings": {"solo": "klassisch", "turbo": True}, "opponents": 0,
                       "bot_level": "strong"}
    assert not services.guest_names  # signed in already: no new guest


def test_zuschauen_lists_running_games_and_the_spectator_page_holds_no_hand_and_no_move(
        games: list[dict[str, Any]]) -> None:
    services = Services(games)
    with _client(services, show_test_games=True) as client:
        listing = client.get("/zuschauen").text
        watched = client.get("/zuschauen/g1")
        solo = client.get("/zuschauen/g-solo")

    assert 'href="/zuschauen/g1"' in listing and 'href="/zuschauen/g2"' in listing and "Bernd · Clara" in listing
    assert watched.status_code == 200
    page = watched.text
    assert "Anna" in page and "Computer 1" in page and "am Zug" in page
    assert not any(card in page for card in HAND)  # the seats' view holds the hand; the spectator's never
    assert "hx-post" not in page and "Zug ausführen" not in page and 'class="move' not in page
    assert 'sse-connect="/zuschauen/g1/live"' in page
    table_reads = [entry for entry in services.sent if entry[0] == "table"]
    assert table_reads and all(entry[4] is None for entry in table_reads)  # never with a token
    assert solo.status_code == 404  # only games the lobby lists as running at a table
