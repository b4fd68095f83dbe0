"""`GET /me/wallet`: the player's own Taler, asked of the ledger over NATS (`ledger.cmd.balance`), so the web
can show the balance beside a stake without reaching the ledger."""

from __future__ import annotations

import httpx
from nats.aio.client import Client as NatsClient

from tests.lobby.conftest import Lobby, new_guest, new_registered, taler_of


async def test_a_registered_player_reads_their_own_balance_and_a_guest_has_none(
        lobby: Lobby, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient) -> None:
    anna = await new_registered(lobby.http, lobby_nc, "Anna")
    opened = await lobby.http.post("/tables", json={"settings": {"stake": 25}, "player_count": 2},
                                   headers=anna["headers"])
    assert opened.status_code == 201, opened.text

    wallet = await lobby.http.get("/me/wallet", headers=anna["headers"])

    assert wallet.status_code == 200, wallet.text
    assert wallet.json() == {"player_id": anna["player_id"], "kind": "registered", "balance": 75}
    assert await taler_of(lobby_nc, anna) == 75
    guest = await new_guest(lobby.http)
    assert (await lobby.http.get("/me/wallet", headers=guest["headers"])).json()["balance"] is None
    assert (await lobby.http.get("/me/wallet")).status_code == 401


def test_the_lobby_may_ask_the_ledger_for_a_balance_but_not_serve_it() -> None:
    from libs.platform.contracts.subjects import LEDGER_BALANCE
    from libs.platform.nats_permissions import LOBBY, USERS

    assert LEDGER_BALANCE in LOBBY.publish and LEDGER_BALANCE not in LOBBY.subscribe
    assert [name for name, user in USERS.items() if LEDGER_BALANCE in user.subscribe] == ["ledger"]
