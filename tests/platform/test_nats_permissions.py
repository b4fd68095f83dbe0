"""NATS is closed: every service is its own user and may publish and subscribe only what it needs.

Each test connects exactly as a service does (its user and password from the dev server's credentials, its
own inbox prefix) and tries what an intruder holding that service's password would try. A refused publish
is dropped by the server, which answers with a permissions violation; a listener with every right (the
admin) then proves nothing arrived. The table additionally refuses a NATS move whose actor does not fit
the seat, so even the bot service's user cannot move for a human.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import nats
import pytest
from nats.aio.client import Client as NatsClient
from nats.errors import Error as NatsError
from nats.js.errors import NotFoundError

from libs.platform.contracts.commands import MAKE_MOVE, PLAY_MOVE, HoldStake, MakeMove
from libs.platform.contracts.subjects import (
    GAMES_STREAM,
    LEDGER_HOLD,
    LOBBY_STREAM,
    PLAYER_REGISTERED,
    TABLE_MOVE,
    TABLE_PLAY,
    TABLE_START,
    game_subject,
)
from libs.platform.envelope import EventType
from libs.platform.nats_permissions import SERVICE_USERS, inbox_prefix
from libs.platform.rpc import CommandRefused, call, request
from libs.platform.settings import Settings
from services.table.app import create_app as create_table_app
from services.table.event_store import GameLog
from services.table.games import Games
from services.table.seeds import SeedSource
from tests.conftest import Infrastructure, running_app

pytestmark = pytest.mark.usefixtures("credentials")

ANNA = "anna-" + uuid.uuid4().hex[:8]


@pytest.fixture(scope="module")
def credentials(infra: Infrastructure) -> str:
    if not infra.nats_credentials:
        pytest.skip("NATS_URL points at a server whose users this session does not know (NATS_CREDENTIALS)")
    return infra.nats_credentials


@dataclass
class Connection:
    """A NATS connection as one service's user, with the permission violations the server reported."""

    nc: NatsClient
    violations: list[str] = field(default_factory=list)
    _reported: asyncio.Event = field(default_factory=asyncio.Event)

    async def refused(self, subject: str, timeout: float = 10.0) -> bool:
        """Wait for the server's next permissions violation on this connection; True if it names `subject`."""
        await asyncio.wait_for(self._reported.wait(), timeout)
        self._reported.clear()
        return f'"{subject.lower()}"' in self.violations[-1].lower()  # nats-py reports it in lower case


@asynccontextmanager
async def connected_as(settings: Settings, service: str) -> AsyncIterator[Connection]:
    """Connect as `service`'s NATS user, with the credentials and inbox prefix the service itself uses."""
    user, password = settings.nats_login(service)
    assert user == service
    connection: Connection | None = None

    async def on_error(error: Exception) -> None:
        if connection is not None and "permissions violation" in str(error).lower():
            connection.violations.append(str(error))
            connection._reported.set()

    nc = await nats.connect(settings.nats_url, user=user, password=password, inbox_prefix=inbox_prefix(user),
                            error_cb=on_error, allow_reconnect=False)
    connection = Connection(nc)
    try:
        yield connection
    finally:
        await nc.close()


@asynccontextmanager
async def listening(nc: NatsClient, subject: str) -> AsyncIterator[list[bytes]]:
    """Everything published on `subject` while inside, as the admin (who may see everything) receives it."""
    received: list[bytes] = []

    async def on_message(msg: Any) -> None:
        received.append(msg.data)

    subscription = await nc.subscribe(subject, cb=on_message)
    await nc.flush()
    try:
        yield received
    finally:
        await nc.flush()
        await subscription.unsubscribe()


async def arrived(received: list[bytes], timeout: float = 10.0) -> None:
    """Wait until a listener received something (a permitted publish does arrive)."""
    async def wait() -> None:
        while not received:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), timeout)


async def test_without_a_password_or_with_a_wrong_one_nobody_gets_in(infra: Infrastructure,
                                                                      settings: Settings) -> None:
    address = infra.nats_url.split("@")[-1]
    with pytest.raises(NatsError, match="Authorization Violation"):
        await nats.connect(f"nats://{address}", allow_reconnect=False, max_reconnect_attempts=0)
    with pytest.raises(NatsError, match="Authorization Violation"):
        await nats.connect(f"nats://{address}", user="lobby", password="geraten", allow_reconnect=False,
                           max_reconnect_attempts=0)


async def test_every_service_connects_as_its_own_user(settings: Settings) -> None:
    for service in SERVICE_USERS:
        assert settings.nats_login(service)[0] == service
        async with connected_as(settings, service) as connection:
            assert connection.nc.is_connected


async def test_only_the_lobby_may_hold_a_players_taler(settings: Settings, nc: NatsClient) -> None:
    hold = HoldStake(player_id=ANNA, table_id="t-" + uuid.uuid4().hex[:8], amount=50,
                     key=f"hold:x:{ANNA}:1").encode()
    async with listening(nc, LEDGER_HOLD) as received:
        for intruder in ("bot", "table", "leaderboard", "ledger"):
            async with connected_as(settings, intruder) as connection:
                await connection.nc.publish(LEDGER_HOLD, hold)
                assert await connection.refused(LEDGER_HOLD)
        await nc.flush()
        assert received == []
        async with connected_as(settings, "lobby") as lobby:  # the one sender the ledger serves
            await lobby.nc.publish(LEDGER_HOLD, hold)
            await lobby.nc.flush()
        await arrived(received)
    assert received == [hold] and lobby.violations == []


async def test_the_bot_cannot_answer_in_the_ledgers_place_nor_read_others_replies(settings: Settings) -> None:
    async with connected_as(settings, "bot") as bot:
        await bot.nc.subscribe(LEDGER_HOLD, queue="ledger")
        assert await bot.refused(LEDGER_HOLD)
        await bot.nc.subscribe(f"{inbox_prefix('lobby')}.>")
        assert await bot.refused(f"{inbox_prefix('lobby')}.>")


async def test_only_the_bot_may_send_moves_and_only_the_lobby_may_start_games(settings: Settings,
                                                                               nc: NatsClient) -> None:
    for subject, senders, intruders in ((TABLE_MOVE, "bot", ("lobby", "ledger", "leaderboard", "table")),
                                        (TABLE_START, "lobby", ("bot", "ledger", "leaderboard", "table"))):
        async with listening(nc, subject) as received:
            for intruder in intruders:
                async with connected_as(settings, intruder) as connection:
                    await connection.nc.publish(subject, b"{}")
                    assert await connection.refused(subject)
            await nc.flush()
            assert received == [], subject
            async with connected_as(settings, senders) as sender:
                await sender.nc.publish(subject, b"{}")
                await sender.nc.flush()
            await arrived(received)
        assert sender.violations == []


async def test_only_the_table_appends_to_a_games_log_and_nobody_deletes_one(settings: Settings,
                                                                            nc: NatsClient) -> None:
    game_id = uuid.uuid4().hex
    for intruder in ("leaderboard", "ledger", "lobby", "bot"):
        async with connected_as(settings, intruder) as connection:
            await connection.nc.publish(game_subject(game_id), b'{"forged": true}')
            assert await connection.refused(game_subject(game_id))
    with pytest.raises(NotFoundError):
        await nc.jetstream().get_last_msg(GAMES_STREAM, game_subject(game_id))
    for service in SERVICE_USERS:
        async with connected_as(settings, service) as connection:
            for api in (f"$JS.API.STREAM.DELETE.{GAMES_STREAM}", f"$JS.API.STREAM.PURGE.{GAMES_STREAM}",
                        f"$JS.API.STREAM.UPDATE.{LOBBY_STREAM}"):
                if service == "lobby" and api.endswith(LOBBY_STREAM):
                    continue  # the lobby owns LOBBY: it creates and updates it at startup
                await connection.nc.publish(api, b"{}")
                assert await connection.refused(api), (service, api)
    assert (await nc.jetstream().stream_info(GAMES_STREAM)).config.name == GAMES_STREAM


async def test_only_the_lobby_publishes_registrations(settings: Settings) -> None:
    for intruder in ("bot", "table", "ledger", "leaderboard"):
        async with connected_as(settings, intruder) as connection:
            await connection.nc.publish(PLAYER_REGISTERED, b"{}")
            assert await connection.refused(PLAYER_REGISTERED)


# ---- the table checks who a NATS move is for ------------------------------------------------------------
@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    # No bot service runs here: the computer's turn stays open for the bot user's move below.
    async with running_app(create_table_app(settings)) as client:
        yield client


async def test_the_bots_user_moves_for_a_computer_but_never_for_a_human(table: httpx.AsyncClient,
                                                                        settings: Settings,
                                                                        nc: NatsClient) -> None:
    started = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": {}, "seats": [
        {"kind": "bot", "level": "normal"}, {"kind": "human", "player_id": ANNA, "name": "Anna"}]})
    game_id = str(started["game_id"])
    games = Games(GameLog(nc.jetstream()), SeedSource())
    record = await games.load(game_id)
    computers_move = record.engine.legal_moves(record.position, 0)[0]

    async with connected_as(settings, "bot") as bot:
        for seat, actor, chosen_by in [(1, "bot:normal", "bot"), (1, "bot:normal", "departed"),
                                       (1, "system", "timeout"), (1, "bot:normal", "player"),
                                       (0, ANNA, "bot"), (0, ANNA, "player")]:
            with pytest.raises(CommandRefused) as refused:
                await call(bot.nc, MAKE_MOVE, MakeMove(game_id=game_id, seat=seat, move=computers_move,
                                                       actor=actor, chosen_by=chosen_by))
            assert (refused.value.status, refused.value.code) == (403, "not_your_seat"), (seat, actor, chosen_by)
        assert [stored.event.type for stored in await games.events(game_id)] == [EventType.GAME_STARTED]

        made = await call(bot.nc, MAKE_MOVE, MakeMove(game_id=game_id, seat=0, move=computers_move,
                                                      actor="bot:normal", chosen_by="bot", expected_n=1))
    assert made.n == 2
    assert [stored.event.type for stored in await games.events(game_id)] == [EventType.GAME_STARTED,
                                                                             EventType.MOVE_MADE]
    assert bot.violations == []


async def test_no_service_may_move_in_a_humans_name_only_the_operator_may(table: httpx.AsyncClient,
                                                                          settings: Settings,
                                                                          nc: NatsClient) -> None:
    started = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": {}, "seats": [
        {"kind": "human", "player_id": ANNA, "name": "Anna"}, {"kind": "bot", "level": "normal"}]})
    game_id = str(started["game_id"])
    games = Games(GameLog(nc.jetstream()), SeedSource())
    record = await games.load(game_id)
    annas_move = record.engine.legal_moves(record.position, 0)[0]

    async with listening(nc, TABLE_PLAY) as received:
        for service in SERVICE_USERS:
            async with connected_as(settings, service) as connection:
                await connection.nc.publish(TABLE_PLAY, b"{}")
                assert await connection.refused(TABLE_PLAY), service
        await nc.flush()
        assert received == []
    async with connected_as(settings, "bot") as bot:  # the bot's own subject refuses a human's move outright
        with pytest.raises(CommandRefused) as refused:
            await call(bot.nc, MAKE_MOVE, MakeMove(game_id=game_id, seat=0, move=annas_move, actor=ANNA,
                                                   chosen_by="player"))
        assert (refused.value.status, refused.value.code) == (403, "not_your_seat")
    assert [stored.event.type for stored in await games.events(game_id)] == [EventType.GAME_STARTED]

    # The operator's tools (the bench) play a human's seat on table.cmd.play, in that human's name only, and the
    # log says the operator made the move (never the player's own: the audit fails such a game).
    with pytest.raises(CommandRefused) as refused:
        await call(nc, PLAY_MOVE, MakeMove(game_id=game_id, seat=0, move=annas_move, actor="bot:normal"))
    assert (refused.value.status, refused.value.code) == (403, "not_your_seat")
    made = await call(nc, PLAY_MOVE, MakeMove(game_id=game_id, seat=0, move=annas_move, actor=ANNA, expected_n=1))
    assert made.n == 2
    stored = (await games.events(game_id))[-1].event
    assert stored.type == EventType.MOVE_MADE and stored.data["chosen_by"] == "operator" and stored.actor == ANNA
