"""Composition root of the bot service (scaled on its own, on the work queue's pending count)."""

from __future__ import annotations

from fastapi import FastAPI

from libs.platform.service import create_service_app
from libs.platform.settings import Settings
from services.bot.commands import serve_decisions
from services.bot.turns import work_turns


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the bot service."""
    return create_service_app("bot", workers=[work_turns], on_startup=[serve_decisions], settings=settings)
