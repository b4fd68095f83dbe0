"""A table is finished once its game's `GameEnded` is in the log (and its copy on GAME_FACTS)."""

from __future__ import annotations

from typing import Any

from nats.aio.client import Client as NatsClient

from libs.platform.contracts.events import MoveMade
from libs.platform.contracts.subjects import LOBBY_GAME_ENDS_DURABLE, game_fact_msg_id
from libs.platform.envelope import Event, EventType, new_event
from tests.game_facts import append_as_table, facts_are_read, publish_fact
from tests.lobby.conftest import Lobby, TableStandIn, game_ended_data, new_guest


async def append(nc: NatsClient, game_id: str, n: int, type: str, data: dict[str, Any]) -> Event:
    """Append an event to the game's log as the table does (a start or end copied onto GAME_FACTS too)."""
    event = new_event(game_id=game_id, n=n, type=type, actor="system", rules="speedmosaik@1", data=data,
                      prev="0" * 64)
    await append_as_table(nc.jetstream(), event)
    return event


async def lobby_has_read_every_game_event(nc: NatsClient, timeout: float = 10.0) -> None:
    """Wait until the lobby's consumer has processed (acked) every game end on GAME_FACTS."""
    await facts_are_read(nc.jetstream(), LOBBY_GAME_ENDS_DURABLE, timeout)


async def status_of(lobby: Lobby, table_id: str) -> str:
    status: str = (await lobby.http.get(f"/tables/{table_id}")).json()["status"]
    return status


async def test_table_is_finished_after_game_ended(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna = await new_guest(lobby.http, "Anna")
    table = (await lobby.http.post("/tables/solo", json={"opponents": 1}, headers=anna["headers"])).json()
    table_id, game_id = table["table_id"], table["game_id"]

    await append(lobby_nc, game_id, 2, EventType.MOVE_MADE,
                 MoveMade(seat=0, move={"source": "schale", "schale": 1}, chosen_by="player").to_data())
    await lobby_has_read_every_game_event(lobby_nc)
    assert await status_of(lobby, table_id) == "playing"

    ended = await append(lobby_nc, game_id, 3, EventType.GAME_ENDED,
                         game_ended_data(table_id, table_service.last["seats"]))
    await lobby_has_read_every_game_event(lobby_nc)
    assert await status_of(lobby, table_id) == "finished"

    # Another copy of the end (the follow-up redelivered after the duplicate window) changes nothing.
    await publish_fact(lobby_nc.jetstream(), ended, msg_id=f"{game_fact_msg_id(game_id, ended.n)}:again")
    await lobby_has_read_every_game_event(lobby_nc)
    assert await status_of(lobby, table_id) == "finished"
    finished = [entry["table_id"] for entry in (await lobby.http.get("/tables?status=finished")).json()]
    assert table_id not in finished  # solo tables are never listed


async def test_the_end_of_another_game_does_not_finish_the_table(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna = await new_guest(lobby.http, "Anna")
    table = (await lobby.http.post("/tables/solo", json={"opponents": 2}, headers=anna["headers"])).json()

    await append(lobby_nc, "f" * 32, 9, EventType.GAME_ENDED,
                 game_ended_data(table["table_id"], table_service.last["seats"]))
    await lobby_has_read_every_game_event(lobby_nc)

    assert await status_of(lobby, table["table_id"]) == "playing"


async def test_an_open_table_game_ending_is_listed_as_finished(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    host = await new_guest(lobby.http, "Host")
    table = (await lobby.http.post("/tables", json={"player_count": 2}, headers=host["headers"])).json()
    started = (await lobby.http.post(f"/tables/{table['table_id']}/start", headers=host["headers"])).json()

    await append(lobby_nc, started["game_id"], 2, EventType.GAME_ENDED,
                 game_ended_data(table["table_id"], table_service.last["seats"]))
    await lobby_has_read_every_game_event(lobby_nc)

    finished = [entry["table_id"] for entry in (await lobby.http.get("/tables?status=finished")).json()]
    assert table["table_id"] in finished
