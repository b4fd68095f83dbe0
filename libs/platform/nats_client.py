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
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from nats import errors
from nats.aio.client import Client as _NatsPyClient
from nats.aio.msg import Msg

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


class Client(_NatsPyClient):
    """nats-py's client with `parse_header_lines` as its header parser and a leaner request (the rest is
    nats-py's; nats-py is pinned in uv.lock, and every test's request goes through this one)."""

    _parse_header_lines = staticmethod(parse_header_lines)

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


def _expire(future: asyncio.Future[Msg]) -> None:
    """A request's time is up: its waiter gets nats-py's TimeoutError (unless the reply came first)."""
    if not future.done():
        future.set_exception(errors.TimeoutError)


async def connect(servers: str | list[str], **options: Any) -> Client:
    """Connect as `nats.connect` does, with the platform's `Client`."""
    client = Client()
    await client.connect(servers, **options)
    return client
