"""The local three-node JetStream cluster (`make run CLUSTER=3`, the `nats_cluster` fixture): a client with the
server list outlives the node it is connected to, and a publish waits out the loss of its stream's leader."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TypeVar

import nats.errors
import nats.js.errors

from libs.platform import nats_client
from libs.platform.contracts.subjects import BOT_TURNS_STREAM, GAME_FACTS_STREAM, GAMES_STREAM
from libs.platform.publishing import publish_patiently
from libs.platform.streams import ensure_streams
from tests.conftest import ClusterInfrastructure

T = TypeVar("T")


async def eventually(ask: Callable[[], Awaitable[T]], timeout: float = 30.0) -> T:
    """The answer of the JetStream API request `ask`, asked again while JetStream cannot answer it (a node lost may
    have led the cluster's meta group or the stream: a new leader is elected within seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await ask()
        except (nats.errors.TimeoutError, nats.errors.NoRespondersError, nats.js.errors.ServiceUnavailableError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def test_nats_url_names_every_node_and_a_client_reconnects_to_another_when_its_node_dies(
        nats_cluster: ClusterInfrastructure) -> None:
    nodes = nats_cluster.nats.nodes
    assert nats_cluster.infra.nats_url.count(",") == len(nodes) - 1 == 2
    assert nats_cluster.infra.env()["STREAM_REPLICAS"] == "3"
    client = await nats_client.connect(nats_cluster.infra.nats_url, max_reconnect_attempts=-1,
                                       reconnect_time_wait=0.2)
    try:
        first = client.connected_url
        assert first is not None
        node = next(node for node in nodes if node.port == first.port)
        await asyncio.to_thread(node.kill)
        try:
            for _ in range(100):
                if client.is_connected and client.connected_url is not None and client.connected_url.port != first.port:
                    break
                await asyncio.sleep(0.1)
            assert client.connected_url is not None and client.connected_url.port != first.port
            answer = await eventually(lambda: client.jetstream().stream_info(GAME_FACTS_STREAM))  # via another node
            assert answer.config.num_replicas == 3
        finally:
            await asyncio.to_thread(node.start)
            await asyncio.to_thread(node.wait_healthy, 60.0)
    finally:
        await client.close()


async def test_a_publish_waits_out_the_loss_of_its_streams_leader(nats_cluster: ClusterInfrastructure) -> None:
    client = await nats_client.connect(nats_cluster.infra.nats_url, max_reconnect_attempts=-1,
                                       reconnect_time_wait=0.2)
    js = client.jetstream()
    try:
        info = await eventually(lambda: js.stream_info(BOT_TURNS_STREAM))
        assert info.cluster is not None and info.cluster.leader
        node = nats_cluster.nats.node(info.cluster.leader)
        await asyncio.to_thread(node.kill)
        try:
            subject = f"bot.turn.{uuid.uuid4().hex}"
            # Right after the kill no node leads BOT_TURNS: a plain publish fails; this one is stored once elected.
            ack = await publish_patiently(js, subject, b"{}", stream=BOT_TURNS_STREAM,
                                          headers={"Nats-Msg-Id": subject})
            assert ack.stream == BOT_TURNS_STREAM and not ack.duplicate
            again = await publish_patiently(js, subject, b"{}", stream=BOT_TURNS_STREAM,
                                            headers={"Nats-Msg-Id": subject})
            assert again.duplicate and again.seq == ack.seq
            after = (await eventually(lambda: js.stream_info(BOT_TURNS_STREAM))).cluster
            assert after is not None and after.leader != info.cluster.leader
        finally:
            await asyncio.to_thread(node.start)
            await asyncio.to_thread(node.wait_healthy, 60.0)
        await eventually(lambda: js.purge_stream(BOT_TURNS_STREAM, subject=subject))
    finally:
        await client.close()


async def test_streams_are_ensured_while_a_restarted_cluster_still_elects_their_leaders(
        nats_cluster: ClusterInfrastructure) -> None:
    """`make run CLUSTER=3` a second time: the nodes come back on their data, the streams' leaders are elected
    seconds after the nodes answer, and the streams are ensured (by the stack, by every service) meanwhile."""
    await asyncio.to_thread(nats_cluster.nats.stop)
    await asyncio.to_thread(nats_cluster.nats.start)  # healthy: the cluster has its meta leader again
    client = await nats_client.connect(nats_cluster.infra.nats_url, max_reconnect_attempts=-1,
                                       reconnect_time_wait=0.2)
    try:
        await ensure_streams(client.jetstream(), replicas=3)
        info = await client.jetstream().stream_info(GAMES_STREAM)
        assert info.config.num_replicas == 3 and info.cluster is not None and info.cluster.leader
    finally:
        await client.close()
