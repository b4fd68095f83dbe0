"""A TCP proxy between NATS clients and a real nats-server that cuts a connection in the middle of a chosen command.

A cut is armed for one direction (client → server or server → client) and a marker (the bytes a command or reply
begins with, e.g. `PUB table.cmd.move.`): the next time that marker passes through any connection of the proxy, the
proxy forwards the bytes before it and half of the marker, then resets both sides of that connection. So the cut
falls at a chosen point of the conversation, never at a random moment: the receiver gets a torn command, the sender
has written it whole (and whatever came after it in the same write is lost with the connection). Clients reconnect
through the proxy as to any server.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

TO_SERVER = "to_server"
TO_CLIENT = "to_client"
TAIL = 256
"""Bytes of what passed last kept to find a marker (shorter than this) split over two reads."""


@dataclass
class Cut:
    """One armed cut: where, and whether it happened (`done`)."""

    direction: str
    marker: bytes
    done: asyncio.Event = field(default_factory=asyncio.Event)


class CuttingProxy:
    """Listens on a free loopback port and forwards every connection to `upstream_port` on 127.0.0.1."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = 0
        self.cuts_made = 0
        self._armed: list[Cut] = []
        self._server: asyncio.Server | None = None
        self._connections: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> CuttingProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for client, upstream in list(self._connections):
            client.transport.abort()
            upstream.transport.abort()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def arm(self, direction: str, marker: bytes) -> Cut:
        """Cut the connection in which `marker` next passes in `direction`, halfway through the marker."""
        cut = Cut(direction, marker)
        self._armed.append(cut)
        return cut

    async def _serve(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            client_writer.transport.abort()
            return
        pair = (client_writer, upstream_writer)
        self._connections.add(pair)
        try:
            await asyncio.gather(self._pump(client_reader, upstream_writer, TO_SERVER, pair),
                                 self._pump(upstream_reader, client_writer, TO_CLIENT, pair))
        finally:
            self._connections.discard(pair)
            client_writer.transport.abort()
            upstream_writer.transport.abort()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, direction: str,
                    pair: tuple[asyncio.StreamWriter, asyncio.StreamWriter]) -> None:
        tail = b""  # the end of what passed before, so a marker split over two reads is found
        while True:
            try:
                chunk = await reader.read(65536)
            except (ConnectionError, OSError):
                chunk = b""
            if not chunk:
                writer.transport.abort()
                return
            seen = tail + chunk
            due = self._due(direction, seen, len(tail))
            if due is not None:
                cut, index = due
                at = index - len(tail) + len(cut.marker) // 2  # within this chunk (or its start, if passed already)
                if at > 0:
                    writer.write(chunk[:at])
                for side in pair:
                    side.transport.abort()
                self.cuts_made += 1
                cut.done.set()
                return
            writer.write(chunk)
            tail = seen[-TAIL:]
            try:
                await writer.drain()
            except (ConnectionError, OSError):
                return

    def _due(self, direction: str, seen: bytes, passed: int) -> tuple[Cut, int] | None:
        """The first armed cut of `direction` whose marker ends in `seen` after its first `passed` bytes (those went
        through before), with where the marker begins in `seen`; the cut is disarmed. None: no cut is due."""
        for cut in self._armed:
            if cut.direction != direction:
                continue
            index = seen.find(cut.marker, max(0, passed - len(cut.marker) + 1))
            if index >= 0:
                self._armed.remove(cut)
                return cut, index
        return None

