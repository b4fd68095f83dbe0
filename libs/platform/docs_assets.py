"""`/docs` (Swagger UI) and `/redoc` from files the service serves itself, so they work without the internet.

FastAPI's own pages load their JavaScript and CSS from a CDN and show nothing offline. The files come from
the ``fastapi-offline`` wheel (a pinned copy of Swagger UI 5 and ReDoc), served under ``/docs/assets``.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS_PATH = "/docs/assets"
ASSETS_DIR = Path(fastapi_offline.__file__).parent / "static"


def add_offline_docs(app: FastAPI) -> None:
    """Serve `/docs`, `/docs/oauth2-redirect` and `/redoc` with assets from `ASSETS_PATH` (create the app with
    ``docs_url=None, redoc_url=None``)."""
    app.mount(ASSETS_PATH, StaticFiles(directory=ASSETS_DIR), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url, title=f"{app.title} – API",
            swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js", swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_PATH}/favicon.png", oauth2_redirect_url="/docs/oauth2-redirect",
            # Swagger UI would otherwise ask validator.swagger.io for a badge.
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url=openapi_url, title=f"{app.title} – API",
                              redoc_js_url=f"{ASSETS_PATH}/redoc.standalone.js",
                              redoc_favicon_url=f"{ASSETS_PATH}/favicon.png", with_google_fonts=False)
