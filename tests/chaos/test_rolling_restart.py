"""A rolling restart (SIGTERM, one replica at a time) of two table and two bot replicas while games run."""

from __future__ import annotations

import asyncio
import signal
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import (
    BOT_TURNS_DURABLE,
    BOT_TURNS_STREAM,
    GAMES_STREAM,
    TABLE_FOLLOWUP_DURABLE,
)
from tests.chaos.fleet import LANDED, Fleet, check_logs, has_ended, start_computer_game, wait_until_all_ended
from tests.conftest import Infrastructure
from tests.game_facts import consumer_is_done

GAMES_PER_RESTART = 3


@pytest.fixture(scope="module")
def fleet(infra: Infrastructure, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    """Two table and two bot replicas, and one of each other service; computers pause a little before
    moving, so the games are still running while the replicas are replaced."""
    logs: Path = tmp_path_factory.mktemp("rolling-restart-logs")
    fleet = Fleet(env=infra.env(), logs=logs, extra_env={"bot": {"BOT_MOVE_DELAY": "0.1"}})
    try:
        yield fleet.start({"table": 2, "bot": 2, "lobby": 1, "ledger": 1, "leaderboard": 1})
    finally:
        fleet.stop()


@pytest.fixture
async def operator(infra: Infrastructure) -> AsyncIterator[NatsClient]:
    client = await nats.connect(infra.nats_url)
    yield client
    await client.close()


async def test_a_rolling_restart_of_tables_and_bots_during_games_loses_and_doubles_nothing(
        fleet: Fleet, operator: NatsClient) -> None:
    game_ids: list[str] = []
    running_at_stop: list[int] = []
    for process in [*fleet.replicas["table"], *fleet.replicas["bot"]]:
        wave = [uuid.uuid4().hex for _ in range(GAMES_PER_RESTART)]
        for index, game_id in enumerate(wave):
            settings = LANDED[(len(game_ids) + index) % len(LANDED)]
            await start_computer_game(operator, game_id, settings, seats=2 + index % 3)
        game_ids += wave
        await asyncio.sleep(1.0)  # the new games are under way: moves, follow-ups and bot turns in flight
        running_at_stop.append(sum([not await has_ended(operator, game_id) for game_id in game_ids]))
        exit_code = await asyncio.to_thread(process.stop)
        # uvicorn re-raises the SIGTERM it handled once the shutdown is done; -9 would mean it was killed.
        assert exit_code == -signal.SIGTERM, f"{process.name} on port {process.port} did not stop by itself"
        await asyncio.to_thread(process.start)
        await asyncio.to_thread(process.wait_ready, 90)

    assert all(running_at_stop), running_at_stop  # every replica went down in the middle of games
    await wait_until_all_ended(operator, game_ids, timeout=150)
    await check_logs(operator, [fleet.url("table", 0), fleet.url("table", 1)], game_ids)
    # Nothing was left behind for later: every event followed up, every computer's turn taken.
    await consumer_is_done(operator.jetstream(), GAMES_STREAM, TABLE_FOLLOWUP_DURABLE, timeout=30)
    await consumer_is_done(operator.jetstream(), BOT_TURNS_STREAM, BOT_TURNS_DURABLE, timeout=30)
