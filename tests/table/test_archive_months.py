"""The archive by month (issue 26, point 5; docs/archive.md, "Months" and "Retention"): migration 0003 moves every
archived row into its game's month, a game is archived whole into the month it began and once however often its
events come, and a month past the retention can be detached: its games then answer 410, and the exports taken
before still pass `speed audit`."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from alembic import command
from alembic.config import Config
from nats.aio.client import Client as NatsClient
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from libs.platform.auth import Identity, PlayerKind, issue_operator_token, issue_token
from libs.platform.contracts.subjects import GAMES_STREAM, TABLE_ARCHIVE_DURABLE, TABLE_START
from libs.platform.database import REPO_ROOT, create_engine, upgrade_service
from libs.platform.envelope import Event, EventType, utc_stamp
from libs.platform.rpc import CommandRefused, request
from libs.platform.settings import Settings
from services.bot.app import create_app as create_bot_app
from services.table import metrics
from services.table.app import create_app
from services.table.archive import archived_events, store_events
from services.table.archive_months import MonthRefused, add_months, attached_months, detach_month, month_of
from services.table.team_archive import archived_team_events, store_team_events
from tests.clocks import ShiftedClock
from tests.conftest import TEST_AUTH_SECRET, Infrastructure, new_database, running_app
from tests.game_facts import consumer_is_done
from tools.speed.cli import main as speed

ANNA = Identity(player_id="anna-" + uuid.uuid4().hex[:8], name="Anna", kind=PlayerKind.GUEST)


def envelope(game_id: str, n: int, at: datetime, event_type: str = EventType.MOVE_MADE,
             data: dict[str, Any] | None = None) -> Event:
    return Event(game_id=game_id, n=n, type=event_type, at=utc_stamp(at), actor="system", rules="speedmosaik@7",
                 data=data or {"n": n}, hash=f"{n:064d}")


def event_row(event: Event, seq: int) -> dict[str, Any]:
    """An archive row as the archive's consumer makes it (services/table/archive._rows_of)."""
    return {"game_id": event.game_id, "n": event.n, "stream_seq": seq, "type": event.type,
            "at": datetime.fromisoformat(event.at), "body": event.encode().decode(), "rules": event.rules}


def team_row(event: Event, seq: int) -> dict[str, Any]:
    """A team-log row as the team archive's consumer makes it."""
    return {"game_id": event.game_id, "team": event.data["team"], "n": event.n, "stream_seq": seq,
            "at": datetime.fromisoformat(event.at), "body": event.encode().decode(), "rules": event.rules}


# ---- the migration ------------------------------------------------------------------------------------------
@pytest.fixture
def fresh_database(infra: Infrastructure) -> Iterator[str]:
    with new_database(infra, "months") as url:
        yield url


def migrate_table(database_url: str, revision: str, *, down: bool = False) -> None:
    config = Config()
    config.set_main_option("script_location", str(REPO_ROOT / "services" / "table" / "migrations"))
    config.set_main_option("sqlalchemy.url", Settings(database_url=database_url).sqlalchemy_url)
    config.attributes["schema"] = "table"
    (command.downgrade if down else command.upgrade)(config, revision)


def rows_of(connection: psycopg.Connection[Any], table: str, key: str) -> list[tuple[Any, ...]]:
    columns = {"events": "game_id, n, stream_seq, type, at, body",
               "team_events": "game_id, team, n, stream_seq, at, body"}[table]
    return connection.execute(f'SELECT {columns} FROM "table".{table} ORDER BY {key}').fetchall()


async def test_the_migration_moves_every_archived_row_into_the_month_its_game_began(fresh_database: str) -> None:
    migrate_table(fresh_database, "0002")
    eve = datetime(2026, 10, 31, 23, 59, 50, tzinfo=UTC)  # a game across the end of October, ended
    crossing = [envelope("crossing", 1, eve, EventType.GAME_STARTED),
                envelope("crossing", 2, eve + timedelta(seconds=5)),
                envelope("crossing", 3, eve + timedelta(seconds=20), EventType.GAME_ENDED)]
    running = [envelope("running", 1, datetime(2026, 12, 2, 9, tzinfo=UTC), EventType.GAME_STARTED),
               envelope("running", 2, datetime(2026, 12, 2, 9, 1, tzinfo=UTC))]
    # Team-log entries: one of the crossing game in November, and those of a game whose log the archive had
    # not stored yet (no row in archived_games: the two consumers run apart).
    crossing_team = envelope("crossing", 1, eve + timedelta(seconds=15), data={"team": 0})
    early = [envelope("early", n, datetime(2026, 9, 15, 10, n, tzinfo=UTC), data={"team": 1}) for n in (1, 2)]
    with psycopg.connect(fresh_database) as connection:
        for seq, event in enumerate([*crossing, *running], start=100):
            connection.execute('INSERT INTO "table".events (game_id, n, stream_seq, type, at, body) '
                               "VALUES (%s, %s, %s, %s, %s, %s)",
                               (event.game_id, event.n, seq, event.type, event.at, event.encode().decode()))
        for seq, event in enumerate([crossing_team, *early], start=200):
            connection.execute('INSERT INTO "table".team_events (game_id, team, n, stream_seq, at, body) '
                               "VALUES (%s, %s, %s, %s, %s, %s)", (event.game_id, event.data["team"], event.n, seq,
                                                                   event.at, event.encode().decode()))
        connection.execute(
            'INSERT INTO "table".archived_games (game_id, rules, started_at, ended_at, last_n) VALUES '
            "('crossing', 'speedmosaik@7', %s, %s, 3), ('running', 'speedmosaik@7', %s, NULL, 2)",
            (crossing[0].at, crossing[-1].at, running[0].at))
        events_before = rows_of(connection, "events", "game_id, n")
        team_before = rows_of(connection, "team_events", "game_id, team, n")

    migrate_table(fresh_database, "head")

    with psycopg.connect(fresh_database) as connection:
        assert rows_of(connection, "events", "game_id, n") == events_before
        assert rows_of(connection, "team_events", "game_id, team, n") == team_before
        placed = connection.execute('SELECT tableoid::regclass::text, game_id, n FROM "table".events '
                                    "ORDER BY game_id, n").fetchall()
        assert placed == [('"table".events_2026_10', "crossing", n) for n in (1, 2, 3)] + [
            ('"table".events_2026_12', "running", n) for n in (1, 2)]
        placed = connection.execute('SELECT tableoid::regclass::text, game_id, n FROM "table".team_events '
                                    "ORDER BY game_id, n").fetchall()
        assert placed == [('"table".team_events_2026_10', "crossing", 1),
                          ('"table".team_events_2026_09', "early", 1), ('"table".team_events_2026_09', "early", 2)]
        catalog = connection.execute('SELECT game_id, month, last_n, ended_at IS NOT NULL FROM "table".archived_games '
                                     "ORDER BY game_id").fetchall()
        assert catalog == [("crossing", date(2026, 10, 1), 3, True), ("early", date(2026, 9, 1), 0, False),
                           ("running", date(2026, 12, 1), 2, False)]
        partitions = {name for (name,) in connection.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            """WHERE i.inhparent = '"table".events'::regclass""")}
        current = month_of(datetime.now(UTC))
        assert partitions == {f"events_{month:%Y_%m}" for month in (
            date(2026, 9, 1), date(2026, 10, 1), date(2026, 12, 1), current, add_months(current, 1),
            add_months(current, 2))}
        # (game_id, n) is still archived once: a second copy of an event is refused.
        with pytest.raises(psycopg.errors.UniqueViolation):
            connection.execute('INSERT INTO "table".events SELECT * FROM "table".events WHERE game_id = \'running\'')

    engine = create_engine(Settings(database_url=fresh_database))
    try:  # the archive reads the moved games back as stored, and stores on into their months
        assert [stored.event for stored in await archived_events(engine, "crossing")] == crossing
        assert [stored.event for stored in await archived_team_events(engine, "early")] == early
        late = envelope("running", 3, datetime(2027, 1, 2, tzinfo=UTC))
        await store_events(engine, [event_row(late, 300)])
        assert [stored.event for stored in await archived_events(engine, "running")] == [*running, late]
    finally:
        await engine.dispose()

    # And back: one table each again, with every row.
    migrate_table(fresh_database, "0002", down=True)
    with psycopg.connect(fresh_database) as connection:
        assert rows_of(connection, "events", "game_id, n") == sorted(
            [*events_before, ("running", 3, 300, late.type, datetime(2027, 1, 2, tzinfo=UTC), late.encode().decode())])
        assert rows_of(connection, "team_events", "game_id, team, n") == team_before


# ---- storing into months --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def months_settings(infra: Infrastructure) -> Settings:
    return infra.settings(archive_sweep_seconds=0.2)


@pytest.fixture(scope="module")
async def engine(months_settings: Settings) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(months_settings)
    yield engine
    await engine.dispose()


async def partitions_holding(engine: AsyncEngine, table: str, game_id: str) -> list[tuple[str, int]]:
    async with engine.connect() as connection:
        rows = await connection.execute(text(
            f'SELECT tableoid::regclass::text, n FROM "table".{table} WHERE game_id = :id ORDER BY n'), {"id": game_id})
        return [(str(name), int(n)) for name, n in rows]


async def test_a_game_is_archived_whole_into_the_month_it_began_and_once_however_often_it_comes(
        engine: AsyncEngine) -> None:
    game_id = uuid.uuid4().hex
    eve = datetime(2025, 1, 31, 23, 59, 58, tzinfo=UTC)  # a month without partitions yet: the store makes them
    log = [envelope(game_id, 1, eve, EventType.GAME_STARTED), envelope(game_id, 2, eve + timedelta(seconds=1)),
           envelope(game_id, 3, eve + timedelta(seconds=3)),
           envelope(game_id, 4, eve + timedelta(seconds=4), EventType.GAME_ENDED)]
    rows = [event_row(event, 5000 + event.n) for event in log]
    await store_events(engine, rows[:2])
    await store_events(engine, rows[2:])  # in February, in the game's month all the same
    await store_team_events(engine, [team_row(envelope(game_id, 1, eve + timedelta(seconds=2), data={"team": 0}),
                                              6001)])
    for _ in range(2):  # redelivered: a crash between commit and ack, a consumer recreated from the start
        await store_events(engine, rows)
        await store_team_events(engine, [team_row(envelope(game_id, 1, eve + timedelta(seconds=2),
                                                           data={"team": 0}), 6001)])
    assert await partitions_holding(engine, "events", game_id) == [('"table".events_2025_01', n) for n in range(1, 5)]
    assert await partitions_holding(engine, "team_events", game_id) == [('"table".team_events_2025_01', 1)]
    assert [stored.event for stored in await archived_events(engine, game_id)] == log
    async with engine.connect() as connection:
        game = (await connection.execute(text(
            'SELECT month, last_n, ended_at FROM "table".archived_games WHERE game_id = :id'), {"id": game_id})).one()
    assert tuple(game) == (date(2025, 1, 1), 4, eve + timedelta(seconds=4))


async def test_the_archive_role_makes_the_coming_months_partitions_at_its_start(
        months_settings: Settings, fresh_database: str) -> None:
    upgrade_service("table", fresh_database)
    settings = months_settings.model_copy(update={"database_url": fresh_database, "table_roles": "archive"})
    clock = ShiftedClock()
    clock.advance(days=100)  # a quarter on: the migration's months are behind, the role's own are needed
    coming = month_of(clock.now())
    engine = create_engine(settings)
    try:
        async with running_app(create_app(settings, clock=clock)):
            for _ in range(100):
                async with engine.connect() as connection:
                    attached = await attached_months(connection)
                    team_attached = await attached_months(connection, "team_events")
                if {coming, add_months(coming, 1), add_months(coming, 2)} <= attached & team_attached:
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError(f"no partitions for {coming} and the two months after it: {sorted(attached)}")
            assert metrics.ARCHIVE_MONTHS_AHEAD._value.get() == 2
    finally:
        await engine.dispose()


async def test_a_month_within_the_retention_or_with_a_game_not_yet_purged_is_not_detached(
        engine: AsyncEngine, infra: Infrastructure, capsys: pytest.CaptureFixture[str]) -> None:
    now = datetime.now(UTC)
    assert await run_speed(["archive", "detach", f"{month_of(now):%Y-%m}", "--database-url", infra.database_url]) == 1
    assert "Aufbewahrungsfrist" in capsys.readouterr().err
    running = uuid.uuid4().hex  # an old game still running (or not wholly archived): never purged so far
    await store_events(engine, [event_row(envelope(running, 1, datetime(2024, 6, 3, tzinfo=UTC),
                                                   EventType.GAME_STARTED), 7001)])
    with pytest.raises(MonthRefused, match="1 Partien"):
        await detach_month(engine, date(2024, 6, 1), now, retention_months=12)
    assert await partitions_holding(engine, "events", running) == [('"table".events_2024_06', 1)]


async def run_speed(argv: list[str]) -> int:
    """Run the `speed` command as an operator would (in a thread: it runs its own event loop)."""
    return await asyncio.to_thread(speed, argv)


# ---- detaching a month -------------------------------------------------------------------------------------
def auth(identity: Identity) -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token(TEST_AUTH_SECRET, identity)}"}


OPERATOR = {"Authorization": f"Bearer {issue_operator_token(TEST_AUTH_SECRET, 'archive-test', hours=1)}"}


async def test_a_detached_months_games_answer_410_and_their_exports_still_audit(
        months_settings: Settings, fresh_database: str, nc: NatsClient, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    # A database of its own: the month detached is this month (a year on), which other tests still write.
    upgrade_service("table", fresh_database)
    settings = months_settings.model_copy(update={"database_url": fresh_database})
    clock = ShiftedClock()
    exports: dict[str, Path] = {}
    engine = create_engine(settings)
    try:
        async with running_app(create_app(settings, clock=clock)) as table, running_app(create_bot_app(settings)):
            game_id = str((await request(nc, TABLE_START, {"game": "speedkoi", "seats": [
                {"kind": "human", "player_id": ANNA.player_id, "name": "Anna"}, {"kind": "bot", "level": "easy"}]}))[
                "game_id"])
            assert (await table.post(f"/games/{game_id}/leave", headers=auth(ANNA))).status_code == 200
            for _ in range(1200):  # the computer plays on for Anna, to the end
                if (await table.get(f"/games/{game_id}")).json()["status"] == "ended":
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the game did not end")
            await consumer_is_done(nc.jetstream(), GAMES_STREAM, TABLE_ARCHIVE_DURABLE, timeout=20)
            clock.advance(hours=2)  # past the grace period: purged from the stream, read from the archive
            for _ in range(200):
                async with engine.connect() as connection:
                    if (await connection.execute(text('SELECT purged_at FROM "table".archived_games '
                                                      "WHERE game_id = :id"), {"id": game_id})).scalar_one():
                        break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("the game was not purged")
            # While the month is online its players and operators take the exports (the proof kept).
            for who, headers in (("operator", OPERATOR), ("anna", auth(ANNA))):
                answer = await table.get(f"/games/{game_id}/export", headers=headers)
                assert answer.status_code == 200, answer.text
                exports[who] = tmp_path / f"{who}.json"
                exports[who].write_bytes(answer.content)
        month = month_of(datetime.now(UTC))
        logged = len(json.loads(exports["operator"].read_text())["events"])
        assert await partitions_holding(engine, "events", game_id) == [
            (f'"table".events_{month:%Y_%m}', n) for n in range(1, logged + 1)]

        # Thirteen months on, the month is past the retention (12): the operator detaches it.
        year_on = datetime.now(UTC) + timedelta(days=400)
        assert await detach_month(engine, month, year_on, retention_months=12) == [
            f"events_{month:%Y_%m}", f"team_events_{month:%Y_%m}"]
        assert await run_speed(["archive", "months", "--database-url", fresh_database]) == 0
        listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith(f"{month:%Y-%m}")]
        assert len(listed) == 1 and listed[0].split()[1:4] == ["abgehängt", "1", "0"], listed  # games, on the stream

        async with running_app(create_app(settings, clock=clock)) as table:  # a replica starting afresh
            for path, headers in (("", {}), ("/view", auth(ANNA)), ("/events", {}), ("/audit", {}),
                                  ("/replay?n=1", auth(ANNA)), ("/export", OPERATOR), ("/export", auth(ANNA))):
                answer = await table.get(f"/games/{game_id}{path}", headers=headers)
                assert answer.status_code == 410, (path, answer.text)
                assert answer.json()["code"] == "game_detached"
                assert "Aufbewahrungsfrist" in answer.json()["detail"] and "Export" in answer.json()["detail"]
            with pytest.raises(CommandRefused) as refused:  # its id stays taken
                await request(nc, TABLE_START, {"game": "speedkoi", "game_id": game_id, "seats": [
                    {"kind": "human", "player_id": ANNA.player_id, "name": "Anna"}, {"kind": "bot", "level": "easy"}]})
            assert refused.value.status == 409
            # Every export taken before still audits, with nothing but the file.
            for export in exports.values():
                assert await run_speed(["audit", str(export)]) == 0, capsys.readouterr()
            # Restored (its tables attached again, as from a dump), the game answers as before.
            assert await run_speed(["archive", "attach", f"{month:%Y-%m}", "--database-url", fresh_database]) == 0
            audit = (await table.get(f"/games/{game_id}/audit")).json()
            assert audit["chain_ok"] and audit["outcome_matches"], audit
    finally:
        await engine.dispose()
