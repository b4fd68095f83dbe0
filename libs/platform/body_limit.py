"""A cap on request bodies for every service: 413 with a German reason, before the body is read whole."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from libs.platform.http_errors import refusal

MAX_BODY_BYTES = 64 * 1024
"""No request of the platform needs more (a move or a table's settings are well under 1 KiB)."""


class BodyTooLarge(HTTPException):
    """The body grew past the limit while it was being read.

    An HTTPException, so that a route reading its body (FastAPI re-raises those) answers 413 as well.
    """

    code = "too_large"

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, too_large_text(max_bytes), headers={"Connection": "close"})


def too_large_text(max_bytes: int) -> str:
    """The German reason of a 413."""
    return f"Die Anfrage ist zu groß: höchstens {max_bytes // 1024} KiB."


class BodyLimit:
    """Pure ASGI middleware: refuse a body over ``max_bytes`` with 413.

    Checked twice: on the ``Content-Length`` header before anything is read, and while the body streams in
    (a chunked body has no length up front), so no route ever holds more than ``max_bytes`` of it.
    """

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = next((value for key, value in scope.get("headers", ()) if key == b"content-length"), None)
        # Compared as text first: int() of thousands of digits is itself an error (and needs no reading).
        if declared is not None and declared.isdigit() and (len(declared) > 18 or int(declared) > self.max_bytes):
            await self._refuse(scope, receive, send)
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLarge:
            if started:  # the route answered before reading all of it; nothing more to say
                return
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = refusal(413, too_large_text(self.max_bytes), BodyTooLarge.code, headers={"Connection": "close"})
        await response(scope, receive, send)
