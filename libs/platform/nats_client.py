"""The NATS client every service and tool connects with: nats-py's, with a cheaper header parser.

nats-py parses the header block of every message it receives (a JetStream delivery, a direct get, a stored
event read back: 6–9 header lines each) in `Client._parse_header_lines`, which tests each header name for
whitespace one character at a time through a generator: about 7 µs per message here, a quarter of a cold
replay's reading and a share of every follow-up delivery. `Client` parses the same bytes into the same
dict (property-tested against nats-py's own parser, tests/platform/test_nats_client.py) in about half that.
"""

from __future__ import annotations

import re
from typing import Any

from nats.aio.client import Client as _NatsPyClient

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
    """nats-py's client with `parse_header_lines` as its header parser (everything else is nats-py's)."""

    _parse_header_lines = staticmethod(parse_header_lines)


async def connect(servers: str | list[str], **options: Any) -> Client:
    """Connect as `nats.connect` does, with the platform's `Client`."""
    client = Client()
    await client.connect(servers, **options)
    return client
