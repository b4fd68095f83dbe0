"""The platform's NATS client loses nothing it had not yet handed to a socket when its connection drops.

A publish hands its command to the client; the client writes what is pending at the end of the loop's round
(libs/platform/nats_client.py). When the connection is cut in the middle of a write (tests/nats_proxy.py), the
commands of that very write are gone with it (core NATS delivers at most once: the client wrote them whole, the
server got part of them). Every command published after it must reach the server once the client has reconnected:
none is written into a socket that is already closed, and none is dropped because that write failed. Run on uvloop (as
the services run) and on asyncio's own loop.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlsplit

import pytest
import uvloop
from nats.aio.transport import TcpTransport

from libs.platform import nats_client
from tests.conftest import Infrastructure
from tests.nats_proxy import TO_SERVER, CuttingProxy

PUBLISHED = range(200)
CUT_IN = 5
"""The message in whose middle the connection is cut."""


class HandedOver:
    """Records what the client hands to the socket of its first connection: the bytes of every write made while that
    socket was open and taken without an error (what a dropped connection may lose: the client cannot know)."""

    def __init__(self, client: nats_client.Client) -> None:
        self.data = bytearray()
        transport = client._transport
        assert isinstance(transport, TcpTransport) and transport._io_writer is not None
        stream = transport._io_writer.transport
        write, writelines = transport.write, transport.writelines

        def recorded(method: Callable[[Any], Any], joined: Callable[[Any], bytes]) -> Callable[[Any], Any]:
            def call(payload: Any) -> Any:
                was_open = not stream.is_closing()
                result = method(payload)
                if was_open and not stream.is_closing():
                    self.data += joined(payload)
                return result
            return call

        transport.write = recorded(write, bytes)  # type: ignore[method-assign]
        transport.writelines = recorded(writelines, b"".join)  # type: ignore[method-assign]

    def messages(self) -> set[int]:
        return {int(number) for number in re.findall(rb"m(\d{3})", bytes(self.data))}


async def publish_through_a_cut(nats_url: str) -> tuple[list[int], set[int], list[str]]:
    """Publish PUBLISHED one per round of the loop while the proxy cuts the connection in the middle of message
    CUT_IN and the client notices the drop and reconnects; return what a subscriber received, which messages from
    CUT_IN on the client had handed to the dropped connection's socket, and the loop's errors."""
    errors: list[str] = []
    asyncio.get_running_loop().set_exception_handler(
        lambda _loop, context: errors.append(f"{context.get('message')}: {context.get('exception')!r}"))
    port = urlsplit(nats_url).port
    assert port is not None
    proxy = await CuttingProxy(port).start()
    direct = await nats_client.connect(nats_url)
    publisher = await nats_client.connect(nats_url.replace(f":{port}", f":{proxy.port}"), name="cut",
                                          reconnect_time_wait=0.1, max_reconnect_attempts=-1)
    handed = HandedOver(publisher)
    try:
        subscription = await direct.subscribe("drops.test")
        await direct.flush()
        cut = proxy.arm(TO_SERVER, b"m%03d" % CUT_IN)
        for i in PUBLISHED:
            await publisher.publish("drops.test", b"m%03d" % i)
            await asyncio.sleep(0)
        assert cut.done.is_set()
        while publisher.stats["reconnects"] < 1 or not publisher.is_connected:
            await asyncio.sleep(0.05)
        await publisher.flush(timeout=10)  # the server has everything the client holds
        await direct.flush(timeout=10)  # and has delivered it to the subscriber
        received: list[int] = []
        while subscription.pending_msgs:
            received.append(int((await subscription.next_msg(timeout=1.0)).data[1:]))
        return received, {i for i in handed.messages() if i >= CUT_IN}, errors
    finally:
        await publisher.close()
        await direct.close()
        await proxy.close()


RUNNERS: dict[str, Callable[[Coroutine[Any, Any, Any]], Any]] = {"uvloop": uvloop.run, "asyncio": asyncio.run}


@pytest.mark.parametrize("loop", sorted(RUNNERS))
def test_commands_published_after_a_torn_write_all_arrive_once_in_order(infra: Infrastructure, loop: str) -> None:
    received, torn, errors = RUNNERS[loop](publish_through_a_cut(infra.nats_url))
    assert CUT_IN in torn
    assert errors == []
    assert received == sorted(set(received)), "in order, none twice"
    lost = sorted(set(PUBLISHED) - set(received) - torn)
    assert lost == [], f"lost though not handed to the socket before the cut (torn: {sorted(torn)})"
