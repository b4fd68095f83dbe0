"""Commands over NATS request/reply: JSON in, JSON out, refusals carried as data with an HTTP-like status."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from libs.platform.logging import CORRELATION_HEADER, correlation_id, get_logger, new_correlation_id


class CommandRefused(Exception):
    """A command that was understood and refused; `reason` is what a player reads."""

    def __init__(self, status: int, reason: str, code: str = "refused") -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.code = code


Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


async def serve(nc: NatsClient, subject: str, queue: str, handler: Handler) -> Subscription:
    """Answer requests on `subject` (load-balanced over `queue`) with `handler`'s result or its refusal."""
    log = get_logger(subject=subject)

    async def on_request(msg: Msg) -> None:
        token = correlation_id.set((msg.headers or {}).get(CORRELATION_HEADER) or new_correlation_id())
        try:
            try:
                payload = json.loads(msg.data)
                if not isinstance(payload, dict):
                    raise CommandRefused(422, "Die Anfrage muss ein JSON-Objekt sein.", "malformed")
                reply: dict[str, Any] = {"ok": True, "result": await handler(payload)}
            except CommandRefused as refusal:
                reply = {"ok": False, "status": refusal.status, "reason": refusal.reason, "code": refusal.code}
            except json.JSONDecodeError:
                reply = {"ok": False, "status": 422, "reason": "Die Anfrage ist kein gültiges JSON.",
                         "code": "malformed"}
            except Exception:
                log.exception("command_failed")
                reply = {"ok": False, "status": 500, "reason": "Interner Fehler.", "code": "internal"}
            if msg.reply:
                await msg.respond(json.dumps(reply).encode())
        finally:
            correlation_id.reset(token)

    subscription = await nc.subscribe(subject, queue=queue, cb=on_request)
    await nc.flush()  # the server knows the subscription before anyone is told we are ready
    return subscription


async def request(nc: NatsClient, subject: str, payload: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
    """Send a command and return its result, or raise CommandRefused with the server's reason."""
    headers = {CORRELATION_HEADER: correlation_id.get() or new_correlation_id()}
    msg = await nc.request(subject, json.dumps(payload).encode(), timeout=timeout, headers=headers)
    reply = json.loads(msg.data)
    if not reply.get("ok"):
        raise CommandRefused(int(reply.get("status", 500)), str(reply.get("reason", "")),
                             str(reply.get("code", "refused")))
    result: dict[str, Any] = reply["result"]
    return result
