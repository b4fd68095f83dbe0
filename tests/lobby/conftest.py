"""Lobby test fixtures: the lobby in-process on its own NATS server, and a stand-in table responder.

The lobby gets a private NATS server (the PostgreSQL is the session's) so that no real table service
started by other tests in the same session can answer `table.cmd.start` in the responder's place.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import nats
import pytest
from nats.aio.client import Client as NatsClient

from libs.devservers import NatsServer
from libs.platform.rpc import CommandRefused, serve
from libs.platform.service import Runtime
from libs.platform.settings import Settings
from libs.platform.streams import TABLE_START
from services.lobby.app import create_app
from tests.conftest import Infrastructure, running_app


@dataclass
class Lobby:
    """The running lobby: its HTTP client and its runtime (for workers run by hand)."""

    http: httpx.AsyncClient
    runtime: Runtime


@dataclass
class TableStandIn:
    """Answers `table.cmd.start` as the table service would, and remembers what it was asked."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    refusal: CommandRefused | None = None

    async def handle(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(payload)
        if self.refusal is not None:
            raise self.refusal
        return {"game_id": payload["game_id"], "rules": "speedmosaik@1", "n": 1}

    @property
    def last(self) -> dict[str, Any]:
        assert self.requests, "the table was never asked to start a game"
        return self.requests[-1]


@pytest.fixture(scope="session")
def lobby_nats_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A NATS JetStream server of the lobby tests' own."""
    server = NatsServer(tmp_path_factory.mktemp("lobby-nats")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def lobby_settings(infra: Infrastructure, lobby_nats_url: str) -> Settings:
    """Settings pointing at the session's PostgreSQL and the lobby tests' NATS."""
    return infra.settings().model_copy(update={"nats_url": lobby_nats_url})


@pytest.fixture(scope="session")
async def lobby(lobby_settings: Settings) -> AsyncIterator[Lobby]:
    """The lobby service running in-process, workers included."""
    app = create_app(lobby_settings)
    async with running_app(app) as http:
        yield Lobby(http=http, runtime=app.state.runtime)


@pytest.fixture(scope="session")
async def lobby_nc(lobby_nats_url: str) -> AsyncIterator[NatsClient]:
    """A NATS connection to the lobby tests' server, as another service would have."""
    client = await nats.connect(lobby_nats_url)
    yield client
    await client.drain()


@pytest.fixture
async def table_service(lobby_nc: NatsClient) -> AsyncIterator[TableStandIn]:
    """A stand-in for the table service's `table.cmd.start`, for the duration of one test."""
    stand_in = TableStandIn()
    subscription = await serve(lobby_nc, TABLE_START, "table", stand_in.handle)
    await lobby_nc.flush()
    yield stand_in
    await subscription.unsubscribe()


def unique_name(prefix: str = "Spieler") -> str:
    """A player name no other test uses (names are at most 20 characters)."""
    return f"{prefix} {uuid.uuid4().hex[:8]}"


def bearer(token: str) -> dict[str, str]:
    """The Authorization header for `token`."""
    return {"Authorization": f"Bearer {token}"}


async def new_guest(http: httpx.AsyncClient, prefix: str = "Gast") -> dict[str, Any]:
    """Sign up a guest and return the reply plus ready-made `headers`."""
    response = await http.post("/guests", json={"name": unique_name(prefix)})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return {**body, "headers": bearer(body["token"])}
