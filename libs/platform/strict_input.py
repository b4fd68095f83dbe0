"""What every service refuses before a route sees it: NUL in the address, and JSON our stores cannot hold.

Python's JSON parser accepts more than JSON and more than PostgreSQL and NATS contracts can carry: ``NaN``
and ``Infinity``, ``1e400`` (infinity), integers of any size, lone UTF-16 surrogates and NUL characters in
strings. Each of these once reached a database or an encoder deep inside a handler and came back as a 500.
One check at the edge refuses them all with a German reason (422), whichever route the body is for.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from libs.platform.http_errors import refusal

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""The integers PostgreSQL's bigint and the NATS contracts (msgspec) hold; JSON numbers beyond are refused."""

_SURROGATE = re.compile("[\ud800-\udfff]")


class InvalidJson(Exception):
    """The body is no JSON the platform accepts; ``reason`` is the German sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def strict_loads(raw: bytes) -> Any:
    """Return the JSON value of ``raw``, or raise InvalidJson for anything but finite numbers within 64 bits and
    strings of proper Unicode without NUL."""
    try:
        text = raw.decode("utf-8-sig")  # a byte order mark is tolerated, as FastAPI's own parser does
    except UnicodeDecodeError as error:
        raise InvalidJson("Der Inhalt ist kein gültiges UTF-8.") from error
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_int=_int64, parse_float=_finite_float)
    except InvalidJson:
        raise
    except RecursionError as error:
        raise InvalidJson("Der Inhalt ist zu tief verschachtelt.") from error
    except ValueError as error:
        raise InvalidJson("Der Inhalt ist kein gültiges JSON.") from error
    if "\\u" in text:  # NUL and lone surrogates can only come in as \u escapes (raw, they fail above)
        _check_strings(value)
    return value


def _no_constant(name: str) -> Any:
    raise InvalidJson(f"„{name}“ ist keine Zahl in JSON: erlaubt sind nur endliche Zahlen.")


def _int64(text: str) -> int:
    value = int(text) if len(text) <= 20 else INT64_MAX + 1
    if not INT64_MIN <= value <= INT64_MAX:
        raise InvalidJson("Ganze Zahlen müssen in 64 Bit passen "
                          f"(von {INT64_MIN} bis {INT64_MAX}).")
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InvalidJson("Die Zahl ist zu groß: erlaubt sind nur endliche Zahlen.")
    return value


def _check_strings(value: Any) -> None:
    """Refuse NUL characters and lone surrogates in any string or object key of ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            _check_string(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                _check_string(key)
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)


def _check_string(text: str) -> None:
    if "\x00" in text:
        raise InvalidJson("Texte dürfen kein NUL-Zeichen (\\u0000) enthalten.")
    if not text.isascii() and _SURROGATE.search(text):
        raise InvalidJson("Texte dürfen keine einzelnen UTF-16-Surrogate enthalten.")


def is_json(scope: Scope) -> bool:
    """Return whether the request says its body is JSON (``application/json`` or ``application/*+json``)."""
    header = next((value for key, value in scope.get("headers", ()) if key == b"content-type"), b"")
    media = header.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or (media.startswith(b"application/") and media.endswith(b"+json"))


def has_nul(scope: Scope) -> bool:
    """Return whether the path or query string carries a NUL character (raw or percent-encoded)."""
    query: bytes = scope.get("query_string", b"")
    return "\x00" in scope.get("path", "") or b"\x00" in query or b"%00" in query


class StrictInput:
    """Pure ASGI middleware: 400 for NUL in the address, 422 for a JSON body the platform does not accept.

    A JSON body is read whole here (the body limit outside keeps that bounded), checked, and handed on.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if has_nul(scope):
            await refusal(400, "Die Adresse enthält ein unzulässiges Zeichen (NUL).",
                          "invalid_characters")(scope, receive, send)
            return
        if not is_json(scope):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        message: Message = {"type": "http.request", "more_body": True}
        while message["type"] == "http.request" and message.get("more_body", False):
            message = await receive()
            chunks.append(message.get("body", b""))
        body = b"".join(chunks)
        if message["type"] == "http.request" and body:  # (no body at all is the route's "missing")
            try:
                strict_loads(body)
            except InvalidJson as error:
                await refusal(422, error.reason, "invalid_json")(scope, receive, send)
                return
        pending = [{"type": "http.request", "body": body, "more_body": False}
                   if message["type"] == "http.request" else message]

        async def replay() -> Message:
            return pending.pop() if pending else await receive()

        await self.app(scope, replay, send)
