"""A JSON response written by msgspec, for answers that are already plain JSON data."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.responses import Response

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
