"""The archive: every event of every game also in PostgreSQL, and a finished game's subject purged from GAMES.

Three loops (four with the team logs') run in the table's `archive` role (docs/archive.md):

- `archive_events`: a durable pull consumer (`table-archive`) on the GAMES stream copies each event, in
  batches, into "table".events with INSERT ... ON CONFLICT (game_id, n, month) DO NOTHING, after upserting the
  game's row in "table".archived_games (which fixes the game's month once), in one transaction; only after the
  commit does it ack the batch. A redelivered event (a crash between commit and ack, a second replica) inserts
  nothing: every event is in the archive exactly once.
- `purge_archived`: a periodic sweep over archived_games purges the subject of every game that ended more
  than ARCHIVE_PURGE_GRACE_SECONDS ago and whose events 1..last_n are all archived, then notes purged_at.
  The sweep is its own memory: a restart simply sweeps again.
- `keep_months_ahead` (services/table/archive_months.py): at its start and daily, the partitions of the current
  month and the next ones (the archive's tables are partitioned by month).

The first two use their own NATS connection as the `archive` user (libs/platform/nats_permissions): the one user
that may purge GAMES, and that cannot append to it. The table's own user (its API pods) may not purge.

Reads of a purged game come from `Archive.events` (the stored bytes, with their stream sequences), so
views, logs and audits answer as they did while the events were on the stream.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeout
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from sqlalchemy import (
    BigInteger,
    Column,
    Date,
    DateTime,
    Integer,
    MetaData,
    Table,
    Text,
    bindparam,
    func,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.schema import CreateTable

from libs.platform.clock import clock_of
from libs.platform.consumers import FETCH_TIMEOUT
from libs.platform.contracts.subjects import GAME_EVENTS, GAMES_STREAM, TABLE_ARCHIVE_DURABLE, game_subjects
from libs.platform.database import table_of
from libs.platform.envelope import Event, EventType, parse_stamp
from libs.platform.logging import get_logger
from libs.platform.nats_client import stream_sequence
from libs.platform.nats_permissions import ARCHIVE_USER
from libs.platform.service import Runtime, connect_nats
from libs.platform.settings import Settings
from services.table import metrics
from services.table.archive_batches import store_and_settle
from services.table.archive_models import ArchivedEvent, ArchivedGame
from services.table.archive_months import ATTACHED, GameDetached, attached_months, keep_months_ahead, month_of
from services.table.event_store import StoredEvent
from services.table.team_archive import (
    archive_team_events,
    archived_team_events,
    may_have_team_logs,
    team_logs_archived,
)

ARCHIVE_BATCH = 500
"""Events one fetch of the archive consumer takes at most, stored in one transaction."""
ARCHIVE_LINGER = 0.25
"""Seconds the archive waits after a batch smaller than ARCHIVE_BATCH, so a quiet stream is stored a few
hundred events per transaction rather than one or two (each transaction costs ~1 ms of CPU whatever its
size); nothing waits on the archive but the purge, which waits a grace period anyway."""
PURGE_BATCH = 200
"""Games one sweep purges at most (the sweep runs again at once while there are more)."""

_EVENTS = table_of(ArchivedEvent)
_GAMES = table_of(ArchivedGame)


# ---- reading -----------------------------------------------------------------------------------------
# Built once: every game start asks `_HOLDS` (is the id taken by a purged game?). A game's events are read
# with its month (from the catalog `archived_games`), so PostgreSQL reads one partition's index only.
_MONTH_OF = select(_GAMES.c.month).where(_GAMES.c.game_id == bindparam("game_id"))
_EVENTS_OF = (select(_EVENTS.c.stream_seq, _EVENTS.c.body)
              .where(_EVENTS.c.game_id == bindparam("game_id"), _EVENTS.c.month == bindparam("month"))
              .order_by(_EVENTS.c.n))
_HOLDS = select(_GAMES.c.game_id).where(_GAMES.c.game_id == bindparam("game_id"))


async def archived_events(engine: AsyncEngine, game_id: str) -> list[StoredEvent]:
    """Return the game's archived events, oldest first, each with the stream sequence it had on GAMES
    (empty if the archive holds none of its events). Raise GameDetached when the game's month was detached
    (docs/archive.md, "Retention"): the archive knew the game, its events are no longer online."""
    async with engine.connect() as connection:
        month = (await connection.execute(_MONTH_OF, {"game_id": game_id})).scalar_one_or_none()
        if month is None:
            return []
        rows = (await connection.execute(_EVENTS_OF, {"game_id": game_id, "month": month})).all()
        if not rows and month not in await attached_months(connection):
            raise GameDetached(game_id, month)
        return [StoredEvent(seq=int(seq), event=Event.decode(body)) for seq, body in rows]


@dataclass(frozen=True)
class Archive:
    """The table's read access to the archive (None engine: a table without a database reads no archive)."""

    engine: AsyncEngine | None

    async def events(self, game_id: str) -> list[StoredEvent]:
        """Return the game's archived events (`archived_events`; GameDetached for a detached month's game);
        empty without a database."""
        if self.engine is None:
            return []
        started = time.perf_counter()
        try:
            return await archived_events(self.engine, game_id)
        finally:
            metrics.ARCHIVE_READ_SECONDS.observe(time.perf_counter() - started)

    async def team_events(self, game_id: str) -> list[StoredEvent]:
        """Return every archived entry of the game's team logs (side moves); empty without a database."""
        if self.engine is None:
            return []
        return await archived_team_events(self.engine, game_id)

    async def holds(self, game_id: str) -> bool:
        """True if the archive knows the game (so its id is taken, even once purged from the stream)."""
        if self.engine is None:
            return False
        async with self.engine.connect() as connection:
            found = await connection.execute(_HOLDS, {"game_id": game_id})
            return found.first() is not None


# ---- the worker ----------------------------------------------------------------------------------------
def archive_login(settings: Settings) -> tuple[str | None, str | None]:
    """The NATS user and password the archive connects with: `archive` with ARCHIVE_NATS_PASSWORD (production),
    else the `archive` entry of NATS_CREDENTIALS (`make run`, tests), else the service's own login (a server
    without users)."""
    if settings.archive_nats_password:
        return ARCHIVE_USER, settings.archive_nats_password
    return settings.nats_login(ARCHIVE_USER)


async def connect_archive(settings: Settings) -> NatsClient:
    """Connect to NATS as the archive's user (reconnecting for ever, like every service connection)."""
    return await connect_nats(settings, "table-archive", login=archive_login(settings))


async def archive_and_purge(runtime: Runtime) -> None:
    """Worker of the `archive` role: copy every event into the archive and purge archived, ended games."""
    assert runtime.engine is not None, "the archive role needs the table's database"
    nc = await connect_archive(runtime.settings)
    try:
        await asyncio.gather(archive_events(runtime, nc), archive_team_events(runtime, nc), purge_archived(runtime, nc),
                             keep_months_ahead(runtime))
    finally:
        try:
            await nc.drain()
        except Exception:
            await nc.close()


async def archive_events(runtime: Runtime, nc: NatsClient) -> None:
    """Copy every event of the GAMES stream into the archive, exactly once, until the service stops.

    Each fetched batch is stored in one transaction and acked only after its commit; a failed store naks
    the batch (redelivered after a pause). Redelivered events insert nothing (ON CONFLICT DO NOTHING).
    """
    engine = runtime.engine
    assert engine is not None
    log = get_logger(consumer=TABLE_ARCHIVE_DURABLE)
    js = nc.jetstream()
    config = ConsumerConfig(
        durable_name=TABLE_ARCHIVE_DURABLE, ack_policy=AckPolicy.EXPLICIT, deliver_policy=DeliverPolicy.ALL,
        ack_wait=60.0, max_deliver=-1,  # never give an event up: a game missing one is never purged
        filter_subject=GAME_EVENTS, max_ack_pending=ARCHIVE_BATCH * 4,
    )
    subscription = await js.pull_subscribe(GAME_EVENTS, durable=TABLE_ARCHIVE_DURABLE, stream=GAMES_STREAM,
                                           config=config)
    try:
        while not runtime.stopping.is_set():
            try:
                messages = await subscription.fetch(ARCHIVE_BATCH, timeout=FETCH_TIMEOUT)
            except (NatsTimeout, TimeoutError):
                metrics.ARCHIVE_PENDING.set(0)
                continue
            if not messages:
                continue
            started = time.perf_counter()
            rows, unreadable = _rows_of(messages)
            stored = await store_and_settle(
                messages, unreadable, store_events(engine, rows), runtime, log, "archive_store_failed",
                events=len(rows))
            if not stored:
                continue
            metrics.ARCHIVED_EVENTS.inc(len(rows))
            metrics.ARCHIVE_BATCH_SECONDS.observe(time.perf_counter() - started)
            metrics.ARCHIVE_PENDING.set(messages[-1].metadata.num_pending or 0)
            if len(messages) < ARCHIVE_BATCH:
                await runtime.pause(ARCHIVE_LINGER)
    finally:
        try:
            await subscription.unsubscribe()
        except Exception:  # the connection may be closing
            pass


def _rows_of(messages: Sequence[Msg]) -> tuple[list[dict[str, Any]], list[Msg]]:
    """The archive rows of a fetched batch (sorted by game and number, so concurrent batches lock rows in
    the same order), and the messages that hold no readable event."""
    rows: list[dict[str, Any]] = []
    unreadable: list[Msg] = []
    for msg in messages:
        try:
            event = Event.decode(msg.data)
            rows.append({"game_id": event.game_id, "n": event.n, "stream_seq": stream_sequence(msg),
                         "type": event.type, "at": parse_stamp(event.at), "body": msg.data.decode(),
                         "rules": event.rules})
        except Exception:
            get_logger(subject=msg.subject).error("archive_unreadable_event")
            unreadable.append(msg)
    rows.sort(key=lambda row: (row["game_id"], row["n"]))
    return rows, unreadable


# A batch is copied (COPY, binary) into two temporary tables of the session and moved from there with one
# INSERT ... SELECT each: the same conflict handling as row-by-row inserts, at a fraction of the cost. A
# parameter list (executemany) made psycopg send each row with its own socket write and wait, ~2,800 system
# calls a second at 200 games (docs/benchmarks.md, "the archive's `COPY`").
_SCRATCH = MetaData()
_PG_TYPES = {Text: "text", Integer: "int4", BigInteger: "int8", DateTime: "timestamptz", Date: "date"}
"""The name a binary COPY gives each column type of the archive's tables."""


def _incoming(table: Table, *leave_out: str) -> Table:
    """A temporary table of the session with `table`'s columns (but `leave_out`), emptied at every commit."""
    return Table(f"archive_incoming_{table.name}", _SCRATCH,
                 *(Column(column.name, column.type) for column in table.c if column.name not in leave_out),
                 prefixes=["TEMPORARY"], postgresql_on_commit="DELETE ROWS")


_INCOMING_EVENTS = _incoming(_EVENTS, "month")
_INCOMING_GAMES = _incoming(_GAMES, "purged_at")
_CREATE_INCOMING = [CreateTable(table, if_not_exists=True) for table in (_INCOMING_EVENTS, _INCOMING_GAMES)]
# One statement stores a batch: the games' rows are upserted first (in game order, so concurrent batches lock
# them in the same order), and each returns its month: the month a game got when the archive first stored
# anything of it, never updated. Every event of the batch takes its game's month from there, so all rows of a
# game lie in one partition and a redelivered event meets its first copy in it (the conflict target must hold
# the partition key). RETURNING hands the months over without a second look-up per event in the catalog.
_GAME_ROWS = insert(_GAMES).from_select(
    list(_INCOMING_GAMES.c.keys()), select(*_INCOMING_GAMES.c).order_by(_INCOMING_GAMES.c.game_id))
_MONTHS = _GAME_ROWS.on_conflict_do_update(index_elements=[_GAMES.c.game_id], set_={
    "started_at": func.least(_GAMES.c.started_at, _GAME_ROWS.excluded.started_at),
    "ended_at": func.coalesce(_GAMES.c.ended_at, _GAME_ROWS.excluded.ended_at),
    "last_n": func.greatest(_GAMES.c.last_n, _GAME_ROWS.excluded.last_n),
}).returning(_GAMES.c.game_id, _GAMES.c.month).cte("months")
_STORE = insert(_EVENTS).from_select(
    [*_INCOMING_EVENTS.c.keys(), "month"],
    select(*_INCOMING_EVENTS.c, _MONTHS.c.month)
    .join_from(_INCOMING_EVENTS, _MONTHS, _MONTHS.c.game_id == _INCOMING_EVENTS.c.game_id)
    .order_by(_INCOMING_EVENTS.c.game_id, _INCOMING_EVENTS.c.n),
).on_conflict_do_nothing(index_elements=[_EVENTS.c.game_id, _EVENTS.c.n, _EVENTS.c.month]).add_cte(_MONTHS)


async def store_events(engine: AsyncEngine, rows: list[dict[str, Any]]) -> None:
    """Store events (rows of `_rows_of`) and their games' rows in one transaction; events already stored
    are left as they are, a game's row only grows (earliest start, highest n, its end once known). A game new
    to the archive gets the month of its earliest event here (its partitions created first if missing)."""
    if not rows:
        return
    games: dict[str, dict[str, Any]] = {}
    for row in rows:
        game = games.setdefault(row["game_id"], {"game_id": row["game_id"], "rules": row["rules"],
                                                 "started_at": row["at"], "ended_at": None, "last_n": 0})
        game["started_at"] = min(game["started_at"], row["at"])
        game["last_n"] = max(game["last_n"], row["n"])
        if row["type"] == EventType.GAME_ENDED:
            game["ended_at"] = row["at"]
    for game in games.values():
        game["month"] = month_of(game["started_at"])
    try:
        await ATTACHED.ensure(engine, {game["month"] for game in games.values()})
        await _store(engine, rows, games)
    except Exception:
        ATTACHED.forget(engine)  # a month detached or dropped meanwhile: ask the database again next time
        raise


async def _store(engine: AsyncEngine, rows: list[dict[str, Any]], games: dict[str, dict[str, Any]]) -> None:
    """The transaction of `store_events`: both batches copied in, then the games upserted and the events
    inserted by one statement."""
    async with engine.begin() as connection:
        for create in _CREATE_INCOMING:  # the session's own tables, emptied at every commit
            await connection.execute(create)
        driver = (await connection.get_raw_connection()).driver_connection
        if driver is None:
            raise RuntimeError("the archive's database connection is closed")
        async with driver.cursor() as cursor:
            await _copy(cursor, _INCOMING_EVENTS, rows)
            await _copy(cursor, _INCOMING_GAMES, games.values())
        await connection.execute(_STORE)


async def _copy(cursor: Any, table: Table, rows: Iterable[dict[str, Any]]) -> None:
    """Copy `rows` (dicts holding at least `table`'s columns) into `table` with one binary COPY."""
    columns = table.c.keys()
    async with cursor.copy(f"COPY {table.name} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types([_PG_TYPES[type(column.type)] for column in table.c])
        for row in rows:
            await copy.write_row(tuple(row[column] for column in columns))


async def purge_archived(runtime: Runtime, nc: NatsClient) -> None:
    """Sweep every ARCHIVE_SWEEP_SECONDS: purge the subjects of archived games that ended before the grace
    period, until the service stops."""
    log = get_logger(worker="archive_purge")
    js = nc.jetstream()
    while not runtime.stopping.is_set():
        try:
            purged = await purge_due(runtime, js)
        except Exception:
            log.exception("archive_purge_failed")
            purged = 0
        if purged < PURGE_BATCH and not await runtime.pause(runtime.settings.archive_sweep_seconds):
            return


async def purge_due(runtime: Runtime, js: Any) -> int:
    """Purge the GAMES subjects of up to PURGE_BATCH games that ended more than the grace period ago and whose
    every event 1..last_n (and every team-log entry) is in the archive; note purged_at for each. Return how many
    were purged.

    The rows are locked (SKIP LOCKED) while their subjects are purged, so several replicas sweep apart.
    """
    engine = runtime.engine
    assert engine is not None
    now = clock_of(runtime).now()
    cutoff = now - timedelta(seconds=runtime.settings.archive_purge_grace_seconds)
    async with engine.begin() as connection:
        # Complete: the archive holds last_n distinct events of the game (all in its month's partition, keyed
        # (game_id, n, month), n >= 1), so exactly 1..last_n; a game still missing one (on its way in) waits for
        # a later sweep.
        found = (await connection.execute(text(
            'SELECT g.game_id, g.rules FROM "table".archived_games g WHERE g.purged_at IS NULL '
            'AND g.ended_at IS NOT NULL AND g.ended_at < :cutoff AND g.last_n = (SELECT count(*) FROM "table".events e '
            "WHERE e.game_id = g.game_id AND e.month = g.month) ORDER BY g.ended_at LIMIT :limit "
            "FOR UPDATE OF g SKIP LOCKED"),
            {"cutoff": cutoff, "limit": PURGE_BATCH})).all()
        metrics.ARCHIVE_PURGE_DUE.set(len(found))
        # A game whose rules can have team logs waits, too, until every entry of them is archived.
        due = [game_id for game_id, rules in found
               if not may_have_team_logs(rules) or await team_logs_archived(js, connection, game_id)]
        for game_id in due:
            # The game's log and its team logs (game.<id>.team.<k>) together.
            await js.purge_stream(GAMES_STREAM, subject=game_subjects(game_id))
        if due:  # noted in the same transaction: a failed purge leaves every row of the batch as it was
            await connection.execute(_GAMES.update().where(_GAMES.c.game_id.in_(due)).values(purged_at=now))
    metrics.PURGED_GAMES.inc(len(due))
    return len(due)


