"""Query parameters the list routes share, bounded to what PostgreSQL can hold (beyond: a German 422)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from libs.platform.strict_input import INT64_MAX

Offset = Annotated[int, Query(ge=0, le=INT64_MAX, description="So viele Einträge überspringen (nächste Seite).")]
"""How many entries a page skips: PostgreSQL's OFFSET is a bigint, so a larger number is refused, not a 500."""
