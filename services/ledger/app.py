"""The ledger's composition root."""

from __future__ import annotations

from fastapi import FastAPI

from libs.platform.clock import Clock, installing
from libs.platform.service import create_service_app
from libs.platform.settings import Settings
from services.ledger import metrics
from services.ledger.handlers import STARTING_GRANT
from services.ledger.stakes import KINDS
from services.ledger.wallets import router as wallets_router
from services.ledger.workers import (
    consume_game_events,
    consume_registrations,
    serve_balance_requests,
    serve_stake_requests,
    sweep_expired_holds,
)


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """Build the ledger app: wallet HTTP API, registration and game-pot consumers, balance and stake responders,
    and the sweeper of expired holds; tests may replace the edge `clock` by a subclass."""
    metrics.count_from_zero((STARTING_GRANT, *KINDS))

    return create_service_app(
        "ledger",
        routers=[wallets_router],
        workers=[consume_registrations, consume_game_events, sweep_expired_holds],
        on_startup=[installing(clock), serve_balance_requests, serve_stake_requests],
        uses_database=True,
        settings=settings,
    )
