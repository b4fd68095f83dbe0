"""The ledger's composition root."""

from __future__ import annotations

from fastapi import FastAPI

from libs.platform.service import create_service_app
from libs.platform.settings import Settings
from services.ledger.wallets import router as wallets_router
from services.ledger.workers import consume_registrations, serve_balance_requests


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the ledger app: wallet HTTP API, registration consumer, balance responder."""
    return create_service_app(
        "ledger",
        routers=[wallets_router],
        workers=[consume_registrations],
        on_startup=[serve_balance_requests],
        uses_database=True,
        settings=settings,
    )
