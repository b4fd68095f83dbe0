"""Stakes at open tables: held by the ledger before a registered player sits down, paid out after the game."""

from __future__ import annotations

from typing import Any

import httpx
from nats.aio.client import Client as NatsClient

from libs.platform.rpc import CommandRefused
from tests.lobby.conftest import (
    Lobby,
    TableStandIn,
    end_game,
    game_events_are_read,
    new_guest,
    new_registered,
    taler_of,
)


async def open_stake_table(lobby: Lobby, host: dict[str, Any], stake: int, **overrides: Any) -> httpx.Response:
    body = {"settings": {"stake": stake}, "player_count": 4, "bot_level": "easy", **overrides}
    return await lobby.http.post("/tables", json=body, headers=host["headers"])


async def join(lobby: Lobby, table_id: str, player: dict[str, Any]) -> httpx.Response:
    return await lobby.http.post(f"/tables/{table_id}/join", headers=player["headers"])


async def wallet_memos(ledger: httpx.AsyncClient, player: dict[str, Any]) -> list[tuple[str, int]]:
    answer = await ledger.get("/wallets/me/transactions", headers=player["headers"])
    assert answer.status_code == 200, answer.text
    return [(line["memo"], line["amount"]) for line in answer.json()["transactions"]]


async def test_opening_a_stake_table_holds_the_hosts_stake(
        lobby: Lobby, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")

    opened = await open_stake_table(lobby, anna, 25)

    assert opened.status_code == 201, opened.text
    table = opened.json()
    assert table["settings"]["stake"] == 25 and table["seats"][0]["stake_held"] is True
    assert await taler_of(lobby_nc, anna) == 75
    assert (await wallet_memos(ledger_service, anna))[0] == (
        f"Einsatz gehalten für Tisch {table['table_id'][:8]}", -25)


async def test_a_player_without_enough_taler_is_refused_the_seat_and_nothing_is_held(
        lobby: Lobby, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")
    bert = await new_registered(lobby.http, lobby_nc, "Bert")
    table = (await open_stake_table(lobby, anna, 100)).json()
    # Bert's 100 Taler are held at his own table already.
    assert (await open_stake_table(lobby, bert, 100)).status_code == 201

    refused = await join(lobby, table["table_id"], bert)
    broke_host = await open_stake_table(lobby, bert, 10)

    assert refused.status_code == 409
    assert refused.json()["detail"] == "Nicht genug Taler für den Einsatz von 100 Taler: du hast 0 Taler."
    assert broke_host.status_code == 409 and broke_host.json()["detail"].startswith("Nicht genug Taler")
    shown = (await lobby.http.get(f"/tables/{table['table_id']}")).json()
    assert [seat["player_id"] for seat in shown["seats"]] == [anna["player_id"]]
    assert await taler_of(lobby_nc, bert) == 0


async def test_guests_sit_at_stake_tables_without_paying(
        lobby: Lobby, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")
    gast = await new_guest(lobby.http, "Gast")
    table = (await open_stake_table(lobby, anna, 50)).json()

    joined = await join(lobby, table["table_id"], gast)

    assert joined.status_code == 200, joined.text
    assert [seat["stake_held"] for seat in joined.json()["seats"]] == [True, False]


async def test_leaving_before_the_start_gives_the_stake_back(
        lobby: Lobby, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")
    bert = await new_registered(lobby.http, lobby_nc, "Bert")
    table = (await open_stake_table(lobby, anna, 50)).json()
    await join(lobby, table["table_id"], bert)
    assert await taler_of(lobby_nc, bert) == 50

    left = await lobby.http.post(f"/tables/{table['table_id']}/leave", headers=bert["headers"])
    rejoined = await join(lobby, table["table_id"], bert)
    left_again = await lobby.http.post(f"/tables/{table['table_id']}/leave", headers=bert["headers"])
    host_left = await lobby.http.post(f"/tables/{table['table_id']}/leave", headers=anna["headers"])

    assert left.status_code == rejoined.status_code == left_again.status_code == 200
    assert host_left.json()["dissolved"] is True
    assert await taler_of(lobby_nc, bert) == 100 and await taler_of(lobby_nc, anna) == 100
    assert (await wallet_memos(ledger_service, bert))[0] == (
        f"Einsatz zurück: Tisch {table['table_id'][:8]} vor dem Start verlassen", 50)


async def test_the_stake_goes_into_the_pot_at_the_start_and_the_best_placed_human_wins_it(
        lobby: Lobby, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient,
        table_service: TableStandIn) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")
    bert = await new_registered(lobby.http, lobby_nc, "Bert")
    gast = await new_guest(lobby.http, "Gast")
    table = (await open_stake_table(lobby, anna, 50)).json()
    await join(lobby, table["table_id"], bert)
    await join(lobby, table["table_id"], gast)

    started = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=anna["headers"])

    assert started.status_code == 200, started.text
    assert table_service.last["platform"] == {"tempo": "normal", "think_time": 120, "turbo": False, "stake": 50}
    await game_events_are_read(lobby_nc)
    # The guest came first, but only those who paid can win the pot: Bert, second, takes it.
    await end_game(lobby_nc, table_service.last, places=[3, 2, 1, 4])
    assert await taler_of(lobby_nc, anna) == 50
    assert await taler_of(lobby_nc, bert) == 150
    assert (await wallet_memos(ledger_service, bert))[0] == (
        f"Topf gewonnen: 100 Taler an Tisch {table['table_id'][:8]}", 100)
    # The end table's Taler: any signed-in player may ask; the guest paid nothing and is not listed.
    pot = await lobby.http.get(f"/pots/{table_service.last['game_id']}", headers=gast["headers"])
    assert pot.status_code == 200, pot.text
    assert pot.json()["state"] == "settled" and pot.json()["total"] == 100
    assert [(line["seat"], line["paid"], line["won"], line["net"]) for line in pot.json()["seats"]] == [
        (0, 50, 0, -50), (1, 50, 100, 50)]


async def test_the_taler_of_a_game_the_lobby_never_started_are_not_found(lobby: Lobby) -> None:
    anna = await new_guest(lobby.http, "Anna")

    answer = await lobby.http.get("/pots/0123456789abcdef0123456789abcdef", headers=anna["headers"])

    assert answer.status_code == 404
    assert answer.json()["code"] == "game_not_found"


async def test_a_failed_start_keeps_the_players_seated_with_their_stakes(
        lobby: Lobby, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient,
        table_service: TableStandIn) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")
    table = (await open_stake_table(lobby, anna, 10)).json()
    table_service.refusal = CommandRefused(503, "Der Spieltisch ist gerade nicht erreichbar.", "busy")

    refused = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=anna["headers"])

    assert refused.status_code == 503
    shown = (await lobby.http.get(f"/tables/{table['table_id']}")).json()
    assert shown["status"] == "open" and shown["seats"][0]["stake_held"] is True
    assert await taler_of(lobby_nc, anna) == 90


async def test_stakes_are_offered_only_at_open_tables(lobby: Lobby) -> None:
    anna = await new_guest(lobby.http, "Anna")

    solo = await lobby.http.post("/tables/solo", json={"settings": {"stake": 25}}, headers=anna["headers"])
    odd = await open_stake_table(lobby, anna, 30)
    offered = (await lobby.http.get("/games/speedmosaik")).json()["platform"]["stake"]["values"]

    assert solo.status_code == 422 and solo.json()["detail"] == "Solo spielst du ohne Einsatz."
    assert odd.status_code == 422 and "10, 25, 50 oder 100 Taler" in odd.json()["detail"]
    assert offered == [0, 10, 25, 50, 100]

