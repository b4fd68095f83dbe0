"""One player, one seat: the lobby never seats one human twice in one game, whether at an open table (a guest or
a registered player), at a rematch or through the quick match; computers may fill any number of seats."""

from __future__ import annotations

from typing import Any

import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity, PlayerKind
from libs.platform.rpc import CommandRefused
from services.lobby.database import sessions_of
from services.lobby.stakes import holds_undone_on_failure
from services.lobby.table_settings import validate_settings
from services.lobby.tables import seat_match
from tests.lobby.conftest import Lobby, TableStandIn, new_guest, new_registered, taler_of


async def open_table(lobby: Lobby, host: dict[str, Any], **body: Any) -> dict[str, Any]:
    answer = await lobby.http.post("/tables", headers=host["headers"],
                                   json={"game": "speedmosaik", "player_count": 3, **body})
    assert answer.status_code == 201, answer.text
    table: dict[str, Any] = answer.json()
    return table


@pytest.mark.parametrize("account", ["guest", "registered"])
async def test_nobody_sits_down_twice_at_a_table_guest_or_account(
        lobby: Lobby, ledger_service: Any, lobby_nc: NatsClient, table_service: TableStandIn, account: str) -> None:
    host = await new_guest(lobby.http, "Host")
    player = await new_guest(lobby.http) if account == "guest" else await new_registered(lobby.http, lobby_nc)
    table = await open_table(lobby, host, settings={"stake": 10})
    assert (await lobby.http.post(f"/tables/{table['table_id']}/join", headers=player["headers"])).status_code == 200

    again = await lobby.http.post(f"/tables/{table['table_id']}/join", headers=player["headers"])
    host_again = await lobby.http.post(f"/tables/{table['table_id']}/join", headers=host["headers"])
    started = await lobby.http.post(f"/tables/{table['table_id']}/start", headers=host["headers"])

    assert again.status_code == 409 and again.json()["detail"] == "Du sitzt schon an diesem Tisch."
    assert host_again.status_code == 409 and host_again.json()["code"] == "already_seated"
    if account == "registered":
        assert await taler_of(lobby_nc, player) == 90  # one stake held, not two
    assert started.status_code == 200, started.text
    seats = table_service.last["seats"]
    humans = [seat["player_id"] for seat in seats if seat["kind"] == "human"]
    assert sorted(humans) == sorted([host["player_id"], player["player_id"]])
    assert [seat["kind"] for seat in seats].count("bot") == 1


async def test_a_quick_match_naming_one_player_twice_is_refused_before_anything_is_held_or_started(
        lobby: Lobby, ledger_service: Any, lobby_nc: NatsClient, table_service: TableStandIn) -> None:
    """The queue lets nobody wait twice (its unique index); should a group ever name one player twice anyway,
    seating it refuses with a German reason before a stake is held or the table service is asked."""
    player = await new_registered(lobby.http, lobby_nc)
    me = Identity(player_id=player["player_id"], name=player["name"], kind=PlayerKind.REGISTERED)
    checked = validate_settings("speedmosaik", {"stake": 10}, 3, is_solo=False)
    asked = len(table_service.requests)

    with pytest.raises(CommandRefused) as refused:
        async with holds_undone_on_failure(lobby.runtime) as held, sessions_of(lobby.runtime).begin() as session:
            await seat_match(lobby.runtime, session, [me, me], checked, 3, "normal", held)

    assert refused.value.status == 409 and refused.value.code == "two_seats_one_player"
    assert refused.value.reason == (f"„{player['name']}“ säße zweimal an dieser Partie (Platz 1 und Platz 2): "
                                    "jeder Mensch spielt auf genau einem Platz.")
    assert len(table_service.requests) == asked
    assert await taler_of(lobby_nc, player) == 100
