"""The archive's months: `"table".events` and `"table".team_events` are partitioned by calendar month
(docs/archive.md, "Months"), one partition per month and table (`events_2026_12`), no default partition.

Who creates a month's partitions: the archive role, at its start and then daily, for the current month and
MONTHS_AHEAD months after it (`keep_months_ahead`); and the archive's store itself, before it writes a game of a
month this process has not yet seen attached (`AttachedMonths`), so a store never fails for a missing month.
Who detaches one: an operator, with `speed archive detach YYYY-MM` (`detach_month`), once the month is past the
retention and every game of it is purged from the stream; its games then answer 410 (`GameDetached`), and their
exports stay the proof.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from libs.platform.clock import clock_of
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused
from libs.platform.service import Runtime
from services.table import metrics
from services.table.archive_models import SCHEMA

PARTITIONED = ("events", "team_events")
"""The archive's tables partitioned by month; `archived_games` (one row a game, the catalog) is not."""
MONTHS_AHEAD = 2
"""Months after the current one whose partitions the archive role keeps ready."""
KEEP_AHEAD_EVERY = 86_400.0
"""Seconds between two checks of the months ahead (the store creates a missing month anyway)."""
_LOCK = int.from_bytes(hashlib.sha256(b"speed-archive-months").digest()[:8], "big", signed=True)
"""Advisory lock key: replicas creating the same month take turns (a second CREATE would fail, not wait)."""


class GameDetached(CommandRefused):
    """The archive knew the game, but its month was detached (past the retention): its log is no longer online.
    410: asking again will not help; the game's export, taken while it was online, is its proof."""

    def __init__(self, game_id: str, month: date) -> None:
        super().__init__(410, f"Die Partie {game_id} ({month:%m/%Y}) ist älter als die Aufbewahrungsfrist des "
                              "Archivs und nicht mehr abrufbar. Ein Export der Partie bleibt ihr Beleg: "
                              "„speed audit“ prüft ihn ohne den Tisch.", "game_detached")


class MonthRefused(Exception):
    """An operator's request about a month that cannot be done as asked; the reason is what the operator reads."""


def month_of(moment: datetime) -> date:
    """The first day of `moment`'s month in UTC: the archive month of a game first archived at `moment`."""
    return moment.astimezone(UTC).date().replace(day=1)


def add_months(month: date, count: int) -> date:
    """The first day of the month `count` months after (before, if negative) `month`'s."""
    index = month.year * 12 + month.month - 1 + count
    return date(index // 12, index % 12 + 1, 1)


def partition_name(table: str, month: date) -> str:
    """The partition of `table` holding `month`, e.g. `events_2026_12`."""
    return f"{table}_{month:%Y_%m}"


async def attached_months(connection: AsyncConnection, table: str = "events") -> set[date]:
    """The months `table` has a partition attached for."""
    rows = await connection.execute(text(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        f"WHERE i.inhparent = '\"{SCHEMA}\".{table}'::regclass"))
    return {datetime.strptime(name.removeprefix(f"{table}_"), "%Y_%m").date() for (name,) in rows}


async def _table_exists(connection: AsyncConnection, name: str) -> bool:
    found = await connection.execute(text("SELECT to_regclass(:name)"), {"name": f'"{SCHEMA}".{name}'})
    return found.scalar_one() is not None


async def ensure_months(engine: AsyncEngine, months: Iterable[date]) -> set[date]:
    """Create the partitions of both archive tables for `months` that are missing; return the months attached
    afterwards. A month whose partition exists detached (an operator's: `detach_month`) is left so: the insert
    that needs it fails and says which partition is missing."""
    wanted = {month.replace(day=1) for month in months}
    async with engine.begin() as connection:
        await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK})
        attached = {table: await attached_months(connection, table) for table in PARTITIONED}
        for table in PARTITIONED:
            for month in sorted(wanted - attached[table]):
                name = partition_name(table, month)
                if await _table_exists(connection, name):
                    get_logger(partition=name).error("archive_month_detached")
                    continue
                await connection.execute(text(
                    f'CREATE TABLE "{SCHEMA}".{name} PARTITION OF "{SCHEMA}".{table} '
                    f"FOR VALUES FROM ('{month.isoformat()}') TO ('{add_months(month, 1).isoformat()}')"))
                attached[table].add(month)
        return attached["events"] & attached["team_events"]


@dataclass
class AttachedMonths:
    """The months this process knows to be attached, per database: the store asks `ensure_months` only for a
    month it has not seen (once a month per process), not per batch."""

    known: dict[str, set[date]] = field(default_factory=dict)

    async def ensure(self, engine: AsyncEngine, months: Iterable[date]) -> None:
        """Make sure both tables have partitions for `months` (created if missing)."""
        key = str(engine.url)
        missing = set(months) - self.known.get(key, set())
        if missing:
            self.known[key] = self.known.get(key, set()) | (await ensure_months(engine, missing) & missing)

    def forget(self, engine: AsyncEngine) -> None:
        """Forget what is known of `engine`'s months (after a failed store: ask the database again)."""
        self.known.pop(str(engine.url), None)


ATTACHED = AttachedMonths()


async def keep_months_ahead(runtime: Runtime) -> None:
    """Worker loop of the archive role: at its start and every KEEP_AHEAD_EVERY seconds, create the partitions
    of the current month and MONTHS_AHEAD months after it; until the service stops."""
    engine = runtime.engine
    assert engine is not None
    log = get_logger(worker="archive_months")
    while not runtime.stopping.is_set():
        current = month_of(clock_of(runtime).now())
        try:
            attached = await ensure_months(engine, [add_months(current, ahead) for ahead in range(MONTHS_AHEAD + 1)])
            metrics.ARCHIVE_MONTHS_AHEAD.set(len({month for month in attached if month > current}))
        except Exception:
            log.exception("archive_months_failed")
        if not await runtime.pause(KEEP_AHEAD_EVERY):
            return


@dataclass(frozen=True)
class MonthSummary:
    """One month of the archive as an operator sees it: attached or not, and what it holds."""

    month: date
    attached: bool
    games: int
    unpurged: int
    bytes: int


async def month_summaries(engine: AsyncEngine) -> list[MonthSummary]:
    """Every month that has partitions (attached or detached) or games, oldest first."""
    async with engine.connect() as connection:
        attached = await attached_months(connection)
        counts = {month: (int(games), int(unpurged)) for month, games, unpurged in await connection.execute(text(
            f'SELECT month, count(*), count(*) FILTER (WHERE purged_at IS NULL) FROM "{SCHEMA}".archived_games '
            "GROUP BY month"))}
        sizes: dict[date, int] = {}
        for table in PARTITIONED:
            for name, size in await connection.execute(text(
                    "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n "
                    "ON n.oid = c.relnamespace WHERE n.nspname = :schema AND c.relkind = 'r' "
                    "AND c.relname ~ :pattern"), {"schema": SCHEMA, "pattern": f"^{table}_[0-9]{{4}}_[0-9]{{2}}$"}):
                month = datetime.strptime(name.removeprefix(f"{table}_"), "%Y_%m").date()
                sizes[month] = sizes.get(month, 0) + int(size)
    return [MonthSummary(month=month, attached=month in attached, games=counts.get(month, (0, 0))[0],
                         unpurged=counts.get(month, (0, 0))[1], bytes=sizes.get(month, 0))
            for month in sorted(set(sizes) | set(counts))]


async def detach_month(engine: AsyncEngine, month: date, now: datetime, retention_months: int) -> list[str]:
    """Detach `month`'s partitions of both archive tables (DETACH ... CONCURRENTLY: readers and the archive's
    writes go on meanwhile) and return their names, now tables of their own beside the archive.

    Refused (MonthRefused) while the month is within the retention (the current month and `retention_months`
    before it) or holds a game not yet purged from the stream (running, or not wholly archived): its rows may
    still be written, and its log may still be needed from the archive.
    """
    month = month.replace(day=1)
    newest_detachable = add_months(month_of(now), -retention_months - 1)
    if month > newest_detachable:
        raise MonthRefused(f"{month:%Y-%m} liegt in der Aufbewahrungsfrist ({retention_months} Monate); "
                           f"frühestens {newest_detachable:%Y-%m} lässt sich abhängen.")
    async with engine.connect() as connection:
        if month not in await attached_months(connection):
            raise MonthRefused(f"{month:%Y-%m} ist nicht angehängt.")
        unpurged = (await connection.execute(text(
            f'SELECT count(*) FROM "{SCHEMA}".archived_games WHERE month = :month AND purged_at IS NULL'),
            {"month": month})).scalar_one()
    if unpurged:
        raise MonthRefused(f"{month:%Y-%m} hat {unpurged} Partien, die noch nicht aus dem Strom GAMES entfernt "
                           "sind (laufend oder nicht ganz archiviert); erst danach lässt sich der Monat abhängen.")
    names = [partition_name(table, month) for table in PARTITIONED]
    async with engine.connect() as connection:
        autocommit = await connection.execution_options(isolation_level="AUTOCOMMIT")
        for table, name in zip(PARTITIONED, names, strict=True):
            await autocommit.execute(text(
                f'ALTER TABLE "{SCHEMA}".{table} DETACH PARTITION "{SCHEMA}".{name} CONCURRENTLY'))
    return names


async def attach_month(engine: AsyncEngine, month: date) -> list[str]:
    """Attach `month`'s detached partitions (kept, or restored from a dump) again: its games answer as before."""
    month = month.replace(day=1)
    names = []
    async with engine.begin() as connection:
        for table in PARTITIONED:
            name = partition_name(table, month)
            if month in await attached_months(connection, table):
                continue
            if not await _table_exists(connection, name):
                raise MonthRefused(f'Die Tabelle "{SCHEMA}".{name} gibt es nicht (erst aus der Sicherung '
                                   "zurückspielen).")
            await connection.execute(text(
                f'ALTER TABLE "{SCHEMA}".{table} ATTACH PARTITION "{SCHEMA}".{name} '
                f"FOR VALUES FROM ('{month.isoformat()}') TO ('{add_months(month, 1).isoformat()}')"))
            names.append(name)
    return names
