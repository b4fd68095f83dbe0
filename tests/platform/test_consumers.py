"""Durable pull consumers on a real JetStream: idle without crashing, and stopping without losing work."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import pytest
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js.api import StreamConfig

from libs.platform.consumers import FETCH_TIMEOUT, retry_delay, run_batch_consumer, run_pull_consumer


@dataclass
class Queue:
    """A throwaway stream with one subject and one durable consumer name."""

    nc: NatsClient
    stream: str
    subject: str
    durable: str

    async def publish(self, body: bytes) -> None:
        await self.nc.jetstream().publish(self.subject, body, stream=self.stream)

    def consume(self, handler: Callable[[Msg], Awaitable[None]], stopping: asyncio.Event, *,
                grace: float = 5.0, ack_wait: float = 30.0, linger: float = 0.0,
                wake: asyncio.Event | None = None) -> asyncio.Task[None]:
        return asyncio.create_task(run_pull_consumer(
            self.nc.jetstream(), stream=self.stream, durable=self.durable, subject=self.subject,
            handler=handler, concurrency=4, ack_wait=ack_wait, stopping=stopping, grace=grace, linger=linger,
            wake=wake))

    def consume_batches(self, handler: Callable[[list[Msg]], Awaitable[None]], stopping: asyncio.Event, *,
                        grace: float = 5.0, linger: float = 0.0) -> asyncio.Task[None]:
        return asyncio.create_task(run_batch_consumer(
            self.nc.jetstream(), stream=self.stream, durable=self.durable, subject=self.subject,
            handler=handler, batch=16, ack_wait=60.0, stopping=stopping, grace=grace, linger=linger))

    async def consume_until(self, handler: Callable[[Msg], Awaitable[None]], reached: Callable[[], bool], *,
                            timeout: float = 15.0) -> None:
        """Runs a fresh consumer (another replica) until `reached()` holds, then stops it and waits for its end."""
        stopping = asyncio.Event()
        loop = self.consume(handler, stopping, ack_wait=60.0)
        try:
            await wait_until(lambda: asyncio.sleep(0, reached()), timeout=timeout)
        finally:
            stopping.set()
            await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)

    async def counts(self) -> tuple[int, int]:
        """Messages (not yet delivered, delivered but not acknowledged) of the durable consumer."""
        info = await self.nc.jetstream().consumer_info(self.stream, self.durable)
        return info.num_pending, info.num_ack_pending


@pytest.fixture
async def queue(nc: NatsClient) -> AsyncIterator[Queue]:
    name = uuid.uuid4().hex[:12]
    stream, subject = f"TEST_CONSUMER_{name}", f"test.consumer.{name}"
    await nc.jetstream().add_stream(StreamConfig(name=stream, subjects=[subject]))
    yield Queue(nc=nc, stream=stream, subject=subject, durable=f"test-{name}")
    await nc.jetstream().delete_stream(stream)


async def wait_until(check: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not reached within {timeout} s")


async def test_an_idle_consumer_keeps_fetching_and_handles_what_comes_later(queue: Queue) -> None:
    handled: list[bytes] = []

    async def handle(msg: Msg) -> None:
        handled.append(msg.data)

    stopping = asyncio.Event()
    loop = queue.consume(handle, stopping)
    await asyncio.sleep(FETCH_TIMEOUT * 3.5)  # several fetches end without a message

    assert not loop.done(), "the consumer loop ended (crashed) while idle"
    await queue.publish(b"after a quiet while")
    await wait_until(lambda: asyncio.sleep(0, bool(handled)))
    stopping.set()
    await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)
    assert handled == [b"after a quiet while"]
    assert await queue.counts() == (0, 0)


async def test_a_lingering_consumer_handles_a_trickle_and_a_burst_each_message_once(queue: Queue) -> None:
    handled: list[bytes] = []

    async def handle(msg: Msg) -> None:
        handled.append(msg.data)

    stopping = asyncio.Event()
    loop = queue.consume(handle, stopping, linger=0.05)
    for i in range(10):  # one at a time: every fetch finds a small batch and the loop lingers after it
        await queue.publish(b"single %d" % i)
        await asyncio.sleep(0.01)
    await asyncio.gather(*(queue.publish(b"burst %d" % i) for i in range(40)))
    await wait_until(lambda: asyncio.sleep(0, len(handled) >= 50))
    stopping.set()
    await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)
    assert sorted(handled) == sorted([b"single %d" % i for i in range(10)] + [b"burst %d" % i for i in range(40)])
    assert await queue.counts() == (0, 0)


async def test_a_handler_that_sets_off_an_answer_ends_the_linger_and_the_answer_is_handled_at_once(
        queue: Queue) -> None:
    handled: list[bytes] = []
    wake = asyncio.Event()

    async def handle(msg: Msg) -> None:
        handled.append(msg.data)
        if msg.data == b"your turn":  # as the follow-up asking a computer to move
            wake.set()
            asyncio.get_running_loop().call_later(0.2, lambda: asyncio.ensure_future(queue.publish(b"my move")))

    stopping = asyncio.Event()
    loop = queue.consume(handle, stopping, linger=60.0, wake=wake)  # a linger no test would wait out
    await queue.publish(b"your turn")
    await wait_until(lambda: asyncio.sleep(0, handled == [b"your turn", b"my move"]), timeout=20.0)
    stopping.set()
    await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)
    assert await queue.counts() == (0, 0)


async def test_a_handler_running_when_the_service_stops_finishes_and_nothing_new_is_taken(queue: Queue) -> None:
    started, release = asyncio.Event(), asyncio.Event()
    finished: list[bytes] = []
    successor_got: list[bytes] = []

    async def handle(msg: Msg) -> None:
        started.set()
        await release.wait()
        finished.append(msg.data)

    async def successor(msg: Msg) -> None:
        successor_got.append(msg.data)

    stopping = asyncio.Event()
    # A minute before JetStream would redeliver an unacknowledged message by itself.
    loop = queue.consume(handle, stopping, grace=10.0, ack_wait=60.0)
    await queue.publish(b"in flight")
    await asyncio.wait_for(started.wait(), timeout=10)

    stopping.set()
    await asyncio.sleep(FETCH_TIMEOUT + 0.5)  # long enough for a loop that kept fetching to take more
    await queue.publish(b"after the stop")
    await asyncio.sleep(0.5)
    assert not loop.done(), "the loop must wait for the handler it runs"
    release.set()
    await asyncio.wait_for(loop, timeout=10)
    assert finished == [b"in flight"]

    # The message published after the stop was left (or handed back at once) for another replica.
    await queue.consume_until(successor, lambda: bool(successor_got))
    assert successor_got == [b"after the stop"]
    assert await queue.counts() == (0, 0)


async def test_a_handler_that_outlasts_the_grace_has_its_message_redelivered_at_once(queue: Queue) -> None:
    first_delivery = asyncio.Event()
    redelivered: list[int] = []

    async def hang(msg: Msg) -> None:
        first_delivery.set()
        await asyncio.Event().wait()  # never finishes on its own

    async def handle(msg: Msg) -> None:
        redelivered.append(msg.metadata.num_delivered)

    stopping = asyncio.Event()
    # A minute before JetStream would redeliver an unacknowledged message by itself.
    loop = queue.consume(hang, stopping, grace=0.5, ack_wait=60.0)
    await queue.publish(b"slow")
    await asyncio.wait_for(first_delivery.wait(), timeout=10)
    stopping.set()
    await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)

    await queue.consume_until(handle, lambda: bool(redelivered))
    assert redelivered == [2]
    assert await queue.counts() == (0, 0)


async def test_cancelling_a_consumer_hands_its_messages_back_at_once(queue: Queue) -> None:
    started = asyncio.Event()
    redelivered: list[int] = []

    async def hang(msg: Msg) -> None:
        started.set()
        await asyncio.Event().wait()

    async def handle(msg: Msg) -> None:
        redelivered.append(msg.metadata.num_delivered)

    loop = queue.consume(hang, asyncio.Event(), ack_wait=60.0)
    await queue.publish(b"taken")
    await asyncio.wait_for(started.wait(), timeout=10)
    loop.cancel()
    with pytest.raises(asyncio.CancelledError):
        await loop

    await queue.consume_until(handle, lambda: bool(redelivered))
    assert redelivered == [2]


async def test_a_failing_handler_gets_its_message_again_later_each_time_until_it_succeeds(queue: Queue) -> None:
    deliveries: list[tuple[int, float]] = []

    async def flaky(msg: Msg) -> None:
        deliveries.append((msg.metadata.num_delivered, time.monotonic()))
        if msg.metadata.num_delivered < 3:
            raise RuntimeError("the database is failing over")

    stopping = asyncio.Event()
    loop = queue.consume(flaky, stopping)
    await queue.publish(b"needs the database")
    try:
        await wait_until(lambda: asyncio.sleep(0, len(deliveries) == 3), timeout=20)
    finally:
        stopping.set()
        await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)
    assert [number for number, _ in deliveries] == [1, 2, 3]
    # The second failure waits longer than the first: an outage gets more time with every failure.
    assert deliveries[2][1] - deliveries[1][1] >= retry_delay(2) - 0.1
    assert await queue.counts() == (0, 0)
    assert [retry_delay(n) for n in (1, 2, 3, 4, 5, 20)] == [1, 2, 4, 8, 10, 10]


async def test_a_batch_consumer_hands_over_a_backlog_in_batches_in_order_each_message_once(queue: Queue) -> None:
    batches: list[list[bytes]] = []

    async def handle(messages: list[Msg]) -> None:
        batches.append([msg.data for msg in messages])

    for i in range(40):  # a backlog, as after the leaderboard was down a while
        await queue.publish(b"game %02d" % i)
    stopping = asyncio.Event()
    loop = queue.consume_batches(handle, stopping)
    await wait_until(lambda: asyncio.sleep(0, sum(map(len, batches)) >= 40))
    await queue.publish(b"later")
    await wait_until(lambda: asyncio.sleep(0, sum(map(len, batches)) >= 41))
    stopping.set()
    await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)

    assert [data for batch in batches for data in batch] == [b"game %02d" % i for i in range(40)] + [b"later"]
    assert max(map(len, batches)) == 16, "a backlog is taken a full batch at a time"
    assert await queue.counts() == (0, 0)


async def test_a_batch_that_fails_is_taken_again_message_by_message_and_only_the_bad_one_comes_back(
        queue: Queue) -> None:
    done: list[bytes] = []
    calls: list[list[tuple[bytes, int]]] = []

    async def handle(messages: list[Msg]) -> None:  # all or nothing, as one transaction
        calls.append([(msg.data, msg.metadata.num_delivered) for msg in messages])
        if any(msg.data == b"poison" and msg.metadata.num_delivered < 3 for msg in messages):
            raise RuntimeError("a constraint the database refuses")
        done.extend(msg.data for msg in messages)

    for body in (b"a", b"poison", b"b"):
        await queue.publish(body)
    stopping = asyncio.Event()
    loop = queue.consume_batches(handle, stopping)
    try:
        await wait_until(lambda: asyncio.sleep(0, b"poison" in done), timeout=20)
    finally:
        stopping.set()
        await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)

    assert sorted(done) == [b"a", b"b", b"poison"], "each message is done once"
    assert done.index(b"a") < done.index(b"poison") and done.index(b"b") < done.index(b"poison")
    # The good ones were done alone right after the batch failed; the bad one came back later on its own.
    assert [(data, delivered) for call in calls if len(call) == 1 for data, delivered in call][-1] == (b"poison", 3)
    assert await queue.counts() == (0, 0)


async def test_a_batch_that_outlasts_the_grace_is_handed_back_whole_at_once(queue: Queue) -> None:
    started = asyncio.Event()
    redelivered: list[tuple[bytes, int]] = []

    async def hang(messages: list[Msg]) -> None:
        started.set()
        await asyncio.Event().wait()  # never finishes on its own

    async def successor(msg: Msg) -> None:
        redelivered.append((msg.data, msg.metadata.num_delivered))

    for body in (b"one", b"two", b"three"):
        await queue.publish(body)
    stopping = asyncio.Event()
    loop = queue.consume_batches(hang, stopping, grace=0.5)
    await asyncio.wait_for(started.wait(), timeout=10)
    stopping.set()
    await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)

    # Handed back now, not after the minute of ack_wait: another replica takes them at once.
    await queue.consume_until(successor, lambda: len(redelivered) >= 3, timeout=10)
    assert sorted(redelivered) == [(b"one", 2), (b"three", 2), (b"two", 2)]
    assert await queue.counts() == (0, 0)


async def test_a_lingering_batch_consumer_takes_a_trickle_several_at_a_time(queue: Queue) -> None:
    batches: list[list[bytes]] = []

    async def handle(messages: list[Msg]) -> None:
        batches.append([msg.data for msg in messages])

    stopping = asyncio.Event()
    loop = queue.consume_batches(handle, stopping, linger=1.0)
    for i in range(12):  # a game end every 0.1 s
        await queue.publish(b"end %d" % i)
        await asyncio.sleep(0.1)
    await wait_until(lambda: asyncio.sleep(0, sum(map(len, batches)) >= 12))
    stopping.set()
    await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)

    assert [data for batch in batches for data in batch] == [b"end %d" % i for i in range(12)]
    assert len(batches) <= 4, f"a trickle of 12 came in {len(batches)} batches"
    assert await queue.counts() == (0, 0)


async def test_a_stop_ends_a_batch_consumers_linger(queue: Queue) -> None:
    handled: list[bytes] = []

    async def handle(messages: list[Msg]) -> None:
        handled.extend(msg.data for msg in messages)

    stopping = asyncio.Event()
    loop = queue.consume_batches(handle, stopping, linger=60.0)  # a linger no test would wait out
    await queue.publish(b"alone")
    await wait_until(lambda: asyncio.sleep(0, handled == [b"alone"]))
    stopping.set()
    await asyncio.wait_for(loop, timeout=FETCH_TIMEOUT + 5)
    assert await queue.counts() == (0, 0)
