"""The table starts no game whose seats name one human twice (defence in depth behind the lobby): refused with a
German reason naming both seats, nothing written; computers may hold any number of seats."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import TABLE_START
from libs.platform.rpc import CommandRefused, request
from libs.platform.settings import Settings
from services.table.app import create_app
from services.table.event_store import GameLog
from tests.conftest import running_app


@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with running_app(create_app(settings)) as client:
        yield client


def human(player_id: str, name: str, account: str = "guest") -> dict[str, object]:
    return {"kind": "human", "player_id": player_id, "name": name, "account": account}


@pytest.mark.parametrize("account", ["guest", "registered"])
async def test_a_game_naming_one_player_in_two_seats_is_refused_and_not_written(
        table: httpx.AsyncClient, nc: NatsClient, account: str) -> None:
    anna, game_id = "anna-" + uuid.uuid4().hex[:8], uuid.uuid4().hex
    seats = [human(anna, "Anna", account), {"kind": "bot", "level": "normal", "name": "Computer 1"},
             human(anna, "Anna (zweites Fenster)", account)]

    with pytest.raises(CommandRefused) as refused:
        await request(nc, TABLE_START, {"game_id": game_id, "game": "speedmosaik",
                                        "settings": {"workshop": "kachelwand"}, "seats": seats})

    assert refused.value.status == 422 and refused.value.code == "two_seats_one_player"
    assert refused.value.reason == ("Platz 1 und Platz 3 nennen denselben Spieler: jeder Mensch spielt auf "
                                    "genau einem Platz einer Partie.")
    assert await GameLog(nc.jetstream()).read(game_id) == []
    assert (await table.get(f"/games/{game_id}")).status_code == 404


async def test_computers_may_hold_several_seats(table: httpx.AsyncClient, nc: NatsClient) -> None:
    seats = [human("bea-" + uuid.uuid4().hex[:8], "Bea"), {"kind": "bot", "level": "easy", "name": "Computer 1"},
             {"kind": "bot", "level": "easy", "name": "Computer 2"}]

    started = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": {"workshop": "kachelwand"},
                                              "seats": seats})

    assert len(await GameLog(nc.jetstream()).read(str(started["game_id"]))) >= 1
