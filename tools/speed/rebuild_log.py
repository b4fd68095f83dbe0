"""The games' ends as the log holds them (archive and GAMES stream), in the order the live consumers saw them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

import nats.errors
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from libs.platform.contracts.subjects import GAME_ENDED_FACT, GAME_EVENTS, GAME_FACTS_STREAM, GAMES_STREAM
from libs.platform.database import table_of
from libs.platform.envelope import Event, EventType
from services.table.archive_models import SCHEMA as ARCHIVE_SCHEMA
from services.table.archive_models import ArchivedEvent
from services.table.archive_months import attached_months, partition_name
from services.table.event_store import StoredEvent
from tools.speed.rebuild_compare import table_exists

FETCH_BATCH = 1000
FETCH_TIMEOUT = 5.0

_EVENTS = table_of(ArchivedEvent)


@dataclass
class GameEnds:
    """Every `GameEnded` of the log, each once, in the order the consumers of GAME_FACTS read them."""

    events: list[Event] = field(default_factory=list)
    archived: int = 0
    """How many came from the archive ("table".events)."""
    streamed: int = 0
    """How many came from the GAMES stream only (not archived yet)."""
    archive_missing: bool = False
    """The archive table does not exist (its migration has not run): the stream alone was read."""
    not_on_facts: list[str] = field(default_factory=list)
    """Games whose end is in the log but has no copy on GAME_FACTS: not published yet, or trimmed from it."""
    facts_not_in_log: list[str] = field(default_factory=list)
    """Games with an end on GAME_FACTS that the log does not hold: what a consumer built from them has no proof."""
    copies_differing: list[str] = field(default_factory=list)
    """Games whose GAME_FACTS copy differs from the log's event (another hash) or archive and stream disagree."""
    detached_read: list[date] = field(default_factory=list)
    """Archive months detached from `"table".events` whose tables are still there: read from those tables."""


@dataclass(frozen=True)
class MissingMonth:
    """An archive month whose games the catalog knows but whose events table is gone (detached, then dropped)."""

    month: date
    games: int

    @property
    def table(self) -> str:
        """The table its events were in, as the operator restores it."""
        return f'"{ARCHIVE_SCHEMA}".{partition_name("events", self.month)}'


class MonthsMissing(Exception):
    """The archive holds months that are no longer in the database: a rebuild would miss their games' ends."""

    def __init__(self, months: list[MissingMonth]) -> None:
        self.months = months
        super().__init__(", ".join(f"{missing.month:%Y-%m}" for missing in months))

    def lines(self) -> list[str]:
        """The reason as the operator reads it (German), naming each month and how to bring it back."""
        named = [f"{missing.month:%Y-%m}" for missing in self.months]
        games = sum(missing.games for missing in self.months)
        counted = f"{games} Partie" if games == 1 else f"{games} Partien"
        if len(self.months) == 1:
            head = (f"Der Monat {named[0]} des Archivs ist abgehängt und seine Tabelle {self.months[0].table} gibt "
                    f"es nicht mehr ({counted}). Der Neubau liest jeden Monat, sonst fehlten die Spielenden dieses "
                    "Monats.")
        else:
            head = (f"Die Monate {', '.join(named)} des Archivs sind abgehängt und ihre Tabellen "
                    f"{', '.join(missing.table for missing in self.months)} gibt es nicht mehr ({counted}). Der "
                    "Neubau liest jeden Monat, sonst fehlten die Spielenden dieser Monate.")
        lines = [f"Neubau nicht möglich: {head}",
                 "So geht es weiter: die Sicherung zurückspielen (pg_restore -d \"$DATABASE_URL\" "
                 "archive-JJJJ-MM.dump, docs/operations.md) und den Monat wieder anhängen:"]
        lines += [f"  speed archive attach {month}" for month in named]
        lines.append("Danach den Neubau erneut starten; abhängen und löschen lässt sich der Monat wieder wie zuvor.")
        return lines


async def read_stream(js: JetStreamContext, stream: str, subject: str) -> list[tuple[int, bytes]]:
    """Return every message on `stream` matching `subject` as (stream sequence, data), oldest first.

    Reads through an ephemeral consumer without acknowledgements, which the server removes soon after.
    """
    config = ConsumerConfig(ack_policy=AckPolicy.NONE, deliver_policy=DeliverPolicy.ALL, filter_subject=subject,
                            inactive_threshold=30.0, max_waiting=1)
    subscription = await js.pull_subscribe(subject, durable=None, stream=stream, config=config)
    try:
        info = await subscription.consumer_info()
        pending = info.num_pending or 0
        found: list[tuple[int, bytes]] = []
        while pending > 0:
            try:
                batch = await subscription.fetch(min(FETCH_BATCH, pending), timeout=FETCH_TIMEOUT)
            except nats.errors.TimeoutError:
                break  # the rest was removed meanwhile (a purge, a limit)
            for msg in batch:
                found.append((int(msg.metadata.sequence.stream), msg.data))
                pending = msg.metadata.num_pending
        return found
    finally:
        await subscription.unsubscribe()


async def detached_months(connection: AsyncConnection) -> tuple[dict[date, str], list[MissingMonth]]:
    """Return the archive's months not attached to `"table".events`: those whose events table is still there
    (month -> its table, quoted) and those the catalog has games of whose table is gone. An archive not yet kept
    by month (before the table's migration 0003) has none."""
    partitioned = await connection.execute(text(
        "SELECT c.relkind = 'p' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = :schema AND c.relname = 'events'"), {"schema": ARCHIVE_SCHEMA})
    if not partitioned.scalar():
        return {}, []
    attached = await attached_months(connection)
    present: dict[date, str] = {}
    for (name,) in await connection.execute(text(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = :schema AND c.relkind = 'r' AND c.relname ~ '^events_[0-9]{4}_[0-9]{2}$'"),
            {"schema": ARCHIVE_SCHEMA}):
        month = datetime.strptime(name.removeprefix("events_"), "%Y_%m").date()
        if month not in attached:
            present[month] = f'"{ARCHIVE_SCHEMA}"."{name}"'
    missing = [MissingMonth(month=month, games=int(games)) for month, games in await connection.execute(text(
        f'SELECT month, count(*) FROM "{ARCHIVE_SCHEMA}".archived_games WHERE month IS NOT NULL '
        "GROUP BY month ORDER BY month")) if month not in attached and month not in present]
    return present, missing


async def archived_ends(engine: AsyncEngine) -> tuple[list[StoredEvent], list[date]] | None:
    """Return the archive's `GameEnded` events of every month (each with its GAMES stream sequence, as
    `services.table.archive.archived_events` reads a game's) and the detached months among them (read from their
    own tables), or None if there is no archive table. Raise MonthsMissing, naming them, when a month the catalog
    has games of is neither attached nor there as a table (detached and dropped)."""
    async with engine.connect() as connection:
        if not await table_exists(connection, '"table".events'):
            return None
        present, missing = await detached_months(connection)
        if missing:
            raise MonthsMissing(missing)
        rows = list((await connection.execute(select(_EVENTS.c.stream_seq, _EVENTS.c.body)
                                               .where(_EVENTS.c.type == EventType.GAME_ENDED))).all())
        for table in present.values():
            rows += (await connection.execute(text(f"SELECT stream_seq, body FROM {table} WHERE type = :type"),
                                              {"type": EventType.GAME_ENDED})).all()
    return [StoredEvent(seq=int(seq), event=Event.decode(body)) for seq, body in rows], sorted(present)


async def streamed_ends(js: JetStreamContext) -> list[StoredEvent]:
    """Return the `GameEnded` events still on the GAMES stream (every game not purged after archiving)."""
    ends = []
    for seq, data in await read_stream(js, GAMES_STREAM, GAME_EVENTS):
        event = Event.decode(data)
        if event.type == EventType.GAME_ENDED:
            ends.append(StoredEvent(seq=seq, event=event))
    return ends


async def facts_order(js: JetStreamContext) -> list[Event]:
    """Return the `GameEnded` copies on GAME_FACTS in stream order (what the lists' consumer reads)."""
    try:
        return [Event.decode(data) for _, data in await read_stream(js, GAME_FACTS_STREAM, GAME_ENDED_FACT)]
    except NotFoundError:
        return []


def merge_by_log_position(copied: list[StoredEvent], uncopied: list[StoredEvent]) -> list[StoredEvent]:
    """Return `copied` in its own order with each of `uncopied` (sorted by stream sequence) placed before the
    first copied event that came later in the log: ends whose copies were trimmed from GAME_FACTS go where
    the log has them, ends not published yet go last."""
    merged: list[StoredEvent] = []
    waiting = iter(uncopied)
    pending = next(waiting, None)
    for item in copied:
        while pending is not None and pending.seq < item.seq:
            merged.append(pending)
            pending = next(waiting, None)
        merged.append(item)
    if pending is not None:
        merged.append(pending)
    merged.extend(waiting)
    return merged


async def game_ends(engine: AsyncEngine, js: JetStreamContext) -> GameEnds:
    """Return every game's end from the log, once per (game_id, n), in the order a consumer of GAME_FACTS saw them.

    The events come from the log only (the archive, every month of it, then the stream for games not archived
    yet); MonthsMissing when a month of the archive is no longer in the database. Their
    order is their copies' order on GAME_FACTS: the order the leaderboard's consumer projected them in
    (docs/rebuild.md, "Order"). Ends without a copy there go where the log has them (`merge_by_log_position`).
    """
    ends = GameEnds()
    logged: dict[tuple[str, int], StoredEvent] = {}
    archived = await archived_ends(engine)
    ends.archive_missing = archived is None
    stored, ends.detached_read = archived or ([], [])
    for item in stored:
        logged[(item.event.game_id, item.event.n)] = item
    ends.archived = len(logged)
    for item in await streamed_ends(js):
        key = (item.event.game_id, item.event.n)
        known = logged.get(key)
        if known is None:
            logged[key] = item
            ends.streamed += 1
        elif known.event.hash != item.event.hash:
            ends.copies_differing.append(item.event.game_id)
    copied: list[StoredEvent] = []
    placed: set[tuple[str, int]] = set()
    for copy in await facts_order(js):
        key = (copy.game_id, copy.n)
        if key in placed:
            continue  # a second copy (published again after the duplicate window): projected once
        original = logged.get(key)
        if original is None:
            ends.facts_not_in_log.append(copy.game_id)
            continue
        if original.event.hash != copy.hash:
            ends.copies_differing.append(copy.game_id)
        placed.add(key)
        copied.append(original)
    uncopied = sorted((item for key, item in logged.items() if key not in placed), key=lambda item: item.seq)
    ends.not_on_facts = [item.event.game_id for item in uncopied]
    ends.events = [item.event for item in merge_by_log_position(copied, uncopied)]
    return ends
