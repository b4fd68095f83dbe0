"""Table chat: the seated humans of a running game write to each other; author and seat from the token and
the seat record; text rules, a rate limit, chat off where the rules say so, and a live stream."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.settings import Settings
from services.lobby.app import create_app
from tests.http_served import served
from tests.lobby.conftest import Lobby, TableStandIn, end_game, new_guest
from tests.lobby.home_helpers import solo

pytestmark = pytest.mark.usefixtures("with_tinygame")


async def two_player_game(lobby: Lobby) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Anna and Bert at a running table (two computers fill it); return Anna, Bert and the started table."""
    anna, bert = await new_guest(lobby.http, "Anna"), await new_guest(lobby.http, "Bert")
    table = (await lobby.http.post("/tables", json={"player_count": 4}, headers=anna["headers"])).json()
    assert (await lobby.http.post(f"/tables/{table['table_id']}/join", headers=bert["headers"])).status_code == 200
    started = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=anna["headers"])
    assert started.status_code == 200, started.text
    return anna, bert, started.json()


async def post(lobby: Lobby, game_id: str, player: dict[str, Any], body: Any) -> httpx.Response:
    return await lobby.http.post(f"/games/{game_id}/chat", json=body, headers=player["headers"])


async def read(lobby: Lobby, game_id: str, player: dict[str, Any], query: str = "") -> httpx.Response:
    return await lobby.http.get(f"/games/{game_id}/chat{query}", headers=player["headers"])


async def test_seated_players_write_and_read(lobby: Lobby, table_service: TableStandIn) -> None:
    anna, bert, table = await two_player_game(lobby)
    game_id = table["game_id"]

    first = await post(lobby, game_id, anna, {"text": "  Hallo Bert! 👋  "})
    second = await post(lobby, game_id, bert, {"text": "Hallo Anna, viel Glück."})

    assert first.status_code == 201, first.text
    assert {key: first.json()[key] for key in ("seq", "seat", "name", "text", "player_id")} == {
        "seq": 1, "seat": 0, "name": anna["name"], "text": "Hallo Bert! 👋", "player_id": anna["player_id"]}
    assert second.json()["seq"] == 2 and second.json()["seat"] == 1 and second.json()["name"] == bert["name"]
    everything = await read(lobby, game_id, bert)
    assert everything.status_code == 200
    assert everything.json()["open"] is True and everything.json()["max_chars"] == 300
    assert everything.json()["messages"] == [first.json(), second.json()]
    assert (await read(lobby, game_id, anna, "?after=1")).json()["messages"] == [second.json()]
    assert (await read(lobby, game_id, anna, "?limit=1")).json()["messages"] == [first.json()]
    assert (await read(lobby, game_id, anna, "?limit=0")).status_code == 422


async def test_text_rules_and_no_impersonation(lobby: Lobby, table_service: TableStandIn) -> None:
    anna, bert, table = await two_player_game(lobby)
    game_id = table["game_id"]

    answers = {
        "empty": await post(lobby, game_id, anna, {"text": "   "}),
        "long": await post(lobby, game_id, anna, {"text": "x" * 301}),
        "newline": await post(lobby, game_id, anna, {"text": "erste\nzweite Zeile"}),
        "bidi": await post(lobby, game_id, anna, {"text": "abc\u202edef"}),
        "bell": await post(lobby, game_id, anna, {"text": "ding\u0007"}),
        "name": await post(lobby, game_id, anna, {"text": "Ich bin Bert", "name": bert["name"]}),
        "seat": await post(lobby, game_id, anna, {"text": "Platz 2", "seat": 1}),
        "player": await post(lobby, game_id, anna, {"text": "hi", "player_id": bert["player_id"]}),
        "missing": await post(lobby, game_id, anna, {}),
    }

    assert answers["empty"].status_code == 422 and answers["empty"].json() == {
        "detail": "Die Nachricht ist leer.", "code": "chat_empty"}
    assert answers["long"].status_code == 422 and answers["long"].json() == {
        "detail": "Eine Nachricht hat höchstens 300 Zeichen (diese hat 301).", "code": "chat_too_long"}
    for key in ("newline", "bidi", "bell"):
        assert answers[key].status_code == 422 and answers[key].json()["code"] == "chat_control_chars", key
    for key in ("name", "seat", "player", "missing"):
        assert answers[key].status_code == 422 and answers[key].json()["code"] == "invalid_request", key
    assert (await read(lobby, game_id, anna)).json()["messages"] == []
    exactly = await post(lobby, game_id, anna, {"text": "y" * 300})
    assert exactly.status_code == 201 and exactly.json()["seq"] == 1


async def test_too_many_messages_are_refused_with_retry_after(lobby: Lobby, table_service: TableStandIn) -> None:
    anna, bert, table = await two_player_game(lobby)
    game_id = table["game_id"]
    for number in range(5):
        assert (await post(lobby, game_id, anna, {"text": f"Nachricht {number}"})).status_code == 201

    sixth = await post(lobby, game_id, anna, {"text": "eine zu viel"})

    assert sixth.status_code == 429
    assert sixth.json()["code"] == "rate_limited"
    wait = int(sixth.headers["Retry-After"])
    assert 1 <= wait <= 10
    assert sixth.json()["detail"] == f"Zu viele Nachrichten im Tisch-Chat. Bitte in {wait} Sekunde" + \
        ("n" if wait > 1 else "") + " erneut versuchen."
    assert (await post(lobby, game_id, bert, {"text": "ich darf noch"})).status_code == 201  # per player
    assert len((await read(lobby, game_id, anna)).json()["messages"]) == 6
    lobby.clock.advance(seconds=10)
    assert (await post(lobby, game_id, anna, {"text": "wieder da"})).status_code == 201


async def test_who_may_chat_where(lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna, _, table = await two_player_game(lobby)
    carla = await new_guest(lobby.http, "Carla")
    team = await solo(lobby.http, carla, game="tinygame", mode="frei", opponents=3, settings={"variante": "team"})
    assert team.status_code == 201, team.text

    stranger = await post(lobby, table["game_id"], carla, {"text": "Hallo?"})
    stranger_reads = await read(lobby, table["game_id"], carla)
    unknown = await post(lobby, "f" * 32, anna, {"text": "Hallo?"})
    team_chat = await post(lobby, team.json()["game_id"], carla, {"text": "Mein Zeichen: hoch"})
    team_read = await read(lobby, team.json()["game_id"], carla)

    assert stranger.status_code == 403 and stranger.json() == {
        "detail": "Den Tisch-Chat lesen und schreiben nur, wer an dieser Partie mitspielt.", "code": "not_seated"}
    assert stranger_reads.status_code == 403
    assert unknown.status_code == 404 and unknown.json()["code"] == "game_not_found"
    assert team_chat.status_code == 403 and team_chat.json()["code"] == "chat_off"
    assert team_read.status_code == 403 and team_read.json()["code"] == "chat_off"
    assert (await lobby.http.post(f"/games/{table['game_id']}/chat", json={"text": "x"})).status_code == 401

    # After the game the chat can be read but not written.
    assert (await post(lobby, table["game_id"], anna, {"text": "gg"})).status_code == 201
    await end_game(lobby_nc, next(sent for sent in table_service.requests if sent["game_id"] == table["game_id"]))
    late = await post(lobby, table["game_id"], anna, {"text": "noch was"})
    assert late.status_code == 409 and late.json()["code"] == "game_over"
    kept = (await read(lobby, table["game_id"], anna)).json()
    assert kept["open"] is False and [message["text"] for message in kept["messages"]] == ["gg"]


@pytest.fixture(scope="module")
async def served_lobby(lobby_settings: Settings) -> AsyncIterator[str]:
    """Another lobby replica served over real HTTP (a stream stays open while it is read)."""
    async with served(create_app(lobby_settings)) as url:
        yield url


async def next_message(lines: AsyncIterator[str]) -> dict[str, Any]:
    while True:
        line = await asyncio.wait_for(anext(lines), timeout=10)
        if line.startswith("data:"):
            message: dict[str, Any] = json.loads(line[5:])
            return message


async def test_the_live_stream_tells_each_stored_message(
        lobby: Lobby, table_service: TableStandIn, served_lobby: str) -> None:
    anna, bert, table = await two_player_game(lobby)
    carla = await new_guest(lobby.http, "Carla")
    game_id = table["game_id"]
    earlier = (await post(lobby, game_id, anna, {"text": "vorher geschrieben"})).json()

    async with httpx.AsyncClient(base_url=served_lobby, timeout=10) as http:
        refused = await http.get(f"/games/{game_id}/chat/live", headers=carla["headers"])
        assert refused.status_code == 403
        async with http.stream("GET", f"/games/{game_id}/chat/live", headers=bert["headers"]) as stream:
            assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.aiter_lines()
            assert await next_message(lines) == earlier  # caught up from the store
            # Written on another replica: stored there, then announced to this one's stream.
            later = (await post(lobby, game_id, anna, {"text": "live dabei"})).json()
            assert await next_message(lines) == later
        async with http.stream("GET", f"/games/{game_id}/chat/live", headers={
                **anna["headers"], "Last-Event-ID": "1"}) as resumed:
            assert await next_message(resumed.aiter_lines()) == later
