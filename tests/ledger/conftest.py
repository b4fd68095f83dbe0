"""Fixtures for the ledger's tests: the running ledger, database sessions, tokens and funded wallets."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from libs.platform.auth import Identity, PlayerKind, issue_token
from libs.platform.contracts.subjects import (
    LEDGER_REGISTRATIONS_DURABLE,
    LOBBY_STREAM,
    PLAYER_REGISTERED,
    registration_msg_id,
)
from libs.platform.database import create_engine, session_factory
from libs.platform.settings import Settings
from services.ledger.app import create_app
from services.ledger.handlers import open_wallet_for_registration
from services.table.app import create_app as create_table_app
from tests.conftest import running_app
from tests.game_facts import consumer_acked


@pytest.fixture(scope="module")
async def ledger(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The ledger service running in-process (HTTP client), with its NATS workers, beside a real table API.

    The ledger asks the table for a game's start that is no longer on the stream (`table.cmd.started`) and
    handles an end again later while no table answers, as in production; the table (API role only: it follows
    up nothing) answers 404 for the games other test modules only published facts of.
    """
    table = create_table_app(settings.model_copy(update={"table_roles": "api"}))
    async with running_app(table), running_app(create_app(settings)) as client:
        yield client


@pytest.fixture(scope="module")
async def sessions(settings: Settings) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """Sessions on the ledger's database."""
    engine = create_engine(settings)
    yield session_factory(engine)
    await engine.dispose()


def new_player_id() -> str:
    """A player id no other test uses."""
    return f"p-{uuid.uuid4().hex[:12]}"


def token_for(settings: Settings, player_id: str, kind: PlayerKind = PlayerKind.REGISTERED) -> dict[str, str]:
    """Authorization headers of a player as the lobby would have issued them."""
    token = issue_token(settings.auth_secret, Identity(player_id=player_id, name="Anna", kind=kind))
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def funded_wallet(
    sessions: async_sessionmaker[AsyncSession],
) -> Callable[[int], Awaitable[str]]:
    """Open a wallet holding `balance` Taler (from the grants account) and return its player id."""

    async def make(balance: int) -> str:
        player_id = new_player_id()
        async with sessions() as session, session.begin():
            await open_wallet_for_registration(session, player_id, balance)
        return player_id

    return make


async def publish_registration(nc: NatsClient, player_id: str, msg_id: str | None = None) -> int:
    """Publish the lobby's `player_registered` fact; return its stream sequence."""
    payload = {"player_id": player_id, "name": "Anna", "registered_at": "2026-11-29T12:00:00Z"}
    ack = await nc.jetstream().publish(PLAYER_REGISTERED, json.dumps(payload).encode(),
                                       headers={"Nats-Msg-Id": msg_id or registration_msg_id(player_id)})
    return ack.seq


async def wait_until_consumed(nc: NatsClient, stream_seq: int, timeout: float = 15.0) -> None:
    """Wait until the ledger's registration consumer has acknowledged everything up to `stream_seq`."""
    await consumer_acked(nc.jetstream(), LOBBY_STREAM, LEDGER_REGISTRATIONS_DURABLE, stream_seq, timeout)
