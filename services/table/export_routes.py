"""(being built) the table's export routes."""

from __future__ import annotations

from fastapi import APIRouter

from libs.platform.http_errors import refusals

router = APIRouter(prefix="/games", tags=["games"], responses=refusals(401, 403, 404, 409))
