"""The lobby's app: players, tables, and the workers that follow games and publish facts."""

from __future__ import annotations

from fastapi import FastAPI

from libs.platform.clock import Clock, installing
from libs.platform.service import create_service_app
from libs.platform.settings import Settings
from services.lobby.database import open_sessions
from services.lobby.limits import make_limits
from services.lobby.routers import games, players, tables
from services.lobby.workers import publish_pending_registrations, sweep_rematches, track_game_ends


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """Build the lobby service; tests may replace the edge `clock` by a subclass."""

    return create_service_app(
        "lobby",
        routers=[players.router, tables.router, games.router],
        workers=[track_game_ends, publish_pending_registrations, sweep_rematches],
        on_startup=[open_sessions, installing(clock), make_limits],
        uses_database=True,
        settings=settings,
    )
