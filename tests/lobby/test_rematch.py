""""Nochmal am selben Tisch": solo restarts at once; with others, seats are kept two minutes for them."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
from nats.aio.client import Client as NatsClient
from sqlalchemy import select

from libs.platform.rpc import CommandRefused
from services.lobby.database import sessions_of
from services.lobby.models import GameTable
from tests.lobby.conftest import Lobby, TableStandIn, end_game, new_guest, new_registered, taler_of


async def rematch(lobby: Lobby, table_id: str, player: dict[str, Any]) -> httpx.Response:
    return await lobby.http.post(f"/tables/{table_id}/rematch", headers=player["headers"])


async def shown(lobby: Lobby, table_id: str) -> dict[str, Any]:
    answer: dict[str, Any] = (await lobby.http.get(f"/tables/{table_id}")).json()
    return answer


async def played_table(lobby: Lobby, nc: NatsClient, table_service: TableStandIn, players: list[dict[str, Any]],
                       **settings: Any) -> dict[str, Any]:
    """Open a table, seat `players`, start it and end its game; return the table."""
    body = {"player_count": 4, "bot_level": "easy", "fill_with_bots": True, **settings}
    table = (await lobby.http.post("/tables", json=body, headers=players[0]["headers"])).json()
    for player in players[1:]:
        joined = await lobby.http.post(f"/tables/{table['table_id']}/join", headers=player["headers"])
        assert joined.status_code == 200, joined.text
    started = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=players[0]["headers"])
    assert started.status_code == 200, started.text
    await end_game(nc, table_service.last)
    finished = await shown(lobby, table["table_id"])
    assert finished["status"] == "finished"
    return finished


async def test_solo_new_game_starts_at_once_with_the_same_settings_and_seats(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna = await new_guest(lobby.http, "Anna")
    table = (await lobby.http.post("/tables/solo", headers=anna["headers"], json={
        "settings": {"tempo": "schnell", "turbo": True}, "opponents": 2, "bot_level": "strong"})).json()
    first = table_service.last
    await end_game(lobby_nc, first)

    again = await rematch(lobby, table["table_id"], anna)

    assert again.status_code == 200, again.text
    body = again.json()
    assert body["status"] == "playing" and body["game_id"] not in (None, first["game_id"])
    second = table_service.last
    assert second["game_id"] == body["game_id"]
    assert (second["seats"], second["settings"], second["platform"]) == (
        first["seats"], first["settings"], first["platform"])
    assert body["settings"] == table["settings"]


async def test_nochmal_only_after_the_game_and_only_for_who_played(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna = await new_guest(lobby.http, "Anna")
    stranger = await new_guest(lobby.http, "Fremd")
    table = (await lobby.http.post("/tables/solo", headers=anna["headers"], json={"opponents": 1})).json()

    too_early = await rematch(lobby, table["table_id"], anna)
    await end_game(lobby_nc, table_service.last)
    not_yours = await rematch(lobby, table["table_id"], stranger)

    assert too_early.status_code == 409 and too_early.json()["detail"] == "Die Partie an diesem Tisch läuft noch."
    assert not_yours.status_code == 403
    assert not_yours.json()["detail"] == "Nochmal spielen kann nur, wer an diesem Tisch mitgespielt hat."
    assert len(table_service.requests) == 1


async def test_with_others_the_table_waits_and_starts_by_itself_when_all_are_back(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna, bea = await new_guest(lobby.http, "Anna"), await new_guest(lobby.http, "Bea")
    stranger = await new_guest(lobby.http, "Fremd")
    table = await played_table(lobby, lobby_nc, table_service, [anna, bea])
    first = table_service.last

    anna_back = await rematch(lobby, table["table_id"], anna)

    waiting = anna_back.json()
    assert anna_back.status_code == 200 and waiting["status"] == "rematch"
    assert [(seat["name"], seat["kept_until"] is None) for seat in waiting["seats"]] == [
        (anna["name"], True), (bea["name"], False)]
    assert waiting["rematch_until"] == waiting["seats"][1]["kept_until"]
    assert table["table_id"] not in [entry["table_id"] for entry in (await lobby.http.get("/tables")).json()]
    refused = await lobby.http.post(f"/tables/{table['table_id']}/join", headers=stranger["headers"])
    assert refused.status_code == 409 and refused.json()["code"] == "seats_kept"
    twice = await rematch(lobby, table["table_id"], anna)
    assert twice.status_code == 409 and twice.json()["code"] == "already_back"
    assert len(table_service.requests) == 1

    bea_back = await rematch(lobby, table["table_id"], bea)

    assert bea_back.status_code == 200 and bea_back.json()["status"] == "playing"
    second = table_service.last
    assert second["game_id"] == bea_back.json()["game_id"] != first["game_id"]
    assert second["seats"] == first["seats"] and second["settings"] == first["settings"]


async def test_after_two_minutes_the_seats_of_who_did_not_come_back_are_free_again(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna, bea, carl = [await new_guest(lobby.http, name) for name in ("Anna", "Bea", "Carl")]
    stranger = await new_guest(lobby.http, "Fremd")
    table = await played_table(lobby, lobby_nc, table_service, [anna, bea, carl])
    await rematch(lobby, table["table_id"], bea)

    lobby.clock.advance(minutes=1, seconds=59)
    assert (await shown(lobby, table["table_id"]))["status"] == "rematch"
    lobby.clock.advance(seconds=2)
    reopened = await shown(lobby, table["table_id"])

    assert reopened["status"] == "open" and reopened["rematch_until"] is None
    # Bea kept her seat and hosts now that Anna did not come back.
    assert [(seat["seat"], seat["name"]) for seat in reopened["seats"]] == [(1, bea["name"])]
    assert reopened["host"]["player_id"] == bea["player_id"] and reopened["free_seats"] == 3
    assert table["table_id"] in [entry["table_id"] for entry in (await lobby.http.get("/tables")).json()]
    joined = await lobby.http.post(f"/tables/{table['table_id']}/join", headers=stranger["headers"])
    assert joined.status_code == 200 and [seat["seat"] for seat in joined.json()["seats"]] == [0, 1]
    late = await rematch(lobby, table["table_id"], carl)
    assert late.status_code == 200 and [seat["seat"] for seat in late.json()["seats"]] == [0, 1, 2]


async def test_the_sweeper_reopens_expired_tables_without_anyone_looking(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna, bea = await new_guest(lobby.http, "Anna"), await new_guest(lobby.http, "Bea")
    table = await played_table(lobby, lobby_nc, table_service, [anna, bea])
    await rematch(lobby, table["table_id"], anna)

    lobby.clock.advance(minutes=3)

    deadline = time.monotonic() + 10
    while True:
        async with sessions_of(lobby.runtime)() as session:
            status = await session.scalar(select(GameTable.status).where(GameTable.table_id == table["table_id"]))
        if status == "open":
            break
        assert time.monotonic() < deadline, "the sweeper did not reopen the table"
        await asyncio.sleep(0.1)


async def test_saying_no_during_the_wait_reopens_the_table_once_nobody_is_waited_for(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna, bea = await new_guest(lobby.http, "Anna"), await new_guest(lobby.http, "Bea")
    table = await played_table(lobby, lobby_nc, table_service, [anna, bea])
    await rematch(lobby, table["table_id"], anna)

    declined = await lobby.http.post(f"/tables/{table['table_id']}/leave", headers=bea["headers"])

    assert declined.status_code == 200 and declined.json()["status"] == "open"
    assert [seat["name"] for seat in declined.json()["seats"]] == [anna["name"]]
    assert len(table_service.requests) == 1


async def test_a_rematch_start_that_does_not_get_through_is_tried_again(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna, bea = await new_guest(lobby.http, "Anna"), await new_guest(lobby.http, "Bea")
    table = await played_table(lobby, lobby_nc, table_service, [anna, bea])
    await rematch(lobby, table["table_id"], anna)
    table_service.refusal = CommandRefused(503, "Der Spieltisch ist gerade nicht erreichbar.", "busy")

    both_back = await rematch(lobby, table["table_id"], bea)
    assert both_back.status_code == 200 and both_back.json()["status"] == "rematch"
    table_service.refusal = None

    deadline = time.monotonic() + 10
    while (await shown(lobby, table["table_id"]))["status"] != "playing":
        assert time.monotonic() < deadline, "the deferred rematch was never started"
        await asyncio.sleep(0.1)


async def test_at_a_stake_table_nochmal_holds_the_stake_again(
        lobby: Lobby, ledger_service: httpx.AsyncClient, table_service: TableStandIn,
        lobby_nc: NatsClient) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")
    bert = await new_registered(lobby.http, lobby_nc, "Bert")
    table = await played_table(lobby, lobby_nc, table_service, [anna, bert], settings={"stake": 50})
    # Anna won the pot (places follow the seats): 150 Taler; Bert has 50 left.
    assert (await taler_of(lobby_nc, anna), await taler_of(lobby_nc, bert)) == (150, 50)

    await rematch(lobby, table["table_id"], anna)
    assert await taler_of(lobby_nc, anna) == 100
    await rematch(lobby, table["table_id"], bert)

    assert (await shown(lobby, table["table_id"]))["status"] == "playing"
    assert table_service.last["platform"]["stake"] == 50
    assert await taler_of(lobby_nc, bert) == 0


async def test_who_cannot_pay_the_stake_again_is_not_back_and_their_seat_stays_kept(
        lobby: Lobby, ledger_service: httpx.AsyncClient, table_service: TableStandIn,
        lobby_nc: NatsClient) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")
    bert = await new_registered(lobby.http, lobby_nc, "Bert")
    table = await played_table(lobby, lobby_nc, table_service, [anna, bert], settings={"stake": 100})
    assert await taler_of(lobby_nc, bert) == 0

    await rematch(lobby, table["table_id"], anna)
    broke = await rematch(lobby, table["table_id"], bert)

    assert broke.status_code == 409 and broke.json()["detail"].startswith("Nicht genug Taler")
    waiting = await shown(lobby, table["table_id"])
    assert waiting["status"] == "rematch" and waiting["seats"][1]["kept_until"] is not None
    left = await lobby.http.post(f"/tables/{table['table_id']}/leave", headers=anna["headers"])
    assert left.status_code == 200 and await taler_of(lobby_nc, anna) == 200
