"""`speed rebuild leaderboard` and the archive's months (issue 36): a month detached past the retention is still
read while its tables are there, and once they are dropped (dumped) the rebuild refuses, naming the month and how
to attach it, instead of reporting the live lists as wrong.

Its own NATS server and its own database: the rebuild reads the whole GAMES stream and archive.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from libs.devservers.nats_server import NatsServer, create_platform_streams
from libs.platform.database import create_engine, session_factory, upgrade_all, upgrade_service
from libs.platform.envelope import Event, EventType, utc_stamp
from libs.platform.settings import Settings
from services.leaderboard.projection import project_finished_game, read_finished_game
from services.table.archive import store_events
from services.table.archive_months import detach_month
from tests.conftest import Infrastructure, new_database
from tests.leaderboard.conftest import bot, game_ended, human
from tools.speed.cli import main as speed
from tools.speed.rebuild_log import archived_ends

OLD, OLDER = date(2025, 1, 1), date(2025, 2, 1)


@dataclass(frozen=True)
class Archive:
    """The servers of a platform whose archive holds games of three months, projected by the live leaderboard."""

    database_url: str
    nats_url: str
    engine: AsyncEngine


@pytest.fixture
async def archive(infra: Infrastructure, settings: Settings, tmp_path: Path) -> AsyncIterator[Archive]:
    nats_server = NatsServer(tmp_path / "nats").start()
    with new_database(infra, "months") as database_url:
        engine = create_engine(settings.model_copy(update={"database_url": database_url}))
        try:
            await asyncio.to_thread(upgrade_all, database_url)
            await asyncio.to_thread(create_platform_streams, nats_server.url)
            yield Archive(database_url=database_url, nats_url=nats_server.url, engine=engine)
        finally:
            await engine.dispose()
            nats_server.stop()


def started(game_id: str, at: datetime) -> Event:
    return Event(game_id=game_id, n=1, type=EventType.GAME_STARTED, at=utc_stamp(at), actor="system",
                 rules="speedmosaik@1", data={"seats": 2}, hash="ef" * 32)


def archive_row(event: Event, seq: int) -> dict[str, Any]:
    """An archive row as the archive's consumer makes it (services/table/archive._rows_of)."""
    return {"game_id": event.game_id, "n": event.n, "stream_seq": seq, "type": event.type,
            "at": datetime.fromisoformat(event.at), "body": event.encode().decode(), "rules": event.rules}


async def play_months(archive: Archive, months: list[date]) -> list[Event]:
    """Archive one finished game a month (two in the first), project their ends into the live leaderboard, and
    mark the games purged from the stream as the archive's sweep does; return the ends."""
    anna, bert = human("Anna"), human("Bert")
    ends, rows = [], []
    for index, month in enumerate([months[0], *months]):
        begin = datetime(month.year, month.month, 10 + index, 18, tzinfo=UTC)
        game_id = uuid.uuid4().hex
        end = game_ended([anna if index % 2 else bert, bot("easy")], scores=[30, 20], places=[1, 2], points=[60, 35],
                         game_id=game_id, n=2, at=begin + timedelta(minutes=20))
        ends.append(end)
        rows += [archive_row(started(game_id, begin), 10 * index + 1), archive_row(end, 10 * index + 2)]
    await store_events(archive.engine, rows)
    sessions = session_factory(archive.engine)
    for end in ends:
        async with sessions() as session, session.begin():
            await project_finished_game(session, read_finished_game(end))
    async with archive.engine.begin() as connection:
        await connection.execute(text('UPDATE "table".archived_games SET purged_at = now()'))
    return ends


async def rebuild(archive: Archive, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run `speed rebuild leaderboard` as an operator (in a thread: it runs its own event loop)."""
    capsys.readouterr()
    status = await asyncio.to_thread(speed, ["rebuild", "leaderboard", "--database-url", archive.database_url,
                                             "--nats-url", archive.nats_url])
    out, err = capsys.readouterr()
    return status, out, err


async def test_a_detached_month_is_read_while_its_tables_are_there(
        archive: Archive, capsys: pytest.CaptureFixture[str]) -> None:
    today = datetime.now(UTC).date().replace(day=1)
    ends = await play_months(archive, [OLD, OLDER, today])
    assert await detach_month(archive.engine, OLD, datetime.now(UTC), retention_months=12) == [
        "events_2025_01", "team_events_2025_01"]

    status, out, err = await rebuild(archive, capsys)

    assert status == 0, out + err
    assert f"{len(ends)} Spielenden aus dem Log ({len(ends)} im Archiv, 0 nur im Strom GAMES)" in out
    assert "Hinweis: abgehängter Monat 2025-01 aus seiner Tabelle \"table\".events_2025_01 gelesen" in out
    assert out.splitlines()[-1] == "gleich"


async def test_a_month_whose_tables_were_dropped_stops_the_rebuild_with_its_name_and_how_to_attach_it(
        archive: Archive, capsys: pytest.CaptureFixture[str]) -> None:
    today = datetime.now(UTC).date().replace(day=1)
    await play_months(archive, [OLD, OLDER, today])
    for month in (OLD, OLDER):  # detached, dumped (pg_dump -t) and dropped, as docs/operations.md describes
        await detach_month(archive.engine, month, datetime.now(UTC), retention_months=12)
    async with archive.engine.begin() as connection:
        await connection.execute(text('DROP TABLE "table".events_2025_01, "table".team_events_2025_01'))

    status, out, err = await rebuild(archive, capsys)

    assert status == 2, out + err
    assert "verschieden" not in out and "gleich" not in out
    assert err.splitlines()[0] == (
        "Neubau nicht möglich: Der Monat 2025-01 des Archivs ist abgehängt und seine Tabelle \"table\".events_2025_01 "
        "gibt es nicht mehr (2 Partien). Der Neubau liest jeden Monat, sonst fehlten die Spielenden dieses Monats.")
    assert "speed archive attach 2025-01" in err
    assert "2025-02" not in err  # detached but still there: read


async def test_an_archive_not_kept_by_month_yet_is_read_as_one_table(infra: Infrastructure, settings: Settings) -> None:
    """Before the table's migration 0003 the archive is one table without months: nothing is detached."""
    with new_database(infra, "months") as database_url:
        await _read_an_archive_not_kept_by_month(settings, database_url)


async def _read_an_archive_not_kept_by_month(settings: Settings, database_url: str) -> None:
    engine = create_engine(settings.model_copy(update={"database_url": database_url}))
    try:
        await asyncio.to_thread(upgrade_service, "table", database_url, "0002")
        end = game_ended([human("Anna"), bot("easy")], scores=[3, 1], places=[1, 2], points=[30, 10], n=2)
        async with engine.begin() as connection:
            await connection.execute(text(
                'INSERT INTO "table".events (game_id, n, stream_seq, type, at, body) '
                "VALUES (:game_id, 2, 7, :type, now(), :body)"),
                {"game_id": end.game_id, "type": EventType.GAME_ENDED, "body": end.encode().decode()})
        archived = await archived_ends(engine)
        assert archived is not None
        stored, detached = archived
        assert ([item.event.game_id for item in stored], detached) == ([end.game_id], [])
    finally:
        await engine.dispose()
