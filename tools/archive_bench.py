"""`make bench`: the archive's write rate into PostgreSQL (docs/archive.md), measured without NATS.

A throwaway PostgreSQL is started and migrated; synthetic games (`--in-flight` at once, `--events-per-game` each,
bodies of about the size of a real move event) are stored through the archive's own `store_events` in the
archive consumer's batches of ARCHIVE_BATCH events, interleaved as the GAMES stream interleaves games. Measured:

- store: events per second (wall time), batch time p50 / p95, and CPU per event of this process and of the
  PostgreSQL server (all its processes, from /proc);
- again: the first quarter of the events stored a second time (a redelivered consumer: every row conflicts);
- read: a purged game's log read back (`archived_events`), mean and p95 over `--reads` random games.

With `--attached-months N` the archive first gets N months of partitions (as after N months of operation).
Then, in a database of its own: `--migration-events` events of the same games written at revision 0002 (one table)
and the time migration 0003 takes to move them into their months. Prints the figures and writes
`.bench/archive.json`. Measured, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import text

from libs.devservers.postgres_server import PostgresServer
from libs.platform.database import create_engine, upgrade_service
from libs.platform.envelope import Event, EventType, utc_stamp
from libs.platform.settings import Settings
from services.table import archive
from services.table.archive import ARCHIVE_BATCH, archived_events, store_events
from tools.bench import percentile

REPO_ROOT = Path(__file__).resolve().parent.parent
OUTPUT = REPO_ROOT / ".bench" / "archive.json"
BODY_BYTES = 450
"""Padding of each event's data: about a move event's stored size (~700 bytes with the envelope)."""
RULES = "speedmosaik@7"


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds so far of the processes `pids` (gone ones count nothing)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / tick


def server_pids(postmaster: int) -> list[int]:
    """The PostgreSQL server's processes: the postmaster and its children."""
    pids = [postmaster]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def stream_of(events: int, in_flight: int, per_game: int, began: datetime) -> list[dict[str, Any]]:
    """`events` archive rows (as `archive._rows_of` makes them) of games played `in_flight` at a time, in the
    order the GAMES stream holds them: one event of each running game in turn, a finished game replaced."""
    rows: list[dict[str, Any]] = []
    games = [(f"{slot:04d}{0:08d}", 0) for slot in range(in_flight)]
    filler = "x" * BODY_BYTES
    seq = 0
    while len(rows) < events:
        for slot, (game_id, n) in enumerate(games):
            n += 1
            seq += 1
            kind = (EventType.GAME_STARTED if n == 1 else EventType.GAME_ENDED if n == per_game
                    else EventType.MOVE_MADE)
            at = began + timedelta(milliseconds=seq)
            body = Event(game_id=game_id, n=n, type=kind, at=utc_stamp(at), actor="seat:0", rules=RULES,
                         data={"move": filler}, prev="0" * 64, hash="0" * 64).encode().decode()
            rows.append({"game_id": game_id, "n": n, "stream_seq": seq, "type": kind, "at": at, "body": body,
                         "rules": RULES})
            games[slot] = (f"{slot:04d}{int(game_id[4:]) + 1:08d}", 0) if n == per_game else (game_id, n)
            if len(rows) == events:
                break
    return rows


async def store_all(engine: Any, rows: list[dict[str, Any]], pids: list[int]) -> dict[str, float]:
    """Store `rows` in archive batches; the rate, batch times and CPU per event (this process, the server)."""
    batches = [sorted(rows[at:at + ARCHIVE_BATCH], key=lambda row: (row["game_id"], row["n"]))
               for at in range(0, len(rows), ARCHIVE_BATCH)]
    times: list[float] = []
    own, server, wall = time.process_time(), cpu_seconds(pids), time.perf_counter()
    for batch in batches:
        started = time.perf_counter()
        await store_events(engine, batch)
        times.append(time.perf_counter() - started)
    wall = time.perf_counter() - wall
    own, server = time.process_time() - own, cpu_seconds(pids) - server
    return {"events": len(rows), "events_per_second": round(len(rows) / wall),
            "batch_p50_ms": round(statistics.median(times) * 1000, 2),
            "batch_p95_ms": round(percentile(times, 95) * 1000, 2),
            "bench_cpu_us_per_event": round(own / len(rows) * 1e6, 1),
            "postgres_cpu_us_per_event": round(server / len(rows) * 1e6, 1)}


async def read_back(engine: Any, game_ids: list[str], reads: int) -> dict[str, float]:
    """Read `reads` random games back as a purged game is read; mean and p95 milliseconds."""
    times = []
    for game_id in random.Random(7).choices(game_ids, k=reads):
        started = time.perf_counter()
        events = await archived_events(engine, game_id)
        times.append(time.perf_counter() - started)
        assert events, game_id
    return {"reads": reads, "read_mean_ms": round(statistics.mean(times) * 1000, 3),
            "read_p95_ms": round(percentile(times, 95) * 1000, 3)}


async def measure(database_url: str, args: argparse.Namespace, postmaster: int) -> dict[str, Any]:
    """Every figure of one run against the migrated database at `database_url`."""
    engine = create_engine(Settings(database_url=database_url))
    began = datetime.now(UTC)
    try:
        ensure = getattr(archive, "ensure_months", None)
        if args.attached_months and ensure is not None:
            months = [(began.replace(day=1) - timedelta(days=31 * back)).replace(day=1)
                      for back in range(args.attached_months)]
            await ensure(engine, [month.date() for month in months])
        rows = stream_of(args.events, args.in_flight, args.events_per_game, began)
        async with engine.connect() as connection:  # the pool's connection (and its server process) first
            await connection.execute(text("SELECT 1"))
        pids = server_pids(postmaster)
        figures: dict[str, Any] = {"store": await store_all(engine, rows, pids)}
        figures["again"] = await store_all(engine, rows[:len(rows) // 4], pids)
        figures["read"] = await read_back(engine, sorted({row["game_id"] for row in rows}), args.reads)
        async with engine.connect() as connection:  # the parts of a partitioned table, else the table
            stored = (await connection.execute(text(
                "SELECT coalesce(sum(pg_total_relation_size(inhrelid)), pg_total_relation_size(:name)) "
                "FROM pg_inherits WHERE inhparent = CAST(:name AS regclass)"), {"name": '"table".events'})).scalar_one()
        figures["store"]["bytes_per_event"] = round(int(stored) / len(rows))
        return figures
    finally:
        await engine.dispose()


def measure_migration(server: PostgresServer, rows: list[dict[str, Any]]) -> dict[str, float]:
    """Write `rows` at revision 0002 into a new database and time migration 0003 moving them into months."""
    from alembic import command
    from alembic.config import Config

    with psycopg.connect(server.url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        admin.execute('CREATE DATABASE "migration"')
    url = server.url.rsplit("/", 1)[0] + "/migration"
    config = Config()
    config.set_main_option("script_location", str(REPO_ROOT / "services" / "table" / "migrations"))
    config.set_main_option("sqlalchemy.url", Settings(database_url=url).sqlalchemy_url)
    command.upgrade(config, "0002")
    games: dict[str, tuple[str, datetime, datetime | None, int]] = {}
    with psycopg.connect(url) as connection:
        events = 'COPY "table".events (game_id, n, stream_seq, type, at, body) FROM STDIN'
        with connection.cursor().copy(events) as copy:
            for row in rows:
                copy.write_row((row["game_id"], row["n"], row["stream_seq"], row["type"], row["at"], row["body"]))
                rules, began, ended, last = games.get(row["game_id"], (row["rules"], row["at"], None, 0))
                if row["type"] == EventType.GAME_ENDED:
                    ended = row["at"]
                games[row["game_id"]] = (rules, min(began, row["at"]), ended, max(last, row["n"]))
        with connection.cursor().copy('COPY "table".archived_games (game_id, rules, started_at, ended_at, last_n) '
                                      "FROM STDIN") as copy:
            for game_id, game in games.items():
                copy.write_row((game_id, *game))
    started = time.perf_counter()
    command.upgrade(config, "head")
    seconds = time.perf_counter() - started
    return {"events": len(rows), "games": len(games), "seconds": round(seconds, 2),
            "events_per_second": round(len(rows) / seconds)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--in-flight", type=int, default=200)
    parser.add_argument("--events-per-game", type=int, default=60)
    parser.add_argument("--reads", type=int, default=500)
    parser.add_argument("--attached-months", type=int, default=24)
    parser.add_argument("--migration-events", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="archive-bench-") as folder:
        server = PostgresServer(Path(folder) / "postgres", throwaway=True).start()
        try:
            upgrade_service("table", server.url)
            postmaster = int((server.data_dir / "postmaster.pid").read_text().splitlines()[0])
            figures = asyncio.run(measure(server.url, args, postmaster))
            if args.migration_events:
                figures["migration"] = measure_migration(server, stream_of(
                    args.migration_events, args.in_flight, args.events_per_game, datetime.now(UTC)))
        finally:
            server.stop()
    figures["settings"] = vars(args)
    for part in ("store", "again", "read", "migration"):
        if part in figures:
            print(part, json.dumps(figures[part]))
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
