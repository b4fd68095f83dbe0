"""Serving an app over real HTTP inside a test's event loop (in-process uvicorn on a free port)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from fastapi import FastAPI

from libs.devservers import free_port


@asynccontextmanager
async def served(app: FastAPI) -> AsyncIterator[str]:
    """Serve `app` on 127.0.0.1 (live streams stay open while read; a subprocess can reach it); yield its URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning",
                                           timeout_graceful_shutdown=2))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        assert not serving.done(), "the app did not start"
        await asyncio.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        await serving
