"""A command whose repetition is harmless is sent again when the replica holding it dies without answering
(`rpc.call(attempt=...)`): the next attempt finds the living replicas, so the caller waits seconds, not its timeout."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import nats.errors
import pytest
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from libs.platform import nats_client
from libs.platform.contracts.commands import Command, ViewGame
from libs.platform.contracts.subjects import by_game_subject
from libs.platform.rpc import answer, call
from tests.conftest import Infrastructure


def view_command() -> Command[ViewGame, dict[str, Any]]:
    """A command about one game on a subject of this test's own (no partition mapping: its game subject is the
    dying replica's)."""
    return Command(f"test.resend.{uuid.uuid4().hex[:10]}", "test", ViewGame, dict, by_game=True)


async def dying_replica(infra: Infrastructure, subject: str) -> tuple[NatsClient, asyncio.Event, list[Msg]]:
    """A replica on its own connection that takes the game's requests (set, noted) and never answers them."""
    connection = await nats_client.connect(infra.nats_url)
    taken = asyncio.Event()
    held: list[Msg] = []

    async def hold(msg: Msg) -> None:
        held.append(msg)
        taken.set()

    await connection.subscribe(subject, queue="test", cb=hold)
    await connection.flush()
    return connection, taken, held


async def test_a_request_lost_with_its_replica_is_sent_again_and_answered_by_a_living_one(
        nc: NatsClient, infra: Infrastructure) -> None:
    command, game_id = view_command(), uuid.uuid4().hex
    dying, taken, _ = await dying_replica(infra, by_game_subject(command.subject, game_id))

    async def living(body: ViewGame) -> dict[str, Any]:
        return {"game_id": body.game_id, "answered_by": "living"}

    shared = await answer(nc, command, living)  # what every replica serves
    try:
        began = time.monotonic()
        asking = asyncio.create_task(call(nc, command, ViewGame(game_id=game_id, seat=0), timeout=30.0,
                                          attempt=0.5))
        await asyncio.wait_for(taken.wait(), timeout=5)
        await dying.close()  # gone with the request: its subscription leaves with its connection
        assert await asking == {"game_id": game_id, "answered_by": "living"}
        # Answered long before the caller's 30 s: it asked again instead of waiting for the lost answer.
        assert time.monotonic() - began < 15.0
    finally:
        await shared.unsubscribe()


async def test_without_an_answer_anywhere_the_caller_gives_up_at_its_timeout(
        nc: NatsClient, infra: Infrastructure) -> None:
    command, game_id = view_command(), uuid.uuid4().hex
    silent, _, held = await dying_replica(infra, by_game_subject(command.subject, game_id))
    try:
        began = time.monotonic()
        with pytest.raises(nats.errors.TimeoutError):
            await call(nc, command, ViewGame(game_id=game_id, seat=0), timeout=2.0, attempt=0.5)
        assert time.monotonic() - began >= 2.0 - 0.05  # its whole timeout, not one attempt's
        assert len(held) >= 3, "asked again after each attempt without an answer"
    finally:
        await silent.close()
