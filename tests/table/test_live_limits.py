"""Open live streams are limited per client address, per player, and for spectators in all (real HTTP)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity
from libs.platform.contracts.subjects import TABLE_START
from libs.platform.rpc import request
from libs.platform.settings import Settings
from services.table.app import create_app
from tests.http_served import served
from tests.table.test_table_api import ANNA, BERT, auth


@pytest.fixture(scope="module")
async def table_url(settings: Settings) -> AsyncIterator[str]:
    """The table served over real HTTP (in-process uvicorn: a stream stays open while it is read), behind a
    trusted proxy on 127.0.0.1 so each test request can name its client in X-Forwarded-For."""
    app = create_app(settings.model_copy(update={
        "trusted_proxies": "127.0.0.1", "live_streams_per_client": 2, "live_streams_per_account": 1,
        "live_streams_anonymous": 3}))
    async with served(app) as url:
        yield url


@pytest.fixture(scope="module")
async def game_id(nc: NatsClient, table_url: str) -> str:
    result = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": {}, "seats": [
        {"kind": "human", "player_id": ANNA.player_id, "name": "Anna"},
        {"kind": "human", "player_id": BERT.player_id, "name": "Bert"}]})
    return str(result["game_id"])


@asynccontextmanager
async def live(url: str, game_id: str, client: str, player: Identity | None = None
               ) -> AsyncIterator[httpx.Response]:
    """Open the live stream from `client` (as `player`, or a spectator) and keep it open for the block."""
    headers = {"X-Forwarded-For": client, **(auth(player) if player is not None else {})}
    async with httpx.AsyncClient(timeout=10) as http, \
            http.stream("GET", f"{url}/games/{game_id}/live", headers=headers) as response:
        if response.status_code == 200:
            # Read up to the first view without leaving the iterator (closing it would close the stream).
            lines = response.aiter_lines()
            while not (await anext(lines)).startswith("data:"):
                pass
        else:
            await response.aread()
        yield response


def assert_too_many(response: httpx.Response) -> None:
    assert response.status_code == 429
    assert response.json() == {
        "detail": "Zu viele Live-Verbindungen gleichzeitig. Bitte schließe eine andere Ansicht und versuche es "
                  "in 10 Sekunden erneut.", "code": "rate_limited"}
    assert response.headers["Retry-After"] == "10"


async def open_again(url: str, game_id: str, client: str, player: Identity | None = None) -> int:
    """Open and close a stream until it is let in (a closed stream's slot comes back once the server has
    seen the viewer go); return the last status."""
    status = 0
    for _ in range(100):
        async with live(url, game_id, client, player) as response:
            status = response.status_code
        if status == 200:
            return status
        await asyncio.sleep(0.05)
    return status


async def test_one_player_holds_one_stream_however_many_addresses_they_use(table_url: str, game_id: str) -> None:
    async with live(table_url, game_id, "198.51.100.1", ANNA) as first:
        assert first.status_code == 200
        async with live(table_url, game_id, "198.51.100.2", ANNA) as second:
            assert_too_many(second)
        async with live(table_url, game_id, "198.51.100.3", BERT) as bert:
            assert bert.status_code == 200
    assert await open_again(table_url, game_id, "198.51.100.2", ANNA) == 200


async def test_one_address_holds_two_streams_whoever_watches(table_url: str, game_id: str) -> None:
    async with AsyncExitStack() as streams:
        assert (await streams.enter_async_context(live(table_url, game_id, "203.0.113.5", ANNA))).status_code == 200
        assert (await streams.enter_async_context(live(table_url, game_id, "203.0.113.5"))).status_code == 200
        async with live(table_url, game_id, "203.0.113.5") as third:
            assert_too_many(third)
        async with live(table_url, game_id, "203.0.113.5", BERT) as bert:
            assert_too_many(bert)
    assert await open_again(table_url, game_id, "203.0.113.5", BERT) == 200


async def test_spectators_without_a_token_share_one_limit(table_url: str, game_id: str) -> None:
    async with AsyncExitStack() as streams:
        for index in range(3):
            opened = await streams.enter_async_context(live(table_url, game_id, f"192.0.2.{index + 1}"))
            assert opened.status_code == 200
        async with live(table_url, game_id, "192.0.2.50") as spectator:
            assert_too_many(spectator)
        async with live(table_url, game_id, "192.0.2.50", ANNA) as player:
            assert player.status_code == 200  # players count apart from spectators
    assert await open_again(table_url, game_id, "192.0.2.50") == 200
