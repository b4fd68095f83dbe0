"""The leaderboard's composition root."""

from __future__ import annotations

from fastapi import FastAPI

from libs.platform.clock import Clock, installing
from libs.platform.service import create_service_app
from libs.platform.settings import Settings
from services.leaderboard.games import router as games_router
from services.leaderboard.leaderboards import router as leaderboards_router
from services.leaderboard.modes import router as modes_router
from services.leaderboard.players import router as players_router
from services.leaderboard.ratings import router as ratings_router
from services.leaderboard.workers import consume_game_events, serve_rating_requests


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """Build the leaderboard app: lists, modes, histories, badges, ratings and end tables over HTTP, the consumer
    of game ends and the answer to rating requests over NATS; `clock` (default: the wall clock) decides which
    streaks are current."""
    return create_service_app(
        "leaderboard",
        routers=[leaderboards_router, modes_router, players_router, games_router, ratings_router],
        workers=[consume_game_events, serve_rating_requests],
        on_startup=[installing(clock)],
        uses_database=True,
        settings=settings,
    )
