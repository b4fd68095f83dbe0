"""Commands over NATS request/reply: typed contracts in and out, refusals carried as data with an HTTP-like status.

Services serve a command with `answer(nc, COMMAND, handler)` and send one with `call(nc, COMMAND, request)`,
`COMMAND` being one of `libs.platform.contracts.commands` (subject, queue group, request and reply type).
`serve` and `request` are the same on plain dicts, for tests and tools that poke at the wire.
"""

from __future__ import annotations

import asyncio
import re
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
import nats.errors
import nats.js.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from opentelemetry.trace import SpanKind

from libs.platform.contracts.base import Contract, ContractError, german_reason
from libs.platform.contracts.commands import Accepted, Command, Refused, ReplyEnvelope
from libs.platform.contracts.subjects import by_game_subject
from libs.platform.logging import get_logger
from libs.platform.tracing import Traced, nats_attributes, parent_of, with_trace

UNAVAILABLE: tuple[type[Exception], ...] = (
    nats.errors.NoRespondersError, nats.errors.TimeoutError, nats.errors.ConnectionClosedError,
    nats.errors.ConnectionReconnectingError, nats.errors.StaleConnectionError,
    nats.js.errors.NoStreamResponseError, nats.js.errors.ServiceUnavailableError,
)
"""NATS errors that mean "the infrastructure behind is down or restarting" (no one answered, no stream
acknowledged, the connection is reconnecting): 503, worth trying again shortly, never a 500."""
UNAVAILABLE_REASON = "Ein Dienst dahinter antwortet gerade nicht. Bitte versuche es gleich noch einmal."

Req = TypeVar("Req", bound=Contract)
Rep = TypeVar("Rep")


class CommandRefused(Exception):
    """A command that was understood and refused; `reason` is what a player reads."""

    def __init__(self, status: int, reason: str, code: str = "refused") -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.code = code


Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
_ONE_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,128}")
"""A game id that is one NATS subject token (no dots, wildcards or blanks): sent by game, else on the shared
subject."""
_ENVELOPE = msgspec.json.Decoder(ReplyEnvelope)
_DICT = msgspec.json.Decoder(dict[str, Any])


async def answer(nc: NatsClient, command: Command[Req, Rep], handler: Callable[[Req], Awaitable[Rep]],
                 subject: str | None = None) -> Subscription:
    """Answer `command` (load-balanced over its queue group) with `handler`'s result or its refusal, on its own
    subject or on `subject` (a partition's: `contracts.subjects.partition_subject`).

    A request that does not fit the command's contract is refused (422, German reason) before `handler` runs.
    """

    async def handle(raw: bytes) -> Any:
        try:
            body = command.request.decode(raw)
        except ContractError as error:
            raise CommandRefused(422, error.reason, "malformed") from error
        return await handler(body)

    return await _subscribe(nc, subject or command.subject, command.queue, handle)


RESEND_AFTER = 3.0
"""Seconds a caller of a command whose repetition is harmless waits for an answer before it sends the command again
(`call(attempt=...)`): past what a busy replica takes (turn p99.9 at saturation ~1.4 s), well below the 10 s a lost
request cost before."""


async def call(nc: NatsClient, command: Command[Req, Rep], body: Req, timeout: float = 10.0, *,
               attempt: float | None = None) -> Rep:
    """Send `command` and return its typed result, or raise CommandRefused with the server's reason.

    A reply that does not fit the command's reply contract is refused with 502 (`bad_reply`). A command `by_game`
    goes to its game's partition first and, when nobody serves that partition at the moment (NATS answers "no
    responders" at once), to the shared subject every replica of the service answers.

    With `attempt`, a request that gets no answer within `attempt` seconds is sent again, until `timeout` has
    passed: a replica that died holding the request (SIGKILL, a lost node) never answers, and the next attempt
    finds the living ones (its subscriptions left with its connection). Only for commands whose repetition is
    harmless: a move with its `expected_n` (a repeat after the first was stored is refused as stale), a question.
    """
    data = body.encode()
    game_id = getattr(body, "game_id", None) if command.by_game else None
    subject = by_game_subject(command.subject, game_id) if (
        isinstance(game_id, str) and _ONE_TOKEN.fullmatch(game_id)) else None  # else the shared subject judges it
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        wait = timeout if attempt is None else max(0.001, min(attempt, deadline - loop.time()))
        try:
            result = await _send_routed(nc, subject, command.subject, data, wait)
            break
        except nats.errors.TimeoutError:
            if attempt is None or loop.time() >= deadline:
                raise
    try:
        reply: Rep = msgspec.json.decode(result, type=command.reply)
    except msgspec.DecodeError as error:
        what = getattr(command.reply, "WHAT", f"Die Antwort auf {command.subject}")
        raise CommandRefused(502, german_reason(error, what), "bad_reply") from error
    return reply


async def _send_routed(nc: NatsClient, partition: str | None, shared: str, data: bytes,
                      timeout: float) -> msgspec.Raw:
    """Send to the game's `partition` subject, or to `shared` when there is none or nobody serves it."""
    if partition is not None:
        try:
            return await _send(nc, partition, data, timeout)
        except nats.errors.NoRespondersError:
            pass
    return await _send(nc, shared, data, timeout)


async def serve(nc: NatsClient, subject: str, queue: str, handler: Handler) -> Subscription:
    """Answer requests on `subject` with a handler of plain dicts (tests and tools; services use `answer`)."""

    async def handle(raw: bytes) -> Any:
        try:
            payload = _DICT.decode(raw)
        except msgspec.DecodeError as error:
            raise CommandRefused(422, german_reason(error, "Die Anfrage"), "malformed") from error
        return await handler(payload)

    return await _subscribe(nc, subject, queue, handle)


async def request(nc: NatsClient, subject: str, payload: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
    """Send a plain-dict command and return its result (tests and tools; services use `call`)."""
    result = await _send(nc, subject, msgspec.json.encode(payload), timeout)
    try:
        return _DICT.decode(result)
    except msgspec.DecodeError as error:
        raise CommandRefused(502, german_reason(error, f"Die Antwort auf {subject}"), "bad_reply") from error


IN_FLIGHT = 256
"""Requests one subscription works on at once; beyond that, NATS buffers them for the subscription."""
_RUNNING: set[asyncio.Task[None]] = set()
_ANSWERING: weakref.WeakKeyDictionary[NatsClient, list[Subscription]] = weakref.WeakKeyDictionary()
"""The command subscriptions of each connection, so a stopping service can leave its queue groups first."""


async def stop_answering(nc: NatsClient, timeout: float = 5.0) -> None:
    """Take no more commands on `nc`: leave every queue group it answers in (other replicas take the
    commands from now on) after handing the requests already received to their handlers.

    Gives up after `timeout` seconds (a connection that is down cannot confirm leaving).
    """
    for subscription in _ANSWERING.pop(nc, []):
        try:
            await asyncio.wait_for(subscription.drain(), timeout)  # type: ignore[no-untyped-call]  # nats-py leaves it unannotated
        except Exception:  # closed or down: the server drops our interest with the connection anyway
            pass


async def stop_answering_on(nc: NatsClient, subscription: Subscription, timeout: float = 5.0) -> None:
    """Take no more commands on `subscription` (one of `nc`'s from `answer`): leave its queue group after handing
    the requests already received to their handlers (at most `timeout` seconds)."""
    answering = _ANSWERING.get(nc, [])
    if subscription in answering:
        answering.remove(subscription)
    try:
        await asyncio.wait_for(subscription.drain(), timeout)  # type: ignore[no-untyped-call]  # nats-py leaves it unannotated
    except Exception:  # closed or down: the server drops our interest with the connection anyway
        pass


async def finish_in_flight(timeout: float = 10.0) -> None:
    """Wait (at most `timeout` seconds) until every request being answered has had its reply sent."""
    if _RUNNING:
        await asyncio.wait(set(_RUNNING), timeout=timeout)


async def _subscribe(nc: NatsClient, subject: str, queue: str,
                     handle: Callable[[bytes], Awaitable[Any]]) -> Subscription:
    """Subscribe `handle` to `subject`: each request is answered in a task of its own.

    nats-py calls a subscription's callback one message at a time; answering inside the callback would
    let one slow request (a replay, a lock held by a move of the same game) hold up every other game's.
    A semaphore bounds the work in flight, so a flood waits in the subscription's buffer instead of
    piling up tasks.
    """
    log = get_logger(subject=subject)
    span_name, attributes = f"process {subject}", nats_attributes(subject, **{"messaging.operation.type": "process"})
    slots = asyncio.Semaphore(IN_FLIGHT)
    running = _RUNNING

    async def process(msg: Msg) -> None:
        # The command's span continues the caller's trace (its `traceparent`), so the reply's work, its log
        # lines and what it appends share the caller's trace id.
        try:
            with Traced(span_name, SpanKind.SERVER, parent_of(msg.headers), attributes):
                try:
                    reply = msgspec.json.encode(Accepted(result=await handle(msg.data)))
                except CommandRefused as refusal:
                    reply = msgspec.json.encode(Refused(status=refusal.status, reason=refusal.reason,
                                                        code=refusal.code))
                except UNAVAILABLE as error:  # NATS or JetStream restarting: the caller may simply try again
                    log.warning("command_unavailable", error=type(error).__name__)
                    reply = msgspec.json.encode(Refused(status=503, reason=UNAVAILABLE_REASON, code="unavailable"))
                except Exception:
                    log.exception("command_failed")
                    reply = msgspec.json.encode(Refused(status=500, reason="Interner Fehler.", code="internal"))
                if msg.reply:
                    await msg.respond(reply)
        finally:
            slots.release()

    async def on_request(msg: Msg) -> None:
        await slots.acquire()
        task = asyncio.create_task(process(msg))
        running.add(task)
        task.add_done_callback(running.discard)

    subscription = await nc.subscribe(subject, queue=queue, cb=on_request)
    _ANSWERING.setdefault(nc, []).append(subscription)
    await nc.flush()  # the server knows the subscription before anyone is told we are ready
    return subscription


async def _send(nc: NatsClient, subject: str, data: bytes, timeout: float) -> msgspec.Raw:
    """Send a request; return the raw `result` of an accepted reply, raise CommandRefused for a refusal."""
    # The request carries the caller's trace context (none outside a span: a request without headers spares both
    # sides a header block, which nats-py parses per message).
    headers = with_trace({}) or None
    msg = await nc.request(subject, data, timeout=timeout, headers=headers)
    try:
        envelope = _ENVELOPE.decode(msg.data)
    except msgspec.DecodeError as error:
        raise CommandRefused(502, german_reason(error, f"Die Antwort auf {subject}"), "bad_reply") from error
    if not envelope.ok:
        raise CommandRefused(envelope.status, envelope.reason, envelope.code)
    return envelope.result
