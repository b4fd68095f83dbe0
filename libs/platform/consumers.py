"""Durable JetStream pull consumers whose handlers ack on success and nak on failure (never swallow)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeout
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from libs.platform.contracts.base import Contract, ContractError
from libs.platform.logging import CORRELATION_HEADER, correlation_id, get_logger

MessageHandler = Callable[[Msg], Awaitable[None]]
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
) -> None:
    """Process `subject` on `stream` through the shared durable consumer `durable` until cancelled.

    Every replica that runs this with the same `durable` shares the work. A handler that raises gets its
    message nak'ed with a short delay, so JetStream redelivers it (up to `max_deliver` times).
    """
    log = get_logger(consumer=durable)
    config = ConsumerConfig(
        durable_name=durable,
        ack_policy=AckPolicy.EXPLICIT,
        deliver_policy=DeliverPolicy.ALL,
        ack_wait=ack_wait,
        max_deliver=max_deliver,
        filter_subject=subject,
        max_ack_pending=max(64, concurrency * 4),
    )
    subscription = await js.pull_subscribe(subject, durable=durable, stream=stream, config=config)
    running: set[asyncio.Task[None]] = set()
    room = asyncio.Event()

    async def handle(msg: Msg) -> None:
        token = correlation_id.set((msg.headers or {}).get(CORRELATION_HEADER))
        try:
            await handler(msg)
            await msg.ack()
        except Exception:
            log.exception("message_failed", subject=msg.subject)
            await msg.nak(delay=1.0)
        finally:
            correlation_id.reset(token)

    def finished(task: asyncio.Task[None]) -> None:
        running.discard(task)
        room.set()

    try:
        while True:
            # A fetch may hand over more than it asked for (late messages of an earlier fetch), so the
            # slots can be overfull: wait until one is free, never ask for a batch of zero.
            while len(running) >= concurrency:
                room.clear()
                await room.wait()
            try:
                messages = await subscription.fetch(concurrency - len(running), timeout=1.0)
            except (NatsTimeout, TimeoutError):  # an idle fetch ends in either, depending on where it waited
                continue
            for msg in messages:
                task = asyncio.create_task(handle(msg))
                running.add(task)
                task.add_done_callback(finished)
    finally:
        for task in running:
            task.cancel()
        try:
            await subscription.unsubscribe()
        except Exception:  # connection may already be closed at shutdown
            pass
