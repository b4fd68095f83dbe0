"""Publishing to JetStream through a leader election: the same message again until the stream stores it."""

from __future__ import annotations

import asyncio

from nats.js import JetStreamContext
from nats.js.api import PubAck

from libs.platform.rpc import UNAVAILABLE

PUBLISH_PATIENCE = 12.0
"""Seconds a publish keeps trying while JetStream cannot take it: a stream whose leader was lost has a new one after
nats-server's election timeout (4-9 s); a client whose node was lost reconnects to another within a second."""
RETRY_PAUSE = 0.25


async def publish_patiently(js: JetStreamContext, subject: str, payload: bytes, *, stream: str,
                            headers: dict[str, str] | None = None, patience: float = PUBLISH_PATIENCE) -> PubAck:
    """Publish as `js.publish` does and return its acknowledgement; while JetStream cannot answer (no responders,
    a timeout, a 503: a stream without a leader, the connection's node lost), publish the same message again for
    up to `patience` seconds, then raise the last error.

    Only for messages whose repetition is harmless (an attempt without an answer may have been stored): those
    with a Nats-Msg-Id (JetStream stores one of them) or with idempotent consumers. Without this a handler failed
    and its message came back after a growing delay (1, 2, 4 s ...), stalling its game beyond the election itself.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    while True:
        try:
            return await js.publish(subject, payload, stream=stream, headers=headers)
        except UNAVAILABLE:
            if loop.time() >= deadline:
                raise
        await asyncio.sleep(RETRY_PAUSE)
