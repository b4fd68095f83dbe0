""""Weiterspielen": a player's running solo games, read from the lobby's own tables — after a restart and on any
replica too — until each game ends."""

from __future__ import annotations

import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.days import berlin_day
from libs.platform.settings import Settings
from tests.lobby.conftest import Lobby, TableStandIn, new_guest
from tests.lobby.home_helpers import another_lobby, end_started_game, solo

pytestmark = pytest.mark.usefixtures("with_tinygame")


async def test_unfinished_games_survive_a_restart_and_go_when_they_end(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient, lobby_settings: Settings) -> None:
    anna = await new_guest(lobby.http, "Anna")
    daily = (await solo(lobby.http, anna, game="tinygame", mode="tagesstich")).json()
    daily_start = table_service.last
    plain = (await lobby.http.post("/tables/solo", json={"opponents": 1}, headers=anna["headers"])).json()
    stage = (await solo(lobby.http, anna, game="tinygame", mode="reise")).json()
    mine = await lobby.http.get("/me/unfinished", headers=anna["headers"])

    async with another_lobby(lobby_settings) as restarted:  # a new app instance: nothing kept in memory
        listed = await restarted.http.get("/me/unfinished", headers=anna["headers"])

    assert listed.status_code == 200 and listed.json() == mine.json()
    by_table = {entry["table_id"]: entry for entry in listed.json()}
    assert list(by_table) == [stage["table_id"], plain["table_id"], daily["table_id"]]  # newest first
    assert by_table[daily["table_id"]] == {
        "table_id": daily["table_id"], "game_id": daily["game_id"], "game": "tinygame", "mode": "tagesstich",
        "mode_title": "Tagesstich", "day": berlin_day(lobby.clock.now()).isoformat(), "attempt": 1,
        "practice": False, "stage": None, "started_at": by_table[daily["table_id"]]["started_at"]}
    assert by_table[plain["table_id"]]["mode"] is None and by_table[plain["table_id"]]["game"] == "speedmosaik"
    assert by_table[stage["table_id"]]["stage"] == 1 and by_table[stage["table_id"]]["mode_title"] == "Stich-Reise"

    await end_started_game(lobby_nc, daily_start)

    after = (await lobby.http.get("/me/unfinished", headers=anna["headers"])).json()
    assert [entry["table_id"] for entry in after] == [stage["table_id"], plain["table_id"]]
    other = await new_guest(lobby.http, "Bert")
    assert (await lobby.http.get("/me/unfinished", headers=other["headers"])).json() == []
    assert (await lobby.http.get("/me/unfinished")).status_code == 401
