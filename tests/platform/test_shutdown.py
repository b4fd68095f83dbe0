"""A service stopping (SIGTERM's lifespan shutdown) answers the commands it took and finishes its messages."""

from __future__ import annotations

import asyncio
import uuid
from contextlib import AsyncExitStack
from typing import Any

from fastapi import FastAPI
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.api import StreamConfig

from libs.platform.consumers import run_pull_consumer
from libs.platform.rpc import request, serve
from libs.platform.service import Runtime, create_service_app
from libs.platform.settings import Settings


def replica(settings: Settings, subject: str, stream: str, log: list[tuple[str, str]], name: str,
            gate: asyncio.Event, answering: list[Subscription]) -> FastAPI:
    """A service answering `subject` (queue group "replicas", its subscription put in `answering`) and
    consuming `stream`; both wait for `gate`."""

    async def answer_slowly(payload: dict[str, Any]) -> dict[str, Any]:
        log.append((name, f"command {payload['n']} started"))
        await gate.wait()
        return {"by": name, "n": payload["n"]}

    async def serve_commands(runtime: Runtime) -> None:
        answering.append(await serve(runtime.nc, subject, "replicas", answer_slowly))

    async def consume(runtime: Runtime) -> None:
        async def handle(msg: Msg) -> None:
            log.append((name, f"message {msg.data.decode()} started"))
            await gate.wait()
            log.append((name, f"message {msg.data.decode()} done"))

        await run_pull_consumer(runtime.js, stream=stream, durable=f"{stream}-work", subject=f"{subject}.work",
                                handler=handle, stopping=runtime.stopping)

    return create_service_app(name, workers=[consume], on_startup=[serve_commands], settings=settings)


async def test_a_stopping_replica_answers_its_command_and_finishes_its_message_while_the_other_takes_over(
        settings: Settings, nc: NatsClient) -> None:
    tag = uuid.uuid4().hex[:10]
    subject, stream = f"test.replicas.{tag}", f"TEST_REPLICAS_{tag}"
    await nc.jetstream().add_stream(StreamConfig(name=stream, subjects=[f"{subject}.work"]))
    log: list[tuple[str, str]] = []
    first_gate, second_gate = asyncio.Event(), asyncio.Event()
    second_gate.set()  # the second replica answers at once
    first_answering: list[Subscription] = []
    first = replica(settings, subject, stream, log, "first", first_gate, first_answering)
    second = replica(settings, subject, stream, log, "second", second_gate, [])
    try:
        async with AsyncExitStack() as running_second:
            first_lifespan = first.router.lifespan_context(first)
            await first_lifespan.__aenter__()
            # Only the first replica runs yet: it takes the command and the message, and hangs on both. Its
            # lifespan returned once the server knew its subscription (a request sent before found nobody).
            pending = asyncio.create_task(request(nc, subject, {"n": 1}, timeout=20))
            await nc.jetstream().publish(f"{subject}.work", b"1", stream=stream)
            for _ in range(200):
                if len(log) == 2 or pending.done():
                    break
                await asyncio.sleep(0.05)
            if pending.done():  # the command was not taken (no responders): say why, not only that
                await pending
            assert sorted(log) == [("first", "command 1 started"), ("first", "message 1 started")]
            await running_second.enter_async_context(second.router.lifespan_context(second))

            stopping = asyncio.create_task(first_lifespan.__aexit__(None, None, None))
            # The first has begun to stop, its work still running: once it has left the queue group (its
            # subscription drained, the server acknowledging the UNSUB), only the second takes commands.
            for _ in range(200):
                if first_answering[0]._closed:  # nats-py marks a subscription closed when its drain is done
                    break
                await asyncio.sleep(0.05)
            assert first_answering[0]._closed, "the first replica must leave its queue group when it stops"
            later = await request(nc, subject, {"n": 2}, timeout=10)
            assert not stopping.done(), "the first must wait for the work it took"
            first_gate.set()
            answered = await pending
            await asyncio.wait_for(stopping, timeout=15)

            assert answered == {"by": "first", "n": 1}
            assert later == {"by": "second", "n": 2}
            assert ("first", "message 1 done") in log
            info = await nc.jetstream().consumer_info(stream, f"{stream}-work")
            assert (info.num_pending, info.num_ack_pending) == (0, 0)
    finally:
        await nc.jetstream().delete_stream(stream)
