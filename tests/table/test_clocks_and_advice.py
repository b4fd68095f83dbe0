"""Think time per decision (durable JetStream deadlines) and the "Rat des Meisters", on real servers."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity, PlayerKind, issue_token
from libs.platform.contracts.subjects import TABLE_START
from libs.platform.envelope import Event, EventType
from libs.platform.rpc import request
from libs.platform.settings import Settings
from services.bot.app import create_app as bot_app
from services.table.app import create_app
from services.table.event_store import GameLog
from services.table.timers import Clock
from tests.conftest import TEST_AUTH_SECRET, running_app

ANNA = Identity(player_id="anna-" + uuid.uuid4().hex[:8], name="Anna", kind=PlayerKind.GUEST)
BERT = Identity(player_id="bert-" + uuid.uuid4().hex[:8], name="Bert", kind=PlayerKind.GUEST)


class LateClock(Clock):
    """A clock at the edge that runs 39 s behind, so a 30 s think time (+10 s grace) ends in ~2 s."""

    def now(self) -> datetime:
        return super().now() - timedelta(seconds=39)


def auth(identity: Identity) -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token(TEST_AUTH_SECRET, identity)}"}


@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with running_app(create_app(settings, clock=LateClock())) as client, running_app(bot_app(settings)):
        yield client


async def start(nc: NatsClient, seats: list[dict[str, object]], think_time: int | None) -> str:
    result = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": {}, "seats": seats,
                                             "platform": {"think_time": think_time}})
    return str(result["game_id"])


async def moves(nc: NatsClient, game_id: str) -> list[Event]:
    return [s.event for s in await GameLog(nc.jetstream()).read(game_id) if s.event.type == EventType.MOVE_MADE]


async def wait_for_moves(nc: NatsClient, game_id: str, count: int, timeout: float = 20.0) -> list[Event]:
    for _ in range(int(timeout / 0.1)):
        made = await moves(nc, game_id)
        if len(made) >= count:
            return made
        await asyncio.sleep(0.1)
    raise AssertionError(f"only {len(await moves(nc, game_id))} moves after {timeout} s")


HUMANS = [{"kind": "human", "player_id": ANNA.player_id, "name": "Anna"},
          {"kind": "human", "player_id": BERT.player_id, "name": "Bert"}]


async def test_when_think_time_runs_out_the_computer_makes_that_one_decision_and_the_log_says_so(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, HUMANS, think_time=30)
    first = (await wait_for_moves(nc, game_id, 1))[0]
    assert first.data["seat"] == 0 and first.data["chosen_by"] == "timeout" and first.actor == "system"
    view = (await table.get(f"/games/{game_id}/view", headers=auth(BERT))).json()
    assert view["seats"][0]["kind"] == "human" and view["seats"][0]["player_id"] == ANNA.player_id
    # Bert decides in time; the next decision is Anna's again, with a fresh clock of its own.
    answer = await table.post(f"/games/{game_id}/moves", headers=auth(BERT), json={"move": view["legal_moves"][0]})
    assert answer.status_code == 200
    made = await wait_for_moves(nc, game_id, 3)
    assert [m.data["chosen_by"] for m in made[:3]] == ["timeout", "player", "timeout"]
    assert [m.data["seat"] for m in made[:3]] == [0, 1, 0]


async def test_a_decision_made_in_time_is_never_taken_over(table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, HUMANS, think_time=30)
    view = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()
    assert (await table.post(f"/games/{game_id}/moves", headers=auth(ANNA),
                             json={"move": view["legal_moves"][-1]})).status_code == 200
    made = await wait_for_moves(nc, game_id, 2)  # Bert does not move: his clock runs out
    assert [(m.data["seat"], m.data["chosen_by"]) for m in made[:2]] == [(0, "player"), (1, "timeout")]
    await asyncio.sleep(1.0)
    assert all(not (m.data["seat"] == 0 and m.n == 2 and m.data["chosen_by"] == "timeout")
               for m in await moves(nc, game_id))


async def test_without_a_clock_nobody_is_hurried(table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, HUMANS, think_time=None)
    await asyncio.sleep(3.0)
    assert await moves(nc, game_id) == []


async def test_the_masters_advice_is_refused_when_other_humans_play(table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, HUMANS, think_time=None)
    refused = await table.get(f"/games/{game_id}/advice", headers=auth(ANNA))
    assert refused.status_code == 403 and "keine anderen Menschen" in refused.json()["detail"]


async def test_the_masters_advice_names_a_legal_move_and_its_reason_in_a_solo_game(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, [HUMANS[0], {"kind": "bot", "level": "normal"}], think_time=None)
    advice = await table.get(f"/games/{game_id}/advice", headers=auth(ANNA))
    assert advice.status_code == 200, advice.text
    body = advice.json()
    view = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()
    assert body["move"] in view["legal_moves"]
    assert body["reason"]["text"] and body["preview"]
    not_my_turn = await table.get(f"/games/{game_id}/advice", headers=auth(BERT))
    assert not_my_turn.status_code == 403
