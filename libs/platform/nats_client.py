"""The NATS client every service and tool connects with: nats-py's, with two per-message costs taken out.

- Headers: nats-py parses the header block of every message it receives (a JetStream delivery, a direct get,
  a stored event read back: 6–9 header lines each) in `Client._parse_header_lines`, which tests each header
  name for whitespace one character at a time through a generator: about 7 µs per message here, a quarter of
  a cold replay's reading and a share of every follow-up delivery. `Client` parses the same bytes into the
  same dict (property-tested against nats-py's own parser, tests/platform/test_nats_client.py) in about half.
- Requests: nats-py names each request's reply subject by a NUID plus two bytes from the OS's random source
  (a system call per request, 1.5–5 % of a process's CPU under load here) and waits through
  `asyncio.wait_for`. The NUID alone is unique already (a random prefix and a sequence per client); the
  wait is a timer on the reply's future. Same replies, same errors (`nats.errors.TimeoutError` on timeout).
- Pull fetches: nats-py's `Subscription.next_msg` starts a task named by a fresh UUID and a `wait_for` timer
  for every message, even one already waiting in the subscription's queue, and a pull consumer's `fetch`
  takes each message of a batch that way (about a tenth of the table follow-up's CPU under load). A
  subscription without a callback here hands over a waiting message at once and waits as nats-py does only
  when none is there.
- The last message of a subject: `last_message` is JetStream's direct get as one request, its reply kept as
  the message (nats-py's `get_last_msg` lifts it into a stream message and parses its timestamp).
- Writes: nats-py hands every publish to a flusher task through an `asyncio.Queue` and a fresh future, one more
  task step per message before it reaches the socket. `Client` writes what is pending in a callback at the end
  of the loop's current round instead (the publishes of one round still go out in one write) and leaves it to
  nats-py's flusher only when the socket is backed up (so the flusher's `drain` still holds writers back), when
  reconnecting, and for a forced flush. A write is made only into a socket that is still open, and a write the socket
  refuses (the connection dropped: uvloop raises, asyncio's loop closes the transport and drops the bytes) puts its
  commands back in front of what is pending, so they go out once the client has reconnected (tests/platform/
  test_nats_client_drops.py). Only what a socket took before its connection dropped is lost with it, as with any
  client: JetStream publishes and requests are sent again by their callers, with the same `Nats-Msg-Id`.
- Flushes: nats-py writes a flush's PING straight to the socket, ahead of commands still waiting to be written, so
  its PONG confirmed nothing about them. `Client` writes those first: a `flush()` after a `subscribe()` returns
  once the server knows the subscription.
- A JetStream delivery's stream sequence: `stream_sequence` reads it from the ack subject without building
  nats-py's whole `Msg.metadata` (its timestamp parsed into a datetime) for every event followed.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from nats import errors
from nats.aio.client import Client as _NatsPyClient
from nats.aio.msg import _V1_TOKEN_COUNT, Msg
from nats.aio.subscription import DEFAULT_SUB_PENDING_BYTES_LIMIT, DEFAULT_SUB_PENDING_MSGS_LIMIT, Subscription
from nats.aio.transport import TcpTransport
from nats.js.errors import APIError

_CRLF = b"\r\n"
_WHITESPACE = re.compile(r"\s").search
"""Finds what `str.isspace` calls whitespace (the same Unicode category), in C instead of per character."""


def parse_header_lines(raw: bytes) -> dict[str, str]:
    """Return the headers of a NATS header block (`Name: Value` per CRLF-ended line), as nats-py reads them.

    Lines without a colon, names that are not ASCII or hold whitespace are skipped; values are decoded as
    UTF-8 with replacement characters for malformed bytes; a repeated name keeps its last value.
    """
    headers: dict[str, str] = {}
    for line in raw.split(_CRLF):
        name, colon, value = line.partition(b":")
        if not colon:  # an empty line too
            continue
        try:
            key = name.strip().decode("ascii")
        except UnicodeDecodeError:
            continue
        if _WHITESPACE(key) is not None:
            continue
        headers[key] = value.strip().decode("utf-8", "replace")
    return headers


class _PromptSubscription(Subscription):
    """A subscription whose `next_msg` returns a message already waiting without a task and a timer."""

    async def next_msg(self, timeout: float | None = 1.0) -> Msg:
        """Return the next message: one waiting in the queue at once, else as nats-py waits for it (same errors:
        `nats.errors.TimeoutError`, `ConnectionClosedError`)."""
        if self._conn.is_closed:
            raise errors.ConnectionClosedError
        if self._cb:
            raise errors.Error("nats: next_msg cannot be used in async subscriptions")
        try:
            msg = self._pending_queue.get_nowait()
        except asyncio.QueueEmpty:
            return await super().next_msg(timeout)
        # nats-py's own bookkeeping once a message is taken (pending bytes, the queue's unfinished count).
        self._pending_size -= len(msg.data)
        self._pending_queue.task_done()
        return msg


WRITE_BACKLOG = 64 * 1024
"""Bytes the socket's transport may hold unsent before writes go through nats-py's flusher (which waits for them)."""


class Client(_NatsPyClient):
    """nats-py's client with `parse_header_lines` as its header parser, a leaner request, prompt `next_msg` and
    writes without the flusher task (the rest is nats-py's; nats-py is pinned in uv.lock, and every test's request
    goes through this one)."""

    _parse_header_lines = staticmethod(parse_header_lines)
    _write_scheduled = False

    async def _flush_pending(self, force_flush: bool = False) -> Any:
        """Have what is pending written: at the end of this round of the loop, or by nats-py's flusher when forced,
        when the socket is backed up or the connection is not up."""
        if self._write_scheduled and not force_flush:
            return None  # the scheduled callback writes this too, or hands it to the flusher
        if self.is_connected and self._socket_closed():
            return None  # dropped, and the client has not noticed yet: kept for the reconnect, which writes it
        if force_flush or not self._writes_directly():
            return await super()._flush_pending(force_flush)
        self._write_scheduled = True
        asyncio.get_running_loop().call_soon(self._write_pending)
        return None

    def _writes_directly(self) -> bool:
        """Whether a write may skip the flusher: connected over TCP, the socket open and keeping up, the flusher
        alive."""
        transport = self._transport
        if not self.is_connected or not isinstance(transport, TcpTransport) or transport._io_writer is None:
            return False
        if self._flusher_task is None or self._flusher_task.done() or self._socket_closed():
            return False
        return transport._io_writer.transport.get_write_buffer_size() < WRITE_BACKLOG

    def _socket_closed(self) -> bool:
        """Whether the connection's socket has closed (or is closing) under a client that has not noticed yet: its
        transport saw the drop before the client's read loop did. Nothing written into it now would be sent."""
        transport = self._transport
        writer = transport._io_writer if isinstance(transport, TcpTransport) else None
        return writer is None or writer.transport.is_closing()

    async def _send_ping(self, future: asyncio.Future[Any] | None = None) -> None:
        """Send a PING behind every command written before it, so its PONG (and so `flush()`) confirms that the
        server has them all: a subscription flushed is known to the server, a publish flushed is received.

        nats-py writes the PING straight to the socket while earlier commands still wait in `_pending` for the
        next write (ours at the end of the loop's round, nats-py's in its flusher task): the PING overtook
        them, and a `flush()` right after a `subscribe()` returned before the server had the subscription.

        Into a socket that closed under the client before it noticed, no PING is written (uvloop refuses the write,
        asyncio's loop drops it): its PONG never comes, as for a PING written into a connection that then drops.
        """
        if self.is_connected and self._socket_closed():
            self._pongs.append(future if future is not None else asyncio.get_running_loop().create_future())
            return
        if self._pending:
            if self._writes_directly():
                self._write_pending()
            else:  # reconnecting or backed up: nats-py's flusher writes them (at once when the link is up)
                await super()._flush_pending(force_flush=True)
        await super()._send_ping(future)

    def _write_pending(self) -> None:
        """Write every pending command in one go (the callback `_flush_pending` scheduled)."""
        self._write_scheduled = False
        if not self._pending_data_size:
            return
        if not self._writes_directly():  # went down or backed up since: the flusher writes, or a reconnect does
            if self.is_connected and not self._socket_closed() and self._flush_queue is not None \
                    and self._flush_queue.empty():
                self._flush_queue.put_nowait(asyncio.get_running_loop().create_future())
            return
        assert self._transport is not None
        pending, size = self._pending, self._pending_data_size
        self._pending, self._pending_data_size = [], 0
        try:
            self._transport.writelines(pending)
        except (RuntimeError, OSError):  # uvloop: the transport closed under us
            self._keep_for_reconnect(pending, size)
            return
        if self._socket_closed():  # asyncio's loop: the write failed, the transport closed and dropped the bytes
            self._keep_for_reconnect(pending, size)

    def _keep_for_reconnect(self, pending: list[bytes], size: int) -> None:
        """Put commands a dropped socket did not take back in front of what is pending: nats-py writes them once it
        has reconnected (a socket that refuses a write took none of it)."""
        self._pending = pending + self._pending
        self._pending_data_size += size

    async def _close(self, status: int, do_cbs: bool = True) -> None:
        """Close as nats-py does; what is pending for a socket that has closed already is dropped rather than written
        into it (uvloop would raise, and nothing would be sent)."""
        if self._socket_closed():
            self._pending, self._pending_data_size = [], 0
        await super()._close(status, do_cbs)

    async def subscribe(self, subject: str, queue: str = "", cb: Callable[[Msg], Awaitable[None]] | None = None,
                        future: asyncio.Future[Any] | None = None, max_msgs: int = 0,
                        pending_msgs_limit: int = DEFAULT_SUB_PENDING_MSGS_LIMIT,
                        pending_bytes_limit: int = DEFAULT_SUB_PENDING_BYTES_LIMIT) -> Subscription:
        """Subscribe as nats-py does; a subscription without a callback gets the prompt `next_msg`."""
        subscription = await super().subscribe(subject, queue=queue, cb=cb, future=future, max_msgs=max_msgs,
                                               pending_msgs_limit=pending_msgs_limit,
                                               pending_bytes_limit=pending_bytes_limit)
        if cb is None and type(subscription) is Subscription:
            subscription.__class__ = _PromptSubscription
        return subscription

    async def _request_new_style(self, subject: str, payload: bytes, timeout: float = 1,
                                 headers: dict[str, Any] | None = None) -> Msg:
        """Publish a request with a reply subject on the client's response mux and return the reply."""
        if self.is_draining_pubs:
            raise errors.ConnectionDrainingError
        if not self._resp_sub_prefix:
            await self._init_request_sub()
        assert self._resp_sub_prefix
        token = self._nuid.next()
        inbox = self._resp_sub_prefix[:]
        inbox.extend(token)
        key = token.decode()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Msg] = loop.create_future()
        self._resp_map[key] = future
        expiry = loop.call_later(timeout, _expire, future)
        try:
            await self.publish(subject, payload, reply=inbox.decode(), headers=headers)
            return await future
        finally:
            expiry.cancel()
            self._resp_map.pop(key, None)


async def last_message(nc: _NatsPyClient, stream: str, subject: str, timeout: float) -> Msg | None:
    """Return the last message of `subject` on `stream` (which allows direct get) as its direct-get reply: the
    body with the stored headers plus `Nats-Sequence`; None when the subject holds none. Raises nats-py's
    `APIError` for any other status, and its timeout and no-responders errors."""
    msg = await nc.request(f"$JS.API.DIRECT.GET.{stream}.{subject}", b"", timeout=timeout)
    if not msg.data:
        status = (msg.headers or {}).get("Status")
        if status == "404":
            return None
        if status is not None:
            raise APIError.from_msg(msg)
    return msg


async def next_message(nc: _NatsPyClient, stream: str, subject: str, start: int, timeout: float) -> Msg | None:
    """Return the first message of `subject` on `stream` (which allows direct get) stored at stream sequence
    `start` or later, as its direct-get reply; None when there is none: then the server answers a bare 404, no
    message body, which is what a reader that only asks "anything newer?" wants. Errors as `last_message`."""
    request = b'{"seq":%d,"next_by_subj":"%s"}' % (start, subject.encode())
    msg = await nc.request(f"$JS.API.DIRECT.GET.{stream}", request, timeout=timeout)
    if not msg.data:
        status = (msg.headers or {}).get("Status")
        if status == "404":
            return None
        if status is not None:
            raise APIError.from_msg(msg)
    return msg


def stream_sequence(msg: Msg) -> int:
    """Return the stream sequence of a JetStream delivery, as `msg.metadata.sequence.stream` does (same
    `NotJSMessageError` for a message that is not one), from the ack subject's token alone."""
    tokens = Msg.Metadata._get_metadata_fields(msg.reply)
    return int(tokens[5] if len(tokens) == _V1_TOKEN_COUNT else tokens[Msg.Ack.StreamSeq])


def _expire(future: asyncio.Future[Msg]) -> None:
    """A request's time is up: its waiter gets nats-py's TimeoutError (unless the reply came first)."""
    if not future.done():
        future.set_exception(errors.TimeoutError)


def server_list(servers: str | list[str]) -> list[str]:
    """Return the server URLs of `servers`: a list as it is, a string split at its commas (NATS_URL may name every
    node of a cluster: "nats://a:4222,nats://b:4222"; nats-py takes a string as one URL)."""
    if isinstance(servers, list):
        return servers
    return [url.strip() for url in servers.split(",") if url.strip()]


async def connect(servers: str | list[str], **options: Any) -> Client:
    """Connect as `nats.connect` does, with the platform's `Client`, to any of `servers` (`server_list`): when the
    node it is connected to goes away, the client reconnects to another of them."""
    client = Client()
    await client.connect(server_list(servers), **options)
    return client



class Delivery(NamedTuple):
    """What a JetStream delivery's ack subject says besides its sequence."""

    stored_at: float
    """When the stream stored the message, in seconds since the epoch (`msg.metadata.timestamp`)."""
    deliveries: int
    """How often it has been delivered, this time included (`msg.metadata.num_delivered`): 1 on first delivery."""


def delivery(msg: Msg) -> Delivery:
    """Return when a delivered message was stored and how often it has been delivered, as `msg.metadata` does (same
    `NotJSMessageError` for a message that is not one), from the ack subject's tokens alone."""
    tokens = Msg.Metadata._get_metadata_fields(msg.reply)
    if len(tokens) == _V1_TOKEN_COUNT:
        return Delivery(int(tokens[7]) / 1_000_000_000, int(tokens[4]))
    return Delivery(int(tokens[Msg.Ack.Timestamp]) / 1_000_000_000, int(tokens[Msg.Ack.NumDelivered]))
