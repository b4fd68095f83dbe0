"""One fetched batch of the archive's consumers (the game logs' and the team logs'), stored and settled the same
way: every message acknowledged once its rows are committed, an unreadable one terminated, all of them handed
back for redelivery when the store fails."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any

from nats.aio.msg import Msg

from libs.platform.service import Runtime

RETRY_DELAY = 2.0
"""Seconds until JetStream offers a batch again whose store failed."""
FAILED_PAUSE = 1.0
"""Seconds the consumer waits after a failed store before it fetches again."""


async def store_and_settle(messages: Sequence[Msg], unreadable: Sequence[Msg], store: Awaitable[None],
                           runtime: Runtime, log: Any, failure: str, **fields: Any) -> bool:
    """Await `store` (one transaction for the batch's readable rows); then ack every message, or terminate the
    unreadable ones (no redelivery mends them; their game then stays on the stream). When `store` raises, log
    `failure` with `fields` and the traceback, nak every message with RETRY_DELAY, pause FAILED_PAUSE and return
    False."""
    try:
        await store
    except Exception:
        log.exception(failure, **fields)
        for msg in messages:
            await msg.nak(delay=RETRY_DELAY)
        await runtime.pause(FAILED_PAUSE)
        return False
    for msg in messages:
        await (msg.term() if msg in unreadable else msg.ack())
    return True
