"""Appends to a game's log on a real JetStream: guarded by the last sequence, and stored once."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import nats
import pytest

from libs.platform.envelope import Event, EventType, new_event
from libs.platform.nats_client import connect
from services.table.event_store import AppendConflict, GameLog
from tests.conftest import Infrastructure


@pytest.fixture(params=["platform", "nats-py"])
async def log(request: pytest.FixtureRequest, infra: Infrastructure) -> AsyncIterator[GameLog]:
    """A GameLog over the platform's client and over nats-py's own."""
    client = await connect(infra.nats_url) if request.param == "platform" else await nats.connect(infra.nats_url)
    yield GameLog(client.jetstream())
    await client.drain()


def event(game_id: str, n: int, prev: str) -> Event:
    return new_event(game_id=game_id, n=n, type=EventType.PLAYER_LEFT if n > 1 else EventType.GAME_STARTED,
                     actor="system", rules="test-v1", data={"n": n}, prev=prev)


async def test_appends_chain_on_the_last_sequence_and_a_stale_or_repeated_one_is_refused(log: GameLog) -> None:
    game_id = uuid.uuid4().hex
    first = event(game_id, 1, "0" * 64)
    seq = await log.append(first, 0)
    second = event(game_id, 2, first.hash)
    with pytest.raises(AppendConflict):  # written as if the log were still empty: another writer was first
        await log.append(second, 0)
    assert (await log.append(second, seq)) > seq
    with pytest.raises(AppendConflict):  # the same event again (a retry): stored once
        await log.append(second, seq)
    assert [stored.event for stored in await log.read(game_id)] == [first, second]

