"""What a visitor may read without a token: the game list (the start page shows every game before anyone signs
in, test games marked as such) and the running tables (the web's Zuschauen list), limited and without solo
tables."""

from __future__ import annotations

from typing import Any

from tests.lobby.conftest import Lobby, TableStandIn, new_guest


async def test_the_game_list_needs_no_token_and_marks_only_test_games(lobby: Lobby, with_tinygame: None) -> None:
    answer = await lobby.http.get("/games")

    assert answer.status_code == 200, answer.text
    marked = {game["game"]: game["test_game"] for game in answer.json()}
    assert marked["tinygame"] is True
    assert {game: test for game, test in marked.items() if game != "tinygame"} == {
        "speedkoi": False, "speedmosaik": False, "speednova": False, "speedspore": False}
    one = await lobby.http.get("/games/speedkoi")
    assert one.status_code == 200 and one.json()["test_game"] is False


async def _started_open_table(lobby: Lobby, host: dict[str, Any]) -> dict[str, Any]:
    opened = await lobby.http.post("/tables", headers=host["headers"], json={
        "game": "speedkoi", "settings": {}, "player_count": 2, "bot_level": "easy", "fill_with_bots": True})
    assert opened.status_code == 201, opened.text
    started = await lobby.http.post(f"/tables/{opened.json()['table_id']}/start", headers=host["headers"])
    assert started.status_code == 200, started.text
    table: dict[str, Any] = started.json()
    return table


async def test_running_tables_are_listed_without_a_token_newest_first_limited_and_never_solo(
        lobby: Lobby, table_service: TableStandIn) -> None:
    host = await new_guest(lobby.http, "Wanda")
    first = await _started_open_table(lobby, host)
    second = await _started_open_table(lobby, host)
    solo = await lobby.http.post("/tables/solo", headers=host["headers"], json={"game": "speedkoi", "opponents": 1})
    assert solo.status_code == 201, solo.text

    listed = await lobby.http.get("/tables", params={"status": "playing"})
    newest = await lobby.http.get("/tables", params={"status": "playing", "limit": 1})
    too_many = await lobby.http.get("/tables", params={"status": "playing", "limit": 101})

    assert listed.status_code == 200 and newest.status_code == 200
    ids = [table["table_id"] for table in listed.json()]
    assert ids.index(second["table_id"]) < ids.index(first["table_id"])
    assert solo.json()["table_id"] not in ids and all(table["solo"] is False for table in listed.json())
    assert all(table["game_id"] for table in listed.json() if table["table_id"] in (first["table_id"],
                                                                                    second["table_id"]))
    assert [table["table_id"] for table in newest.json()] == [second["table_id"]]
    assert too_many.status_code == 422
