"""Composition root of the table service."""

from __future__ import annotations

from fastapi import FastAPI

from libs.platform.service import Runtime, create_service_app
from libs.platform.settings import Settings
from services.table.commands import serve_commands
from services.table.event_store import GameLog
from services.table.followup import follow_up_events
from services.table.games import Games
from services.table.live_limits import LiveLimits
from services.table.routes import router
from services.table.seeds import SeedSource
from services.table.timers import Clock, watch_deadlines


def create_app(settings: Settings | None = None, seeds: SeedSource | None = None,
               clock: Clock | None = None) -> FastAPI:
    """Build the table service; tests may replace the edges `seeds` and `clock` by subclasses."""

    async def wire(runtime: Runtime) -> None:
        runtime.extras["games"] = Games(GameLog(runtime.js, runtime.nc), seeds or SeedSource())
        runtime.extras["clock"] = clock or Clock(runtime.settings.clock_lag_seconds)
        runtime.extras["live_limits"] = LiveLimits(runtime.settings)

    return create_service_app(
        "table", routers=[router], workers=[follow_up_events, watch_deadlines],
        on_startup=[wire, serve_commands], settings=settings,
    )
