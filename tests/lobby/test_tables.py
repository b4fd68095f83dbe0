"""Solo games and open tables: settings, joining, leaving, starting, and what the table service is sent."""

from __future__ import annotations

import asyncio
from typing import Any

from libs.platform.rpc import CommandRefused
from tests.lobby.conftest import Lobby, TableStandIn, new_guest

KACHELWAND = {"workshop": "kachelwand", "wall": "fest", "jokers": "ohne"}


async def open_table(lobby: Lobby, host: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    body = {"game": "speedmosaik", "settings": {}, "player_count": 4, "bot_level": "easy",
            "fill_with_bots": True, **overrides}
    response = await lobby.http.post("/tables", json=body, headers=host["headers"])
    assert response.status_code == 201, response.text
    table: dict[str, Any] = response.json()
    return table


async def join(lobby: Lobby, table: dict[str, Any], player: dict[str, Any]) -> Any:
    return await lobby.http.post(f"/tables/{table['table_id']}/join", headers=player["headers"])


async def test_solo_game_starts_at_once_against_computers(lobby: Lobby, table_service: TableStandIn) -> None:
    anna = await new_guest(lobby.http, "Anna")
    response = await lobby.http.post("/tables/solo", headers=anna["headers"], json={
        "game": "speedmosaik", "settings": {"tempo": "schnell", "think_time": "ohne", "turbo": True},
        "opponents": 3, "bot_level": "normal"})

    assert response.status_code == 201, response.text
    table = response.json()
    assert table["status"] == "playing" and table["solo"] is True
    assert table["game_id"] == table_service.last["game_id"] and len(table["game_id"]) == 32
    assert table["settings"] == {**KACHELWAND, "tempo": "schnell", "think_time": "ohne", "stake": 0,
                                 "turbo": True}
    sent = table_service.last
    assert sent["table_id"] == table["table_id"] and sent["game"] == "speedmosaik"
    assert sent["settings"] == KACHELWAND
    assert sent["seats"] == [
        {"player_id": anna["player_id"], "name": anna["name"], "kind": "human", "level": None,
         "account": "guest"},
        *[{"player_id": None, "name": f"Computer {n}", "kind": "bot", "level": "normal", "account": None}
          for n in (1, 2, 3)],
    ]
    shown = (await lobby.http.get(f"/tables/{table['table_id']}")).json()
    assert [seat["kind"] for seat in shown["seats"]] == ["human", "bot", "bot", "bot"]


async def test_solo_is_played_without_stake_and_with_one_to_three_computers(
        lobby: Lobby, table_service: TableStandIn) -> None:
    anna = await new_guest(lobby.http, "Anna")
    with_stake = await lobby.http.post("/tables/solo", headers=anna["headers"],
                                       json={"settings": {"stake": 10}, "opponents": 1})
    too_many = await lobby.http.post("/tables/solo", headers=anna["headers"], json={"opponents": 4})

    assert with_stake.status_code == 422 and with_stake.json()["detail"] == "Solo spielst du ohne Einsatz."
    assert too_many.status_code == 422 and "1 bis 3 Computer" in too_many.json()["detail"]
    assert table_service.requests == []


async def test_open_table_is_listed_with_its_free_seats_and_others_can_join(lobby: Lobby) -> None:
    host = await new_guest(lobby.http, "Host")
    table = await open_table(lobby, host, player_count=3)
    assert table["status"] == "open" and table["host"]["player_id"] == host["player_id"]
    assert [seat["player_id"] for seat in table["seats"]] == [host["player_id"]]

    listed = {entry["table_id"]: entry for entry in (await lobby.http.get("/tables?status=open")).json()}
    assert listed[table["table_id"]]["free_seats"] == 2

    bea = await new_guest(lobby.http, "Bea")
    joined = await join(lobby, table, bea)
    assert joined.status_code == 200
    assert [(seat["seat"], seat["name"]) for seat in joined.json()["seats"]] == [(0, host["name"]),
                                                                                  (1, bea["name"])]
    assert joined.json()["free_seats"] == 1


async def test_a_full_table_refuses_another_player_and_no_one_sits_twice(lobby: Lobby) -> None:
    host = await new_guest(lobby.http, "Host")
    bea = await new_guest(lobby.http, "Bea")
    carl = await new_guest(lobby.http, "Carl")
    table = await open_table(lobby, host, player_count=2)
    assert (await join(lobby, table, bea)).status_code == 200

    full = await join(lobby, table, carl)
    twice = await join(lobby, table, host)

    assert full.status_code == 409 and full.json()["detail"] == "Der Tisch ist schon voll."
    assert twice.status_code == 409 and twice.json()["detail"] == "Du sitzt schon an diesem Tisch."
    listed = [entry["table_id"] for entry in (await lobby.http.get("/tables?status=open")).json()]
    assert table["table_id"] not in listed


async def test_only_the_host_can_start(lobby: Lobby, table_service: TableStandIn) -> None:
    host = await new_guest(lobby.http, "Host")
    bea = await new_guest(lobby.http, "Bea")
    table = await open_table(lobby, host)
    await join(lobby, table, bea)

    response = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=bea["headers"])

    assert response.status_code == 403 and "Nur wer den Tisch eröffnet hat" in response.json()["detail"]
    assert table_service.requests == []


async def test_start_with_computers_fills_the_free_seats(lobby: Lobby, table_service: TableStandIn) -> None:
    host = await new_guest(lobby.http, "Host")
    bea = await new_guest(lobby.http, "Bea")
    table = await open_table(lobby, host, player_count=4, bot_level="easy", fill_with_bots=True)
    await join(lobby, table, bea)

    started = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=host["headers"])

    assert started.status_code == 200, started.text
    assert started.json()["status"] == "playing" and started.json()["game_id"] == table_service.last["game_id"]
    assert [(seat["name"], seat["kind"], seat["level"]) for seat in table_service.last["seats"]] == [
        (host["name"], "human", None), (bea["name"], "human", None),
        ("Computer 1", "bot", "easy"), ("Computer 2", "bot", "easy")]
    shown = (await lobby.http.get(f"/tables/{table['table_id']}")).json()
    assert [seat["kind"] for seat in shown["seats"]] == ["human", "human", "bot", "bot"]


async def test_a_started_table_refuses_joins_and_a_second_start(
        lobby: Lobby, table_service: TableStandIn) -> None:
    host = await new_guest(lobby.http, "Host")
    late = await new_guest(lobby.http, "Spaet")
    table = await open_table(lobby, host, fill_with_bots=True)
    await lobby.http.post(f"/tables/{table['table_id']}/start", headers=host["headers"])

    joined = await join(lobby, table, late)
    again = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=host["headers"])
    left = await lobby.http.post(f"/tables/{table['table_id']}/leave", headers=host["headers"])

    assert joined.status_code == 409 and joined.json()["detail"] == "Die Partie an diesem Tisch hat schon begonnen."
    assert again.status_code == 409 and left.status_code == 409
    assert len(table_service.requests) == 1


async def test_start_without_computers_plays_with_the_humans_only(
        lobby: Lobby, table_service: TableStandIn) -> None:
    host = await new_guest(lobby.http, "Host")
    bea = await new_guest(lobby.http, "Bea")
    carl = await new_guest(lobby.http, "Carl")
    table = await open_table(lobby, host, player_count=4, fill_with_bots=False)
    await join(lobby, table, carl)
    await join(lobby, table, bea)
    # Carl stands up again: the humans left are in seats 0 and 2, the game gets seats 0 and 1.
    await lobby.http.post(f"/tables/{table['table_id']}/leave", headers=carl["headers"])

    started = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=host["headers"])

    assert started.status_code == 200, started.text
    assert [(seat["player_id"], seat["kind"]) for seat in table_service.last["seats"]] == [
        (host["player_id"], "human"), (bea["player_id"], "human")]
    assert [seat["seat"] for seat in started.json()["seats"]] == [0, 1]


async def test_start_alone_without_computers_is_refused(lobby: Lobby, table_service: TableStandIn) -> None:
    host = await new_guest(lobby.http, "Host")
    table = await open_table(lobby, host, player_count=3, fill_with_bots=False)

    response = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=host["headers"])

    assert response.status_code == 409
    assert response.json()["detail"].startswith("Mindestens zwei Menschen")
    assert (await lobby.http.get(f"/tables/{table['table_id']}")).json()["status"] == "open"
    assert table_service.requests == []


async def test_only_one_of_several_players_gets_the_last_seat(lobby: Lobby) -> None:
    host = await new_guest(lobby.http, "Host")
    table = await open_table(lobby, host, player_count=2)
    rivals = [await new_guest(lobby.http, f"Eile{n}") for n in range(6)]

    responses = await asyncio.gather(*(join(lobby, table, rival) for rival in rivals))

    assert sorted(response.status_code for response in responses) == [200] + [409] * 5
    shown = (await lobby.http.get(f"/tables/{table['table_id']}")).json()
    assert len(shown["seats"]) == 2


async def test_rule_settings_are_refused_with_the_rule_modules_reason(lobby: Lobby) -> None:
    host = await new_guest(lobby.http, "Host")
    body = {"settings": {"workshop": "dachgarten"}, "player_count": 2}

    response = await lobby.http.post("/tables", json=body, headers=host["headers"])

    assert response.status_code == 422
    assert response.json()["detail"].startswith("Für „Werkstatt“ gibt es nur „kachelwand“")
    unknown = await lobby.http.post("/tables", json={"settings": {"farbe": "rot"}}, headers=host["headers"])
    assert unknown.status_code == 422 and "gibt es bei Speedmosaik nicht" in unknown.json()["detail"]


async def test_platform_settings_are_checked_and_kept(lobby: Lobby) -> None:
    host = await new_guest(lobby.http, "Host")

    async def refused(settings: dict[str, Any]) -> str:
        response = await lobby.http.post("/tables", json={"settings": settings}, headers=host["headers"])
        assert response.status_code == 422, response.text
        detail: str = response.json()["detail"]
        return detail

    assert "30, 60, 90 oder 120 Sekunden" in await refused({"think_time": 45})
    assert "„normal“ oder „schnell“" in await refused({"tempo": "rasend"})
    assert "10, 25, 50 oder 100 Taler" in await refused({"stake": 20})
    assert "Turbo gibt es nur im Solo-Spiel" in await refused({"turbo": True})
    table = await open_table(lobby, host, settings={"tempo": "schnell", "think_time": 30})
    assert table["settings"] == {**KACHELWAND, "tempo": "schnell", "think_time": 30, "stake": 0,
                                 "turbo": False}
    default = await open_table(lobby, host)
    assert default["settings"]["think_time"] == 120 and default["settings"]["tempo"] == "normal"


async def test_unknown_games_tables_and_sizes_are_refused_in_german(lobby: Lobby) -> None:
    host = await new_guest(lobby.http, "Host")
    game = await lobby.http.post("/tables", json={"game": "schach"}, headers=host["headers"])
    size = await lobby.http.post("/tables", json={"player_count": 5}, headers=host["headers"])
    level = await lobby.http.post("/tables", json={"bot_level": "genial"}, headers=host["headers"])
    missing = await lobby.http.get("/tables/0123456789abcdef0123456789abcdef")
    no_token = await lobby.http.post("/tables", json={})

    assert game.status_code == 422 and game.json()["detail"] == "Das Spiel „schach“ gibt es hier nicht."
    assert size.status_code == 422 and size.json()["detail"] == "Ein Tisch hat 2 bis 4 Plätze."
    assert level.status_code == 422
    assert missing.status_code == 404 and missing.json()["detail"] == "Diesen Tisch gibt es nicht (mehr)."
    assert no_token.status_code == 401
    assert (await lobby.http.post("/tables", json={"player_count": "vier"},
                                  headers=host["headers"])).status_code == 422


async def test_leaving_hands_over_the_host_and_an_empty_table_is_dissolved(lobby: Lobby) -> None:
    host = await new_guest(lobby.http, "Host")
    bea = await new_guest(lobby.http, "Bea")
    table = await open_table(lobby, host)
    await join(lobby, table, bea)

    after_host = await lobby.http.post(f"/tables/{table['table_id']}/leave", headers=host["headers"])
    assert after_host.json()["host"] == {"player_id": bea["player_id"], "name": bea["name"]}
    not_seated = await lobby.http.post(f"/tables/{table['table_id']}/leave", headers=host["headers"])
    assert not_seated.status_code == 409 and not_seated.json()["detail"] == "Du sitzt nicht an diesem Tisch."

    after_bea = await lobby.http.post(f"/tables/{table['table_id']}/leave", headers=bea["headers"])
    assert after_bea.json()["dissolved"] is True
    assert (await lobby.http.get(f"/tables/{table['table_id']}")).status_code == 404


async def test_a_refused_or_unanswered_start_leaves_the_table_open(
        lobby: Lobby, table_service: TableStandIn) -> None:
    host = await new_guest(lobby.http, "Host")
    table = await open_table(lobby, host)
    table_service.refusal = CommandRefused(422, "Der Tisch kann das nicht.", "nope")

    refused = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=host["headers"])

    assert refused.status_code == 422 and refused.json()["detail"] == "Der Tisch kann das nicht."
    shown = (await lobby.http.get(f"/tables/{table['table_id']}")).json()
    assert shown["status"] == "open" and shown["game_id"] is None and len(shown["seats"]) == 1


async def test_no_table_service_means_503_and_nothing_changes(lobby: Lobby) -> None:
    host = await new_guest(lobby.http, "Host")

    response = await lobby.http.post("/tables/solo", json={"opponents": 1}, headers=host["headers"])

    assert response.status_code == 503 and "nicht erreichbar" in response.json()["detail"]



async def test_the_lobby_offers_each_workshop_with_its_own_options(lobby: Lobby) -> None:
    answer = await lobby.http.get("/games/speedmosaik")
    assert answer.status_code == 200
    body = answer.json()
    workshops = {entry["value"]: entry for entry in body["settings"]["workshop"]["values"]}
    assert set(workshops) == {"kachelwand", "kirchenfenster", "sternpavillon"}
    assert set(workshops["kachelwand"]["options"]) == {"wall", "jokers"}
    assert set(workshops["kirchenfenster"]["options"]) == {"palace"}
    assert workshops["sternpavillon"]["options"] == {}
    assert body["platform"]["think_time"]["values"] == [30, 60, 90, 120, "ohne"]
    assert (await lobby.http.get("/games/schach")).status_code == 422


async def test_an_option_of_another_workshop_is_refused_with_a_reason(lobby: Lobby) -> None:
    host = await new_guest(lobby.http)
    answer = await lobby.http.post("/tables", headers=host["headers"], json={
        "game": "speedmosaik", "settings": {"workshop": "kachelwand", "palace": "saeulen"}, "player_count": 2})
    assert answer.status_code == 422
    assert "Kirchenfenster" in answer.json()["detail"]


async def test_a_start_lost_with_a_dying_table_replica_is_asked_again_and_the_game_starts_once(
        lobby: Lobby, table_service: TableStandIn) -> None:
    """A table replica that dies holding the start never answers; the lobby asks again (`RESEND_AFTER`) instead of
    waiting out its timeout and telling the player the table is unreachable."""
    table_service.dying.add("start")
    host = await new_guest(lobby.http)

    answer = await lobby.http.post("/tables/solo", headers=host["headers"], json={
        "game": "speedmosaik", "settings": {}, "opponents": 1})

    assert answer.status_code == 201, answer.text
    asked = [request["game_id"] for request in table_service.requests]
    assert asked == [answer.json()["game_id"]] * 2  # the same game asked for twice, started by the living one
    assert (await lobby.http.get(f"/tables/{answer.json()['table_id']}")).json()["status"] == "playing"


async def test_a_start_retried_after_a_lost_reply_names_the_same_game(
        lobby: Lobby, table_service: TableStandIn) -> None:
    table_service.refusal = CommandRefused(409, "Die Partie gibt es schon.", "game_exists")
    host = await new_guest(lobby.http)
    answer = await lobby.http.post("/tables/solo", headers=host["headers"], json={
        "game": "speedmosaik", "settings": {}, "opponents": 1})
    assert answer.status_code == 201, answer.text
    assert answer.json()["game_id"] == table_service.last["game_id"]
