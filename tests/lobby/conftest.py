"""Lobby test fixtures: the lobby in-process on its own NATS server, and a stand-in table responder.

The lobby gets a private NATS server (the PostgreSQL is the session's) so that no real table service
started by other tests in the same session can answer `table.cmd.start` in the responder's place. Tests
about stakes also run the real ledger on that server (`ledger_service`).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import nats
import pytest
from nats.aio.client import Client as NatsClient

from libs.devservers import NatsServer
from libs.devservers.nats_server import create_platform_streams
from libs.platform.contracts.commands import LeaveGame, LeftReply, StartedReply, StartGame
from libs.platform.contracts.events import EndedSeat, GameEnded, GameSeat, GameStarted, Outcome, PlatformSettings
from libs.platform.contracts.subjects import (
    GAME_FACTS_STREAM,
    LEDGER_GAMES_DURABLE,
    LOBBY_GAME_ENDS_DURABLE,
    TABLE_LEAVE,
    TABLE_START,
)
from libs.platform.envelope import GENESIS, EventType, new_event
from libs.platform.rpc import CommandRefused, request, serve
from libs.platform.service import Runtime
from libs.platform.settings import Settings
from services.ledger.app import create_app as create_ledger_app
from services.lobby.app import create_app
from tests.clocks import ShiftedClock
from tests.conftest import Infrastructure, running_app
from tests.game_facts import append_as_table, facts_are_read
from tests.rules.helpers import registered_plugins

STARTING_TALER = 100


@dataclass
class Lobby:
    """The running lobby: its HTTP client, its runtime (for workers run by hand) and its clock."""

    http: httpx.AsyncClient
    runtime: Runtime
    clock: ShiftedClock


@dataclass
class TableStandIn:
    """Answers `table.cmd.start` as the table service would (writing `GameStarted` to the game's log and its
    copy to GAME_FACTS), and `table.cmd.leave` (a player gives up a running game), and remembers what it was
    asked: every start's payload in `requests` (with `mode`, `seed`, `seed_reveal_at`), every leave in `leaves`."""

    nc: NatsClient
    requests: list[dict[str, Any]] = field(default_factory=list)
    refusal: CommandRefused | None = None
    leaves: list[dict[str, Any]] = field(default_factory=list)
    dying: set[str] = field(default_factory=set)
    """Commands ("start", "leave") whose next request it takes (noted) and never answers, as a replica that died
    holding it: the caller hears nothing, as from a SIGKILLed table."""
    released: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the test ends: a request held by `dying` is let go (unanswered)."""

    async def _dies_with(self, command: str) -> bool:
        """Whether this request is the one a dying replica took: then wait, unanswering, till the test ends."""
        if command not in self.dying:
            return False
        self.dying.discard(command)
        await self.released.wait()
        return True

    async def handle_leave(self, payload: dict[str, Any]) -> dict[str, Any]:
        if await self._dies_with("leave"):
            raise CommandRefused(503, "Diesen Spieltisch gibt es nicht mehr.", "gone")
        command = LeaveGame.from_data(payload)
        already = any(left == payload for left in self.leaves)
        self.leaves.append(payload)
        return LeftReply(game_id=command.game_id, n=2, already=already).to_data()

    async def handle(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(payload)
        if await self._dies_with("start"):
            raise CommandRefused(503, "Diesen Spieltisch gibt es nicht mehr.", "gone")
        if self.refusal is not None:
            raise self.refusal
        command = StartGame.from_data(payload)
        assert command.game_id is not None
        seats = [GameSeat(name=seat.name or "", kind=seat.kind, player_id=seat.player_id, level=seat.level,
                          account=seat.account) for seat in command.seats]
        data = GameStarted(game=command.game, rules="speedmosaik@1", settings=command.settings or {}, seats=seats,
                           platform=command.platform or PlatformSettings(), table_id=command.table_id,
                           seed="00" * 32, seed_commitment="0" * 64).to_data()
        started = new_event(game_id=command.game_id, n=1, type=EventType.GAME_STARTED, actor="system",
                            rules="speedmosaik@1", prev=GENESIS, data=data)
        await append_as_table(self.nc.jetstream(), started)
        return StartedReply(game_id=command.game_id, rules="speedmosaik@1", n=1).to_data()

    @property
    def last(self) -> dict[str, Any]:
        assert self.requests, "the table was never asked to start a game"
        return self.requests[-1]


@pytest.fixture(scope="session")
def lobby_nats_url(infra: Infrastructure, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A NATS JetStream server of the lobby tests' own (its users' passwords those of the session's server)."""
    credentials = Path(infra.nats_credentials) if infra.nats_credentials else None
    server = NatsServer(tmp_path_factory.mktemp("lobby-nats"), credentials=credentials).start()
    create_platform_streams(server.url)
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
    """The lobby service running in-process, workers included, on a clock tests can move forward."""
    clock = ShiftedClock()
    app = create_app(lobby_settings, clock=clock)
    async with running_app(app) as http:
        yield Lobby(http=http, runtime=app.state.runtime, clock=clock)


@pytest.fixture(scope="session")
async def ledger_service(lobby_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The real ledger on the lobby tests' NATS: wallets start with 100 Taler, stakes are held and paid."""
    async with running_app(create_ledger_app(lobby_settings.model_copy(
            update={"starting_balance": STARTING_TALER}))) as http:
        yield http


@pytest.fixture(scope="session")
async def lobby_nc(lobby_nats_url: str) -> AsyncIterator[NatsClient]:
    """A NATS connection to the lobby tests' server, as another service would have."""
    client = await nats.connect(lobby_nats_url)
    yield client
    await client.drain()


@pytest.fixture
async def table_service(lobby_nc: NatsClient) -> AsyncIterator[TableStandIn]:
    """A stand-in for the table service's `table.cmd.start`, for the duration of one test."""
    stand_in = TableStandIn(nc=lobby_nc)
    subscription = await serve(lobby_nc, TABLE_START, "table", stand_in.handle)
    leaving = await serve(lobby_nc, TABLE_LEAVE, "table", stand_in.handle_leave)
    await lobby_nc.flush()
    yield stand_in
    stand_in.released.set()
    await subscription.unsubscribe()
    await leaving.unsubscribe()


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


async def new_registered(http: httpx.AsyncClient, nc: NatsClient, prefix: str = "Spieler") -> dict[str, Any]:
    """Register a player and wait until the ledger has opened the wallet; the reply plus `headers`."""
    response = await http.post("/players", json={"name": unique_name(prefix), "password": "geheim-123"})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    deadline = time.monotonic() + 15
    while True:
        try:
            await request(nc, "ledger.cmd.balance", {"player_id": body["player_id"]})
            break
        except CommandRefused:
            assert time.monotonic() < deadline, "the ledger never opened the wallet"
            await asyncio.sleep(0.05)
    return {**body, "headers": bearer(body["token"])}


async def taler_of(nc: NatsClient, player: dict[str, Any]) -> int:
    """The player's wallet balance, asked of the ledger as another service would."""
    answer = await request(nc, "ledger.cmd.balance", {"player_id": player["player_id"]})
    return int(answer["balance"])


async def game_events_are_read(nc: NatsClient, timeout: float = 15.0) -> None:
    """Wait until the lobby's (and, if running, the ledger's) game consumers have acked every game fact."""
    js = nc.jetstream()
    await facts_are_read(js, LOBBY_GAME_ENDS_DURABLE, timeout)
    try:
        await js.consumer_info(GAME_FACTS_STREAM, LEDGER_GAMES_DURABLE)
    except Exception:  # the ledger is not running in every test, or its consumer is just starting
        return
    await facts_are_read(js, LEDGER_GAMES_DURABLE, timeout)


async def end_game(nc: NatsClient, started: dict[str, Any], places: Sequence[int] | None = None,
                   left: Sequence[int] = ()) -> None:
    """Append `GameEnded` (and its fact) to the game the table stand-in was asked to start; wait until it is read."""
    data = game_ended_data(started["table_id"], started["seats"], places, left)
    event = new_event(game_id=started["game_id"], n=2, type=EventType.GAME_ENDED, actor="system",
                      rules="speedmosaik@1", prev="0" * 64, data=data)
    await append_as_table(nc.jetstream(), event)
    await game_events_are_read(nc)


def game_ended_data(table_id: str, seats: Sequence[dict[str, Any]], places: Sequence[int] | None = None,
                    left: Sequence[int] = ()) -> dict[str, Any]:
    """`GameEnded`'s data as the table writes it, for `seats` as the table stand-in was asked to seat them."""
    count = len(seats)
    ranks = list(places or range(1, count + 1))
    return GameEnded(
        game="speedmosaik", variant="kachelwand", rules="speedmosaik@1", table_id=table_id,
        seats=[EndedSeat(seat=index, name=seat["name"], kind=seat["kind"], player_id=seat.get("player_id"),
                         level=seat.get("level"), account=seat.get("account")) for index, seat in enumerate(seats)],
        outcome=Outcome(places=ranks, scores=[0] * count, tie_break=[0] * count, lines=[[] for _ in seats],
                        leaderboard_points=[0] * count, summary={"key": "ende", "params": {}, "text": "Ende."}),
        seed="00" * 32, left=list(left), left_with_other_humans=list(left),
    ).to_data()


@pytest.fixture(scope="module")
def with_tinygame() -> Iterator[None]:
    """The tiny test game registered for one test module (its modes, campaign, badges and team chat rule).

    Other tests list every registered game, so it must not stay registered after the module.
    """
    with registered_plugins("tests.rules.tinygame"):
        yield
