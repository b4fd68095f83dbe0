"""Responses the services share: JSON written by msgspec, and live streams that give their slot back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

_ENCODER = msgspec.json.Encoder()


class JsonBody(Response):
    """``application/json`` from plain data, skipping FastAPI's per-field encoding.

    Views and logs are plain JSON data already (the rule modules and contracts guarantee it); FastAPI's
    ``jsonable_encoder`` walking a 5 KB view cost more than building it. A route returns ``JsonBody(data)``.
    """

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        """Return the UTF-8 JSON bytes of ``content``."""
        return _ENCODER.encode(content)


class CountedStream(StreamingResponse):
    """A streaming response (server-sent events) that calls ``release`` however it ends: finished, viewer
    gone, cancelled, or never started; so a limit on open streams (``ratelimit.Slots``) never leaks a slot."""

    def __init__(self, content: Any, release: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()
