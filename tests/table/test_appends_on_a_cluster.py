"""A game's log on a three-node JetStream cluster: an append stores its event exactly once, also while the stream's
leader is lost, when the answer to an earlier attempt never came, and when two replicas write the same event number
at once (a clustered stream answers that race differently from a single server)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client as NatsClient

from libs.platform import nats_client
from libs.platform.contracts.subjects import GAMES_STREAM, game_subject
from libs.platform.envelope import GENESIS, Event, EventType, new_event
from services.table.event_store import AppendConflict, GameLog
from tests.conftest import ClusterInfrastructure


@pytest.fixture
async def operator(nats_cluster: ClusterInfrastructure) -> AsyncIterator[NatsClient]:
    client = await nats_client.connect(nats_cluster.infra.nats_url, max_reconnect_attempts=-1,
                                       reconnect_time_wait=0.2)
    yield client
    await client.close()


def event(game_id: str, n: int = 1, actor: str = "system", prev: str = GENESIS) -> Event:
    return new_event(game_id=game_id, n=n, type=EventType.MOVE_MADE if n > 1 else EventType.GAME_STARTED,
                     actor=actor, rules="test", data={"by": actor}, prev=prev)


async def test_every_stream_has_three_replicas_with_a_leader(operator: NatsClient) -> None:
    js = operator.jetstream()
    for name in (GAMES_STREAM, "BOT_TURNS", "GAME_FACTS", "TIMERS", "GAME_SNAPSHOTS", "LOBBY"):
        info = await js.stream_info(name)
        assert info.config.num_replicas == 3, name
        assert info.cluster is not None and info.cluster.leader, name
        assert len(info.cluster.replicas or []) == 2, name


async def test_two_replicas_appending_the_same_event_number_store_one_and_the_other_is_told_of_a_conflict(
        operator: NatsClient) -> None:
    log = GameLog(operator.jetstream(), operator)
    # Both appends carry the same Nats-Msg-Id (game:1); on a cluster the second one usually arrives while the first
    # is being replicated, and JetStream answers "duplicate message id is in process" (10158): a conflict too.
    games = [uuid.uuid4().hex for _ in range(40)]
    outcomes = await asyncio.gather(*(log.append(event(game_id, actor=actor), 0)
                                      for game_id in games for actor in ("table-0", "table-1")),
                                    return_exceptions=True)
    for index, game_id in enumerate(games):
        pair = outcomes[2 * index:2 * index + 2]
        stored = [outcome for outcome in pair if isinstance(outcome, int)]
        assert len(stored) == 1 and sum(isinstance(outcome, AppendConflict) for outcome in pair) == 1, pair
        assert [entry.event.n for entry in await log.read(game_id)] == [1]


async def test_an_append_whose_earlier_attempt_was_stored_unanswered_returns_that_entry(
        operator: NatsClient) -> None:
    log = GameLog(operator.jetstream(), operator)
    game_id = uuid.uuid4().hex
    first = event(game_id)
    # The earlier attempt reached the stream, its answer did not reach the table (a node lost on the way back).
    stored = await operator.jetstream().publish(game_subject(game_id), first.encode(), stream=GAMES_STREAM,
                                                headers={"Nats-Msg-Id": first.msg_id,
                                                         "Nats-Expected-Last-Subject-Sequence": "0"})
    assert await log.append(first, 0) == stored.seq
    with pytest.raises(AppendConflict):  # another writer's event 1 is not this one
        await log.append(event(game_id, actor="table-1"), 0)
    assert [entry.event.hash for entry in await log.read(game_id)] == [first.hash]


async def test_appends_go_on_while_the_node_leading_games_is_killed_and_each_is_stored_once(
        nats_cluster: ClusterInfrastructure, operator: NatsClient) -> None:
    js = operator.jetstream()
    log = GameLog(js, operator)
    game_id = uuid.uuid4().hex
    appended: list[Event] = []

    async def keep_appending(count: int) -> None:
        prev, last_seq = GENESIS, 0
        for n in range(1, count + 1):
            next_event = event(game_id, n=n, prev=prev)
            last_seq = await log.append(next_event, last_seq)
            appended.append(next_event)
            prev = next_event.hash
            await asyncio.sleep(0.02)

    writer = asyncio.create_task(keep_appending(150))
    await asyncio.sleep(0.5)
    leader = (await js.stream_info(GAMES_STREAM)).cluster
    assert leader is not None and leader.leader
    node = nats_cluster.nats.node(leader.leader)
    await asyncio.to_thread(node.kill)
    try:
        await asyncio.wait_for(writer, 60)  # no append gave up: each waited out the election
    finally:
        await asyncio.to_thread(node.start)
        await asyncio.to_thread(node.wait_healthy, 60.0)
    stored = await log.read(game_id)
    assert [entry.event.n for entry in stored] == list(range(1, 151))
    assert [entry.event.hash for entry in stored] == [entry.hash for entry in appended]
    after = (await js.stream_info(GAMES_STREAM)).cluster
    assert after is not None and after.leader != leader.leader
    for _ in range(300):  # the node came back as a replica and catches up (within seconds)
        if leader.leader in {replica.name for replica in after.replicas or [] if replica.current}:
            break
        await asyncio.sleep(0.1)
        after = (await js.stream_info(GAMES_STREAM)).cluster
        assert after is not None
    assert leader.leader in {replica.name for replica in after.replicas or [] if replica.current}
