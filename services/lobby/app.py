"""The lobby's app: players, tables, and the workers that follow games and publish facts."""

from __future__ import annotations

from fastapi import FastAPI

from libs.platform.service import create_service_app
from libs.platform.settings import Settings
from services.lobby.database import open_sessions
from services.lobby.routers import players, tables
from services.lobby.workers import publish_pending_registrations, track_game_ends


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the lobby service."""
    return create_service_app(
        "lobby",
        routers=[players.router, tables.router],
        workers=[track_game_ends, publish_pending_registrations],
        on_startup=[open_sessions],
        uses_database=True,
        settings=settings,
    )
