"""The platform's NATS client reads every header block exactly as nats-py's own parser does."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import nats.errors
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nats.aio.client import Client as NatsPyClient
from nats.aio.msg import Msg

from libs.platform.nats_client import Client, connect, parse_header_lines, stream_sequence
from tests.conftest import Infrastructure

_NAME_BYTES = st.sampled_from([b"Nats-Sequence", b"Nats-Msg-Id", b"X", b"", b" ", b"\t", b"\x1c", b"\x85", b"\xc3\xa4",
                               b":", b"a b", b"Status", b"\r", b"\n", b"\x0b", b"-", b"\xff"])
_VALUE_BYTES = st.sampled_from([b"", b" 1", b"GAMES", b" \xc3\xa4 ", b"\xff\xfe", b": x", b"\t2\t", b"\r", b"a\nb"])


@st.composite
def header_blocks(draw: st.DrawFn) -> bytes:
    """Header blocks as a server or a hostile publisher might send them: odd names, bad bytes, stray lines."""
    lines = []
    for _ in range(draw(st.integers(0, 10))):
        name = b"".join(draw(st.lists(_NAME_BYTES, max_size=4)))
        if draw(st.booleans()):
            lines.append(name + b":" + b"".join(draw(st.lists(_VALUE_BYTES, max_size=3))))
        else:
            lines.append(name + draw(st.binary(max_size=12)))
    return b"\r\n".join(lines) + draw(st.sampled_from([b"\r\n\r\n", b"\r\n", b""]))


@settings(max_examples=3000, derandomize=True)
@given(header_blocks())
def test_header_blocks_parse_as_nats_py_parses_them(raw: bytes) -> None:
    assert parse_header_lines(raw) == NatsPyClient._parse_header_lines(raw)


@settings(max_examples=500, derandomize=True)
@given(st.binary(max_size=200))
def test_any_bytes_parse_as_nats_py_parses_them(raw: bytes) -> None:
    assert parse_header_lines(raw) == NatsPyClient._parse_header_lines(raw)


def test_a_direct_get_reply_is_read_whole() -> None:
    raw = (b"Nats-Stream: GAMES\r\nNats-Subject: games.abc\r\nNats-Sequence: 123456\r\n"
           b"Nats-Time-Stamp: 2026-12-01T23:59:59.123456789Z\r\nNats-Msg-Id: abc-57\r\nNats-Num-Pending: 40\r\n\r\n")
    assert parse_header_lines(raw) == {
        "Nats-Stream": "GAMES", "Nats-Subject": "games.abc", "Nats-Sequence": "123456",
        "Nats-Time-Stamp": "2026-12-01T23:59:59.123456789Z", "Nats-Msg-Id": "abc-57", "Nats-Num-Pending": "40"}


@pytest.fixture
async def client(infra: Infrastructure) -> AsyncIterator[Client]:
    """The platform's client, connected to the test server (closed afterwards)."""
    connected = await connect(infra.nats_url)
    try:
        yield connected
    finally:
        await connected.close()


async def test_messages_with_headers_arrive_whole_over_a_real_server(client: Client) -> None:
    assert isinstance(client, Client)
    subscription = await client.subscribe("headers.test")
    await client.publish("headers.test", b"x", headers={"Nats-Msg-Id": "m-1", "Spiel": "Kachelwand ä"})
    message = await subscription.next_msg(timeout=5)
    assert message.headers == {"Nats-Msg-Id": "m-1", "Spiel": "Kachelwand ä"}


async def test_publishes_of_one_round_and_a_burst_beyond_the_write_backlog_arrive_whole_and_in_order(
        client: Client) -> None:
    subscription = await client.subscribe("writes.test")
    # Many publishes in one round of the loop go out in one write; then a burst far past WRITE_BACKLOG, which
    # nats-py's flusher writes once the socket is backed up.
    await asyncio.gather(*(client.publish("writes.test", b"%d" % i) for i in range(100)))
    big = b"x" * 60_000
    for i in range(100, 160):
        await client.publish("writes.test", big + b"%d" % i)
    received = [(await subscription.next_msg(timeout=5)).data for _ in range(160)]
    assert received[:100] == [b"%d" % i for i in range(100)]
    assert received[100:] == [big + b"%d" % i for i in range(100, 160)]
    await client.flush(timeout=5)  # a PING written the same way is answered
    assert client._pending_data_size == 0


async def test_requests_get_their_reply_time_out_or_find_nobody_as_with_nats_py(client: Client) -> None:
    async def echo(msg: Msg) -> None:
        await msg.respond(b"zurueck:" + msg.data)

    await client.subscribe("requests.echo", cb=echo)
    await client.subscribe("requests.silent")  # listens, never answers
    replies = await asyncio.gather(*(client.request("requests.echo", b"%d" % i, timeout=5) for i in range(50)))
    assert [reply.data for reply in replies] == [b"zurueck:%d" % i for i in range(50)]
    started = time.monotonic()
    with pytest.raises(nats.errors.TimeoutError):
        await client.request("requests.silent", b"?", timeout=0.3)
    assert 0.25 < time.monotonic() - started < 2.0
    with pytest.raises(nats.errors.NoRespondersError):
        await client.request("requests.nobody", b"?", timeout=5)
    assert client._resp_map == {}, "no request leaves its waiter behind"


async def test_next_msg_hands_over_waiting_messages_in_order_and_waits_or_times_out_as_nats_py(
        client: Client) -> None:
    subscription = await client.subscribe("prompt.test")
    for i in range(20):
        await client.publish("prompt.test", b"%d" % i)
    await client.flush()
    await asyncio.sleep(0.05)
    assert [(await subscription.next_msg(timeout=5)).data for _ in range(20)] == [b"%d" % i for i in range(20)]
    assert subscription.pending_msgs == 0 and subscription.pending_bytes == 0
    started = time.monotonic()
    with pytest.raises(nats.errors.TimeoutError):
        await subscription.next_msg(timeout=0.3)
    assert 0.25 < time.monotonic() - started < 2.0
    late = asyncio.get_running_loop().call_later(
        0.1, lambda: asyncio.ensure_future(client.publish("prompt.test", b"late")))
    assert (await subscription.next_msg(timeout=5)).data == b"late"  # waited for, as nats-py waits
    late.cancel()
    with pytest.raises(nats.errors.Error):  # a subscription with a callback has no next_msg, as in nats-py
        await (await client.subscribe("prompt.cb", cb=lambda msg: asyncio.sleep(0))).next_msg()
    await client.close()
    with pytest.raises(nats.errors.ConnectionClosedError):
        await subscription.next_msg(timeout=1)


async def test_a_pull_consumer_fetches_every_message_once_in_order(client: Client) -> None:
    js = client.jetstream()
    stream = f"PROMPT_{time.monotonic_ns()}"
    await js.add_stream(name=stream, subjects=[f"{stream.lower()}.>"])
    for i in range(300):
        await js.publish(f"{stream.lower()}.x", b"%d" % i)
    pull = await js.pull_subscribe(f"{stream.lower()}.>", durable="prompt", stream=stream)
    seen: list[bytes] = []
    while len(seen) < 300:
        batch = await pull.fetch(128, timeout=5)
        for msg in batch:
            assert stream_sequence(msg) == msg.metadata.sequence.stream
            await msg.ack()
        seen += [msg.data for msg in batch]
    assert seen == [b"%d" % i for i in range(300)]
    # An empty fetch times out: with nats-py's own TimeoutError when the client's timer fires first, with the
    # builtin one (nats-py's is a subclass) when the server's answer to the request's expiry (0.1 ms before the
    # timeout) arrives first. Which one wins is a matter of that 0.1 ms.
    with pytest.raises(TimeoutError):
        await pull.fetch(10, timeout=0.5)
    await js.delete_stream(stream)


@pytest.mark.parametrize("reply", [
    "$JS.ACK.GAMES.table-followup.1.4711.42.1764633600123456789.7",  # the server's older form
    "$JS.ACK._.ACCHASH.GAMES.table-followup.3.4711.42.1764633600123456789.0.rand",  # with domain and account
    "$JS.ACK.hub.ACCHASH.GAMES.table-followup.1.98765432100.1.1764633600123456789.12",
])
def test_a_deliverys_stream_sequence_reads_as_nats_pys_metadata(reply: str) -> None:
    msg = Msg(_client=None, subject="game.x.events", reply=reply)  # type: ignore[arg-type]
    assert stream_sequence(msg) == msg.metadata.sequence.stream


def test_a_message_that_is_no_delivery_has_no_stream_sequence() -> None:
    for reply in ("", "_INBOX.x.y", "$JS.ACK.too.short"):
        with pytest.raises(nats.errors.Error):
            stream_sequence(Msg(_client=None, subject="x", reply=reply))  # type: ignore[arg-type]


async def test_a_flush_returns_only_after_the_commands_before_it_reached_the_server(infra: Infrastructure) -> None:
    # nats-py writes a flush's PING straight to the socket while commands wait for the next write: the PONG
    # then confirmed nothing about a SUB just sent, and a service could say it was ready before the server
    # knew its subscriptions (a request in that moment found no responders). What the client wrote goes
    # through a recording relay here, so the order on the wire is seen.
    target = urlsplit(infra.nats_url)
    written = bytearray()
    relays: list[asyncio.StreamWriter] = []
    relaying: list[asyncio.Task[object]] = []

    async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, record: bool) -> None:
        while chunk := await reader.read(65536):
            if record:
                written.extend(chunk)
            writer.write(chunk)
            await writer.drain()

    async def relay(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        relaying.append(asyncio.current_task())  # type: ignore[arg-type]  # always inside a task here
        server_reader, server_writer = await asyncio.open_connection(target.hostname, target.port)
        relays.extend((client_writer, server_writer))
        await asyncio.gather(pump(client_reader, server_writer, True), pump(server_reader, client_writer, False),
                             return_exceptions=True)

    async def ignore(msg: Msg) -> None:
        pass

    proxy = await asyncio.start_server(relay, "127.0.0.1", 0)
    port = proxy.sockets[0].getsockname()[1]
    login = f"{target.username}:{target.password}@" if target.username else ""
    client = await connect(f"nats://{login}127.0.0.1:{port}")
    try:
        for round_ in range(20):
            subject = f"flush.order.{round_}"
            await client.subscribe(subject, queue="replicas", cb=ignore)
            await client.publish(subject, b"x")
            await client.flush(timeout=5)
            # The PONG that ended the flush answers the last PING written: the SUB and the PUB came before it.
            seen = bytes(written)
            assert -1 < seen.find(f"SUB {subject} ".encode()) < seen.rfind(b"PING\r\n"), seen[-120:]
            assert -1 < seen.find(f"PUB {subject} ".encode()) < seen.rfind(b"PING\r\n"), seen[-120:]
    finally:
        await client.close()
        for writer in relays:
            writer.close()
        await asyncio.wait(relaying, timeout=5)  # each relay ends by itself once both sides are closed
        proxy.close()
        await proxy.wait_closed()
