"""A stake table left open too long is closed and its stakes go back, before the ledger's holds expire."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
from nats.aio.client import Client as NatsClient
from sqlalchemy import update

from services.lobby.database import sessions_of
from services.lobby.models import GameTable
from services.lobby.stakes import stale_after
from services.lobby.tables import close_stale_stake_tables
from tests.lobby import test_stakes
from tests.lobby.conftest import Lobby, TableStandIn, end_game, new_guest, new_registered, taler_of


async def open_stake_table(lobby: Lobby, host: dict[str, Any], stake: int) -> dict[str, Any]:
    opened = await test_stakes.open_stake_table(lobby, host, stake, fill_with_bots=True)
    assert opened.status_code == 201, opened.text
    table: dict[str, Any] = opened.json()
    return table


async def join(lobby: Lobby, table_id: str, player: dict[str, Any]) -> None:
    joined = await test_stakes.join(lobby, table_id, player)
    assert joined.status_code == 200, joined.text


def stale_time(lobby: Lobby) -> timedelta:
    return stale_after(lobby.runtime.settings.hold_ttl_seconds)


async def test_a_stake_table_left_open_too_long_is_closed_and_every_stake_goes_back(
        lobby: Lobby, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")
    bert = await new_registered(lobby.http, lobby_nc, "Bert")
    gast = await new_guest(lobby.http, "Gast")
    table = await open_stake_table(lobby, anna, 25)
    await join(lobby, table["table_id"], bert)
    await join(lobby, table["table_id"], gast)

    # Tables other tests left open may be closed too; this one is not due yet.
    await close_stale_stake_tables(lobby.runtime, lobby.clock.now() + stale_time(lobby) - timedelta(minutes=1))
    assert (await lobby.http.get(f"/tables/{table['table_id']}")).status_code == 200
    assert await close_stale_stake_tables(lobby.runtime, lobby.clock.now() + stale_time(lobby)) >= 1

    assert (await lobby.http.get(f"/tables/{table['table_id']}")).status_code == 404
    assert [await taler_of(lobby_nc, player) for player in (anna, bert)] == [100, 100]
    history = (await ledger_service.get("/wallets/me/transactions", headers=bert["headers"])).json()
    assert (history["transactions"][0]["memo"], history["transactions"][0]["amount"]) == (
        f"Einsatz zurück: Tisch {table['table_id'][:8]} wurde nicht rechtzeitig gestartet", 25)


async def test_a_table_reopened_after_a_rematch_counts_as_open_since_then(
        lobby: Lobby, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient,
        table_service: TableStandIn) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")
    bert = await new_registered(lobby.http, lobby_nc, "Bert")
    table = await open_stake_table(lobby, anna, 10)
    table_id = table["table_id"]
    await join(lobby, table_id, bert)
    assert (await lobby.http.post(f"/tables/{table_id}/start", headers=anna["headers"])).status_code == 200
    await end_game(lobby_nc, table_service.last)
    # The table was opened long ago; Anna asks for another game now, Bert does not come back.
    async with sessions_of(lobby.runtime).begin() as session:
        await session.execute(update(GameTable).where(GameTable.table_id == table_id)
                              .values(created_at=lobby.clock.now() - 2 * stale_time(lobby)))
    waiting = await lobby.http.post(f"/tables/{table_id}/rematch", headers=anna["headers"])
    assert waiting.status_code == 200 and waiting.json()["status"] == "rematch", waiting.text
    lobby.clock.advance(minutes=2, seconds=1)
    reopened = (await lobby.http.get(f"/tables/{table_id}")).json()
    assert reopened["status"] == "open" and reopened["rematch_until"] is None

    await close_stale_stake_tables(lobby.runtime, lobby.clock.now())
    assert (await lobby.http.get(f"/tables/{table_id}")).status_code == 200
    assert await close_stale_stake_tables(lobby.runtime, lobby.clock.now() + stale_time(lobby)) >= 1
    assert (await lobby.http.get(f"/tables/{table_id}")).status_code == 404
    assert await taler_of(lobby_nc, anna) == 100 - 10 + 20 - 10 + 10  # paid, won the pot, held again, back


async def test_tables_without_stake_stay_open(lobby: Lobby, lobby_nc: NatsClient) -> None:
    gast = await new_guest(lobby.http, "Gast")
    body = {"player_count": 2, "bot_level": "easy"}
    table = (await lobby.http.post("/tables", json=body, headers=gast["headers"])).json()

    await close_stale_stake_tables(lobby.runtime, lobby.clock.now() + 3 * stale_time(lobby))

    assert (await lobby.http.get(f"/tables/{table['table_id']}")).status_code == 200
