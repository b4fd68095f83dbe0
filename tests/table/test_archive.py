"""The archive (issue 13, point 1): every event of every game also in PostgreSQL exactly once, a finished game's
subject purged from the GAMES stream after the grace period, and every read path answering a purged game as
before. One run plays games of three modules to their end and keeps a fourth running, archives (twice: the
consumer redelivers), purges and audits."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from libs.platform.auth import Identity, PlayerKind, issue_token
from libs.platform.contracts.subjects import (
    BOT_TURNS_STREAM,
    GAME_EVENTS,
    GAMES_STREAM,
    TABLE_ARCHIVE_DURABLE,
    TABLE_START,
    game_subject,
)
from libs.platform.database import create_engine
from libs.platform.envelope import EventType
from libs.platform.nats_permissions import ARCHIVE_USER
from libs.platform.rpc import CommandRefused, request
from libs.platform.settings import Settings
from services.bot.app import create_app as create_bot_app
from services.ledger.workers import started_loader
from services.table import metrics
from services.table.app import create_app
from services.table.archive import archived_events, store_events
from services.table.event_store import GameLog
from tests.clocks import ShiftedClock
from tests.conftest import TEST_AUTH_SECRET, Infrastructure, running_app
from tests.game_facts import consumer_is_done
from tests.platform.test_nats_permissions import connected_as

ANNA = Identity(player_id="anna-" + uuid.uuid4().hex[:8], name="Anna", kind=PlayerKind.GUEST)
BERT = Identity(player_id="bert-" + uuid.uuid4().hex[:8], name="Bert", kind=PlayerKind.GUEST)
MODULES = ("speedmosaik", "speednova", "speedkoi")
"""Played to the end by the computer (a Speedspore game takes too long for this test: it is the running one)."""


def auth(identity: Identity) -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token(TEST_AUTH_SECRET, identity)}"}


@dataclass
class Archived:
    """Games played to their end (Anna left each at once; the computer finished it for her), one still running,
    and every answer about them before the purge."""

    ended: list[str]
    running: str
    logs: dict[str, list[tuple[int, bytes]]] = field(default_factory=dict)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)


async def answers(client: httpx.AsyncClient, game_id: str, ended: bool = True) -> dict[str, Any]:
    """Every read of a game: public state, Anna's view, the log (public and Anna's), the audit, and of an ended
    game the live stream (its one update: the stream ends with the game)."""
    found: dict[str, Any] = {}
    for name, path, headers in (("game", "", {}), ("view", "/view", auth(ANNA)), ("events", "/events", {}),
                                ("events_anna", "/events", auth(ANNA)), ("audit", "/audit", {}),
                                *([("live", "/live", auth(ANNA))] if ended else [])):
        answer = await client.get(f"/games/{game_id}{path}", headers=headers)
        found[name] = (answer.status_code, answer.content)
    return found


async def start(nc: NatsClient, game: str, seats: list[dict[str, Any]]) -> str:
    return str((await request(nc, TABLE_START, {"game": game, "seats": seats}))["game_id"])


async def stream_log(nc: NatsClient, game_id: str) -> list[tuple[int, bytes]]:
    return [(stored.seq, stored.event.encode()) for stored in await GameLog(nc.jetstream()).read(game_id)]


async def archive_rows(engine: AsyncEngine, game_id: str) -> list[tuple[int, int, str]]:
    async with engine.connect() as connection:
        rows = await connection.execute(text('SELECT n, stream_seq, body FROM "table".events WHERE game_id = :id '
                                             "ORDER BY n"), {"id": game_id})
        return [(int(n), int(seq), str(body)) for n, seq, body in rows]


async def purged_at(engine: AsyncEngine, game_id: str) -> Any:
    async with engine.connect() as connection:
        return (await connection.execute(text('SELECT purged_at FROM "table".archived_games WHERE game_id = :id'),
                                         {"id": game_id})).scalar_one_or_none()


@pytest.fixture(scope="module")
def archive_settings(infra: Infrastructure) -> Settings:
    return infra.settings(archive_sweep_seconds=0.2)


@pytest.fixture(scope="module")
async def engine(archive_settings: Settings) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(archive_settings)
    yield engine
    await engine.dispose()


@pytest.fixture(scope="module")
def clock() -> ShiftedClock:
    return ShiftedClock()


@pytest.fixture(scope="module")
async def played(archive_settings: Settings, clock: ShiftedClock, nc: NatsClient) -> Archived:
    """Play a game of every module to its end with the table and the computers running; archive them."""
    js = nc.jetstream()
    async with running_app(create_app(archive_settings, clock=clock)) as table, \
            running_app(create_bot_app(archive_settings)):
        human = {"kind": "human", "player_id": ANNA.player_id, "name": "Anna"}
        ended = [await start(nc, game, [human, {"kind": "bot", "level": "easy"}]) for game in MODULES]
        running = await start(nc, "speedspore", [human, {"kind": "human", "player_id": BERT.player_id,
                                                         "name": "Bert"}])
        for game_id in ended:  # the computer plays on for Anna, to the end
            assert (await table.post(f"/games/{game_id}/leave", headers=auth(ANNA))).status_code == 200
        for _ in range(1200):
            states = [(await table.get(f"/games/{game_id}")).json()["status"] for game_id in ended]
            if all(state == "ended" for state in states):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"the games did not end: {states}")
        await consumer_is_done(js, GAMES_STREAM, TABLE_ARCHIVE_DURABLE, timeout=20)
        played = Archived(ended=ended, running=running)
        for game_id in [*ended, running]:
            played.logs[game_id] = await stream_log(nc, game_id)
            played.answers[game_id] = await answers(table, game_id, ended=game_id != running)
    return played


async def test_every_event_is_archived_exactly_once_even_when_the_consumer_redelivers(
        played: Archived, archive_settings: Settings, clock: ShiftedClock, engine: AsyncEngine,
        nc: NatsClient) -> None:
    games = [*played.ended, played.running]
    for game_id in games:
        log = played.logs[game_id]
        assert await archive_rows(engine, game_id) == [(n, seq, body.decode())
                                                       for n, (seq, body) in enumerate(log, start=1)]
    # As after a crash between commit and ack: the archive's consumer hands every event of these games over again.
    js = nc.jetstream()
    await js.delete_consumer(GAMES_STREAM, TABLE_ARCHIVE_DURABLE)
    await js.add_consumer(GAMES_STREAM, ConsumerConfig(
        durable_name=TABLE_ARCHIVE_DURABLE, ack_policy=AckPolicy.EXPLICIT, ack_wait=60.0, max_deliver=-1,
        deliver_policy=DeliverPolicy.BY_START_SEQUENCE, filter_subject=GAME_EVENTS, max_ack_pending=2000,
        opt_start_seq=min(played.logs[game_id][0][0] for game_id in games)))
    stored_before = metrics.ARCHIVED_EVENTS._value.get()
    async with running_app(create_app(archive_settings, clock=clock)):
        await consumer_is_done(js, GAMES_STREAM, TABLE_ARCHIVE_DURABLE, timeout=20)
    redelivered = metrics.ARCHIVED_EVENTS._value.get() - stored_before
    assert redelivered >= sum(len(played.logs[game_id]) for game_id in games)
    for game_id in games:
        assert [n for n, _, _ in await archive_rows(engine, game_id)] == list(range(1, len(played.logs[game_id]) + 1))


async def test_a_batch_stored_late_or_again_keeps_each_event_as_first_stored_and_the_games_row_grows(
        engine: AsyncEngine) -> None:
    game_id = uuid.uuid4().hex
    began = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)

    def row(n: int, event_type: str, body: str = "") -> dict[str, Any]:
        return {"game_id": game_id, "n": n, "stream_seq": 9_000_000 + n, "type": event_type,
                "at": began + timedelta(seconds=n), "body": body or f'{{"n":{n}}}', "rules": "speedmosaik/1"}

    await store_events(engine, [row(3, EventType.MOVE_MADE), row(4, EventType.GAME_ENDED)])
    # The earlier events arrive after the later ones, and event 3 again with other bytes (which never happens
    # on a hash-chained log, so the first stored bytes must win whatever comes).
    await store_events(engine, [row(1, EventType.GAME_STARTED), row(2, EventType.MOVE_MADE),
                                row(3, EventType.MOVE_MADE, body='{"n":"other"}')])
    assert await archive_rows(engine, game_id) == [(n, 9_000_000 + n, f'{{"n":{n}}}') for n in range(1, 5)]
    async with engine.connect() as connection:
        game = (await connection.execute(text(
            'SELECT rules, started_at, ended_at, last_n FROM "table".archived_games WHERE game_id = :id'),
            {"id": game_id})).one()
    assert tuple(game) == ("speedmosaik/1", began + timedelta(seconds=1), began + timedelta(seconds=4), 4)


async def test_a_purged_game_answers_as_before_and_a_running_game_stays(
        played: Archived, archive_settings: Settings, clock: ShiftedClock, engine: AsyncEngine,
        nc: NatsClient) -> None:
    js = nc.jetstream()
    async with running_app(create_app(archive_settings, clock=clock)) as table:
        await asyncio.sleep(0.5)
        for game_id in played.ended:  # within the grace period nothing is purged
            assert await purged_at(engine, game_id) is None
            assert (await js.get_last_msg(GAMES_STREAM, game_subject(game_id))).seq == played.logs[game_id][-1][0]
        clock.advance(hours=2)
        for _ in range(200):
            if all([await purged_at(engine, game_id) is not None for game_id in played.ended]):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the ended games were not purged")
        await asyncio.sleep(0.5)  # several sweeps more: the running game stays
        thawed = metrics.SNAPSHOT_LOADS.labels("used")._value.get()
        for game_id in played.ended:
            with pytest.raises(NotFoundError):
                await js.get_last_msg(GAMES_STREAM, game_subject(game_id))
            info = await js.stream_info(GAMES_STREAM, subjects_filter=game_subject(game_id))
            assert not info.state.subjects
            # Every read answers as before the purge: from this table (it never cached the game) ...
            assert await answers(table, game_id) == played.answers[game_id], game_id
            audit = (await table.get(f"/games/{game_id}/audit")).json()
            assert audit["chain_ok"] and audit["outcome_matches"], audit
            assert "Signaturen" in audit["verdict"], audit  # each archived event keeps its signature
            # ... and the archive's own reader gives the stream's events with their sequences.
            archived = await archived_events(engine, game_id)
            assert [(stored.seq, stored.event.encode()) for stored in archived] == played.logs[game_id]
            assert all(stored.event.sig is not None for stored in archived)
            # A purged game takes no move, and its id no new game.
            move = await table.post(f"/games/{game_id}/moves", json={"move": {}}, headers=auth(ANNA))
            assert move.status_code == 409 and move.json()["code"] == "game_over", move.text
            with pytest.raises(CommandRefused) as refused:
                await request(nc, TABLE_START, {"game": "speednova", "game_id": game_id, "seats": [
                    {"kind": "human", "player_id": ANNA.player_id, "name": "Anna"},
                    {"kind": "bot", "level": "easy"}]})
            assert refused.value.status == 409
            # The ledger, handling this game's end before its start after the purge, gets the start from the
            # table's archive (as its own NATS user), byte for byte as logged.
            async with connected_as(archive_settings, "ledger") as ledger:
                started = await started_loader(ledger.nc.jetstream(), ledger.nc)(game_id)
            assert started is not None and started.encode() == played.logs[game_id][0][1]
        # The table started each purged game from the snapshot its follow-up kept at GameEnded, checked against
        # the archive's events (docs/snapshots.md), and answered as before.
        assert metrics.SNAPSHOT_LOADS.labels("used")._value.get() == thawed + len(played.ended)
        async with connected_as(archive_settings, "ledger") as ledger:
            assert await started_loader(ledger.nc.jetstream(), ledger.nc)(uuid.uuid4().hex) is None
        assert await purged_at(engine, played.running) is None
        assert await stream_log(nc, played.running) == played.logs[played.running]
        assert await answers(table, played.running, ended=False) == played.answers[played.running]
        unknown = await table.get(f"/games/{uuid.uuid4().hex}")
        assert unknown.status_code == 404
    clock.offset = timedelta()


async def test_only_the_archive_user_purges_a_games_log_and_it_cannot_write_one(
        archive_settings: Settings, played: Archived, nc: NatsClient) -> None:
    # The table's user (its API pods) may not purge, nor may any other service (tests/platform/test_nats_
    # permissions.py); the archive's user may, and may not append to a log or purge another stream.
    async with connected_as(archive_settings, ARCHIVE_USER) as archive:
        await archive.nc.publish(game_subject(played.running), b'{"forged": true}')
        assert await archive.refused(game_subject(played.running))
        for api in (f"$JS.API.STREAM.PURGE.{BOT_TURNS_STREAM}", f"$JS.API.STREAM.DELETE.{GAMES_STREAM}"):
            await archive.nc.publish(api, b"{}")
            assert await archive.refused(api)
    assert await stream_log(nc, played.running) == played.logs[played.running]
