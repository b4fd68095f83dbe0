"""The web front end's composition root: pages, static files (htmx vendored), security headers; no NATS,
no database (docs/services/web.md)."""

from __future__ import annotations

from pathlib import Path

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles

from libs.platform.service import create_http_service_app
from libs.platform.settings import Settings, get_settings
from services.web import chat, home, quickmatch, rematch, replay, start, watch
from services.web.api import Api
from services.web.pages import Forbidden, forbidden_page, router
from services.web.security import SecurityHeaders

STATIC = Path(__file__).parent / "static"


def create_app(settings: Settings | None = None, transport: httpx.AsyncBaseTransport | None = None) -> FastAPI:
    """Build the web app; `transport` (tests) replaces the network under the API clients."""
    settings = settings or get_settings()

    async def open_clients(app: FastAPI) -> None:
        app.state.api = Api.for_settings(settings, transport)

    async def close_clients(app: FastAPI) -> None:
        await app.state.api.close()

    app = create_http_service_app("web", routers=[start.router, router, home.router, replay.router, chat.router,
                                                  rematch.router, quickmatch.router, watch.router],
                                  on_startup=[open_clients], on_shutdown=[close_clients],
                                  settings=settings)
    app.state.settings = settings
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(SecurityHeaders)

    @app.exception_handler(Forbidden)
    async def refused(request: Request, _: Forbidden) -> Response:
        return forbidden_page(request)

    return app
