"""Durable JetStream pull consumers whose handlers ack on success and nak on failure (never swallow)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeout
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from opentelemetry.trace import SpanKind

from libs.platform.contracts.base import Contract, ContractError
from libs.platform.logging import get_logger
from libs.platform.tracing import Traced, nats_attributes, parent_of

MessageHandler = Callable[[Msg], Awaitable[None]]
BatchHandler = Callable[[list[Msg]], Awaitable[None]]
C = TypeVar("C", bound=Contract)


def decoding(contract: type[C], handler: Callable[[C], Awaitable[None]], *, malformed: str) -> MessageHandler:
    """Return a message handler that hands `handler` the message decoded as `contract`.

    A message that does not fit is logged as `malformed` (with its subject and the German reason) and
    acked: redelivering cannot repair it.
    """
    log = get_logger(contract=contract.__name__)

    async def handle(msg: Msg) -> None:
        try:
            value = contract.decode(msg.data)
        except ContractError as error:
            log.error(malformed, subject=msg.subject, problem=error.reason)
            return
        await handler(value)

    return handle


FETCH_TIMEOUT = 1.0
"""How long one fetch waits for work; also how soon an idle loop notices that the service is stopping."""
SMALL_BATCH = 8
"""A fetch that hands over fewer messages than this finds the stream quiet: a lingering consumer waits then."""
SHUTDOWN_GRACE = 8.0
"""How long handlers running when the service stops may take to finish before their messages are handed back."""


async def _linger(seconds: float, wake: asyncio.Event) -> None:
    """Wait `seconds`, or until `wake` is set (then cleared for the next wait)."""
    if not wake.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), seconds)
    wake.clear()


def retry_delay(deliveries: int) -> float:
    """Seconds until a message whose handler failed on its `deliveries`-th delivery is offered again.

    1, 2, 4, 8, then 10 s: quick after a passing hiccup, and with the default 20 deliveries a message
    outlasts about three minutes of a database failing over or a service restarting (a fixed second gave
    up after twenty seconds, and a dropped bot turn or deadline leaves its game waiting for ever).
    """
    return float(min(2 ** max(deliveries - 1, 0), 10))


async def run_pull_consumer(
    js: JetStreamContext,
    *,
    stream: str,
    durable: str,
    subject: str,
    handler: MessageHandler,
    concurrency: int = 1,
    ack_wait: float = 30.0,
    max_deliver: int = 20,
    stopping: asyncio.Event | None = None,
    grace: float = SHUTDOWN_GRACE,
    linger: float = 0.0,
    wake: asyncio.Event | None = None,
) -> None:
    """Process `subject` on `stream` through the shared durable consumer `durable` until stopped or cancelled.

    Every replica that runs this with the same `durable` shares the work. A handler that raises gets its
    message nak'ed with a growing delay (`retry_delay`), so JetStream redelivers it (up to `max_deliver`
    times, which then spans minutes of an outage of what the handler needs).

    Once `stopping` is set, no more messages are fetched; handlers already running get `grace` seconds to
    finish, and the message of every handler still running after that (or handed over but not started) is
    nak'ed at once, so another replica gets it now instead of after `ack_wait`. Then this returns.
    Cancelling is the same stop without the grace.

    With `linger`, the loop waits that many seconds after a fetch that handed over fewer than SMALL_BATCH
    messages, so a quiet stream is taken a few messages per fetch instead of one wake-up (a fetch, a task,
    an ack) per message, each landing next to the command that wrote it; a busy stream is never waited on.
    A handler sets `wake` when it has set off something whose answer comes back on the stream soon (a
    computer's move): the wait ends then, and the next fetch takes the answer as soon as it is stored.
    """
    log = get_logger(consumer=durable)
    span_name = f"process {durable}"
    attributes = nats_attributes(subject, **{"messaging.operation.type": "process",
                                             "messaging.consumer.group.name": durable})
    stopping = stopping if stopping is not None else asyncio.Event()
    subscription = await js.pull_subscribe(subject, durable=durable, stream=stream, config=_config(
        durable, subject, ack_wait=ack_wait, max_deliver=max_deliver, max_ack_pending=max(64, concurrency * 4)))
    running: dict[asyncio.Task[None], Msg] = {}
    room = asyncio.Event()
    wake = wake if wake is not None else asyncio.Event()

    async def handle(msg: Msg) -> None:
        # The handler's span is the child of the context the message was sent with (libs/platform/tracing.py):
        # one trace from a move to what follows from it.
        with Traced(span_name, SpanKind.CONSUMER, parent_of(msg.headers), attributes):
            try:
                await handler(msg)
                await msg.ack()
            except Exception:
                await _failed(log, msg, max_deliver)

    def finished(task: asyncio.Task[None]) -> None:
        running.pop(task, None)
        room.set()

    async def wake_on_stop() -> None:
        await stopping.wait()
        room.set()
        wake.set()  # a linger ends too

    waker = asyncio.create_task(wake_on_stop())
    try:
        while not stopping.is_set():
            # A fetch may hand over more than it asked for (late messages of an earlier fetch), so the
            # slots can be overfull: wait until one is free, never ask for a batch of zero.
            while len(running) >= concurrency and not stopping.is_set():
                room.clear()
                await room.wait()
            if stopping.is_set():
                break
            try:
                messages = await subscription.fetch(concurrency - len(running), timeout=FETCH_TIMEOUT)
            except (NatsTimeout, TimeoutError):  # an idle fetch ends in either, depending on where it waited
                continue
            if stopping.is_set():  # fetched while the stop began: hand them back rather than start them
                await _hand_back(messages)
                break
            for msg in messages:
                task = asyncio.create_task(handle(msg))
                running[task] = msg
                task.add_done_callback(finished)
            if linger and len(messages) < SMALL_BATCH:
                await _linger(linger, wake)
        if running:
            log.info("consumer_stopping", in_flight=len(running))
            await asyncio.wait(set(running), timeout=grace)
    finally:
        waker.cancel()
        unfinished = list(running.items())
        for task, _ in unfinished:
            task.cancel()
        await asyncio.gather(*(task for task, _ in unfinished), return_exceptions=True)
        # Handed back now, whether their handler ran out of grace or the loop was cancelled.
        await _hand_back([msg for _, msg in unfinished] + _undelivered(subscription))
        try:
            await subscription.unsubscribe()
        except Exception:  # connection may already be closed at shutdown
            pass


def _config(durable: str, subject: str, *, ack_wait: float, max_deliver: int, max_ack_pending: int) -> ConsumerConfig:
    """The durable consumer's settings: explicit acks, from the stream's start, one subject."""
    return ConsumerConfig(durable_name=durable, ack_policy=AckPolicy.EXPLICIT, deliver_policy=DeliverPolicy.ALL,
                          ack_wait=ack_wait, max_deliver=max_deliver, filter_subject=subject,
                          max_ack_pending=max_ack_pending)


async def _failed(log: Any, msg: Msg, max_deliver: int) -> None:
    """Log the exception being handled for `msg` and nak it to be offered again after `retry_delay`."""
    deliveries = msg.metadata.num_delivered or 1
    if deliveries >= max_deliver:  # JetStream will not offer it again: an operator must look
        log.exception("message_dropped", subject=msg.subject, deliveries=deliveries)
    else:
        log.exception("message_failed", subject=msg.subject, deliveries=deliveries)
    await msg.nak(delay=retry_delay(deliveries))


def message_span(durable: str, msg: Msg) -> Traced:
    """The span of one message's work, the child of the context it was sent with (libs/platform/tracing.py), for a
    batch handler to enter per message: one trace from a move to what follows from it."""
    return Traced(f"process {durable}", SpanKind.CONSUMER, parent_of(msg.headers),
                  nats_attributes(msg.subject, **{"messaging.operation.type": "process",
                                                  "messaging.consumer.group.name": durable}))


async def run_batch_consumer(
    js: JetStreamContext,
    *,
    stream: str,
    durable: str,
    subject: str,
    handler: BatchHandler,
    batch: int = 32,
    ack_wait: float = 30.0,
    max_deliver: int = 20,
    stopping: asyncio.Event | None = None,
    grace: float = SHUTDOWN_GRACE,
    linger: float = 0.0,
) -> None:
    """Process `subject` on `stream` through the shared durable consumer `durable`, handing `handler` what one
    fetch brings (up to `batch` messages, in the stream's order) at once, until stopped or cancelled.

    For work whose fixed cost is per unit of work rather than per message (a transaction per batch instead of
    one per message). A handler that returns has done every message it was handed: they are acked. One that
    raises is handed each message again alone, so one message it cannot take never holds the others back: those
    that fail alone are nak'ed with `retry_delay`, as `run_pull_consumer` does. A handler must therefore be
    all-or-nothing per call (one transaction) and take a message twice as once.

    One batch runs at a time. Once `stopping` is set, no more messages are fetched; a batch still running gets
    `grace` seconds, after which it is cancelled and its messages are nak'ed at once, so another replica gets
    them now instead of after `ack_wait`. Cancelling is the same stop without the grace. The handler enters
    `message_span` per message for tracing.

    With `linger`, the loop waits that many seconds after a batch that was not full, so a trickle is taken
    several messages at a time instead of one per batch (a stop ends the wait).
    """
    log = get_logger(consumer=durable)
    stopping = stopping if stopping is not None else asyncio.Event()
    subscription = await js.pull_subscribe(subject, durable=durable, stream=stream, config=_config(
        durable, subject, ack_wait=ack_wait, max_deliver=max_deliver, max_ack_pending=max(64, batch * 4)))

    async def handle(messages: list[Msg]) -> None:
        try:
            await handler(messages)
        except Exception:
            if len(messages) == 1:
                await _failed(log, messages[0], max_deliver)
                return
            log.warning("batch_failed", size=len(messages), exc_info=True)
            for msg in messages:  # alone, so the one that fails is the only one offered again
                try:
                    await handler([msg])
                except Exception:
                    await _failed(log, msg, max_deliver)
                else:
                    await msg.ack()
            return
        for msg in messages:
            await msg.ack()

    unfinished: list[Msg] = []
    try:
        while not stopping.is_set():
            try:
                messages = await subscription.fetch(batch, timeout=FETCH_TIMEOUT)
            except (NatsTimeout, TimeoutError):  # an idle fetch ends in either, depending on where it waited
                continue
            messages = [msg for msg in messages if not JetStreamContext.is_status_msg(msg)]
            if stopping.is_set():  # fetched while the stop began: hand them back rather than start them
                await _hand_back(messages)
                break
            if not messages:
                continue
            unfinished = messages
            work = asyncio.create_task(handle(messages))
            if not await _finished_or_stopped(work, stopping, grace):
                log.info("consumer_stopping", in_flight=len(messages))
                break
            unfinished = []
            if linger and len(messages) < batch:
                with contextlib.suppress(TimeoutError):  # a stop ends the wait at once
                    await asyncio.wait_for(stopping.wait(), linger)
    finally:
        # A batch cut short (out of grace, or the loop cancelled) is handed back whole: its transaction did not
        # commit, or it did and the handler takes the messages twice as once.
        await _hand_back(unfinished + _undelivered(subscription))
        try:
            await subscription.unsubscribe()
        except Exception:  # connection may already be closed at shutdown
            pass


async def _finished_or_stopped(work: asyncio.Task[None], stopping: asyncio.Event, grace: float) -> bool:
    """Wait for `work`; once `stopping` is set, `grace` seconds more at most. Return whether it finished; an
    unfinished one is cancelled (as it is when the waiting itself is cancelled)."""
    stop = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
        if not work.done():
            await asyncio.wait({work}, timeout=grace)
    finally:
        stop.cancel()
        if not work.done():
            work.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await work
    return not work.cancelled()


def _undelivered(subscription: JetStreamContext.PullSubscription) -> list[Msg]:
    """Take the messages a fetch received too late to return them (they wait in the subscription's queue)."""
    inner = subscription._sub  # nats-py keeps them there for the next fetch; no public way to take them
    if inner is None:
        return []
    queue = inner._pending_queue
    late: list[Msg] = []
    while not queue.empty():
        msg = queue.get_nowait()
        if not JetStreamContext.is_status_msg(msg):  # status messages answer fetches; they carry no work
            late.append(msg)
    return late


async def _hand_back(messages: list[Msg]) -> None:
    """Nak `messages` without delay, so JetStream redelivers them at once (to another replica, if any)."""
    for msg in messages:
        try:
            await msg.nak()
        except Exception:  # connection gone: JetStream redelivers after ack_wait anyway
            pass
