"""Team logs in the archive: a finished team game's signals are copied into PostgreSQL exactly once, purged from
GAMES together with its log, and read back from the archive, so the operator's audit of an old game still
replays every signal (docs/archive.md), and the opponent's copy still shows none."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from libs.audit import audit
from libs.platform.contracts.subjects import GAMES_STREAM, TABLE_ARCHIVE_DURABLE, TABLE_ARCHIVE_TEAMS_DURABLE
from libs.platform.database import create_engine
from libs.platform.settings import Settings
from services.table.app import create_app
from services.table.event_store import GameLog
from tests.clocks import ShiftedClock
from tests.conftest import Infrastructure, running_app
from tests.game_facts import consumer_is_done
from tests.table.test_team_signals import ANNA, BERT, OPERATOR, FixedSeeds, auth, play, same


@pytest.fixture(scope="module")
def archive_settings(infra: Infrastructure) -> Settings:
    return infra.settings(archive_sweep_seconds=0.2, archive_purge_grace_seconds=3600)


@pytest.fixture(scope="module")
async def engine(archive_settings: Settings) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(archive_settings)
    yield engine
    await engine.dispose()


async def test_a_purged_team_game_keeps_its_signals_for_the_team_and_the_operator_only(
        archive_settings: Settings, engine: AsyncEngine, nc: NatsClient) -> None:
    js = nc.jetstream()
    log = GameLog(js)
    clock = ShiftedClock()
    async with running_app(create_app(archive_settings, seeds=FixedSeeds(), clock=clock)) as table:
        game = await play(table, nc, signalling=True)
        team0 = [(stored.seq, stored.event.encode()) for stored in await log.read_team(game.game_id, 0)]
        assert len(team0) == game.signals > 0
        before = {name: (await table.get(f"/games/{game.game_id}/{path}", headers=headers)).json()
                  for name, path, headers in (("operator", "export", OPERATOR), ("anna", "export", auth(ANNA)),
                                              ("bert", "export", auth(BERT)), ("events", "events", auth(ANNA)))}
        await consumer_is_done(js, GAMES_STREAM, TABLE_ARCHIVE_DURABLE, timeout=20)
        await consumer_is_done(js, GAMES_STREAM, TABLE_ARCHIVE_TEAMS_DURABLE, timeout=20)
        clock.advance(hours=2)  # past the grace period: the next sweep purges the game
        for _ in range(200):
            async with engine.connect() as connection:
                purged = (await connection.execute(text(
                    'SELECT purged_at FROM "table".archived_games WHERE game_id = :id'),
                    {"id": game.game_id})).scalar_one_or_none()
            if purged is not None:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the game was not purged")
    async with engine.connect() as connection:
        rows = (await connection.execute(text(
            'SELECT team, n, stream_seq, body FROM "table".team_events WHERE game_id = :id ORDER BY team, n'),
            {"id": game.game_id})).all()
    assert [(int(team), int(n)) for team, n, _seq, _body in rows] == [(0, n) for n in range(1, len(team0) + 1)]
    assert [(int(seq), body.encode()) for _team, _n, seq, body in rows] == team0
    assert not await log.read(game.game_id) and not await log.read_team(game.game_id, 0)  # log and team log purged

    # A fresh replica reads the game, its team log included, from the archive alone.
    async with running_app(create_app(archive_settings, seeds=FixedSeeds())) as table:
        after = {name: (await table.get(f"/games/{game.game_id}/{path}", headers=headers)).json()
                 for name, path, headers in (("operator", "export", OPERATOR), ("anna", "export", auth(ANNA)),
                                             ("bert", "export", auth(BERT)), ("events", "events", auth(ANNA)))}
        for name in before:
            assert same(after[name]) == same(before[name]), name
        report = audit(after["operator"])
        assert report.passed and "team" in report.checks, report.lines()
        assert [log["team"] for log in after["bert"]["team_logs"]] == [1] and audit(after["bert"]).passed
        assert len(after["events"]["team_log"]["events"]) == game.signals
        anna = (await table.get(f"/games/{game.game_id}/view", headers=auth(ANNA))).json()
        assert anna["team_log"]["n"] == game.signals
