"""The archive of team logs: every entry of every game's team logs in PostgreSQL, read back once purged.

A game's team logs (side moves only one team may learn of: libs/platform/team_log.py) live on GAMES beside its
log, as ``game.<id>.team.<k>``. The archive role copies them with a durable consumer of their own
(``table-archive-teams``, filter ``game.*.team.*``) into ``"table".team_events``, exactly once by
(game_id, team, n), acking only after the commit; the purge sweep purges a game's log and its team logs
together (``game.<id>.>``). Side moves are few (a team game gives a few dozen signals), so rows are inserted
one statement per batch, without the game log's COPY.

Entries lie in their game's month partition (docs/archive.md, "Months"): the month its catalog row in
``archived_games`` holds. An entry may come in before any event of its game (two consumers); then the entry's
store writes the catalog row first, with the entry's month, and the game log's store keeps it.
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any

from nats.aio.client import Client as NatsClient
from nats.errors import TimeoutError as NatsTimeout
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from sqlalchemy import bindparam, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from libs.platform.consumers import FETCH_TIMEOUT
from libs.platform.contracts.subjects import GAME_TEAM_LOGS, GAMES_STREAM, TABLE_ARCHIVE_TEAMS_DURABLE
from libs.platform.database import table_of
from libs.platform.envelope import Event, parse_stamp
from libs.platform.logging import get_logger
from libs.platform.nats_client import stream_sequence
from libs.platform.service import Runtime
from libs.rules import ConfigError, registry
from libs.rules.registry import UnknownRules
from services.table.archive_batches import store_and_settle
from services.table.archive_models import ArchivedGame, ArchivedTeamEvent
from services.table.archive_months import ATTACHED, month_of
from services.table.event_store import StoredEvent

TEAM_BATCH = 200
"""Team-log entries one fetch takes at most, stored in one transaction."""
TEAM_LINGER = 0.5
"""Seconds to wait after a batch smaller than TEAM_BATCH (nothing but the purge, a grace period later, waits)."""

_TEAM_EVENTS = table_of(ArchivedTeamEvent)
_GAMES = table_of(ArchivedGame)
_GAME_MONTH = select(_GAMES.c.month).where(_GAMES.c.game_id == bindparam("game_id")).scalar_subquery()
"""The game's month (one partition to read); NULL for a game the archive does not know: no rows."""
_TEAM_EVENTS_OF = (select(_TEAM_EVENTS.c.stream_seq, _TEAM_EVENTS.c.body)
                   .where(_TEAM_EVENTS.c.game_id == bindparam("game_id"), _TEAM_EVENTS.c.month == _GAME_MONTH)
                   .order_by(_TEAM_EVENTS.c.team, _TEAM_EVENTS.c.n))
_COUNT_OF = (select(func.count()).select_from(_TEAM_EVENTS)
             .where(_TEAM_EVENTS.c.game_id == bindparam("game_id"), _TEAM_EVENTS.c.month == _GAME_MONTH))
# A game the archive has not heard of yet gets its catalog row (and with it its month) from its first entry.
_CATALOG = insert(_GAMES).on_conflict_do_nothing(index_elements=[_GAMES.c.game_id])
_MONTHS_OF = select(_GAMES.c.game_id, _GAMES.c.month).where(_GAMES.c.game_id.in_(bindparam("game_ids", expanding=True)))
_STORE = insert(_TEAM_EVENTS).on_conflict_do_nothing(
    index_elements=[_TEAM_EVENTS.c.game_id, _TEAM_EVENTS.c.team, _TEAM_EVENTS.c.n, _TEAM_EVENTS.c.month])


async def archived_team_events(engine: AsyncEngine, game_id: str) -> list[StoredEvent]:
    """Return every archived entry of the game's team logs (team by team, each in order), with its stream
    sequence on GAMES."""
    async with engine.connect() as connection:
        rows = await connection.execute(_TEAM_EVENTS_OF, {"game_id": game_id})
        return [StoredEvent(seq=int(seq), event=Event.decode(body)) for seq, body in rows]


@cache
def may_have_team_logs(rules_id: str) -> bool:
    """True if some game of these rules can have team logs (some config and seat count with ``side_teams``)."""
    try:
        engine = registry.engine(rules_id)
    except UnknownRules:
        return False
    for config in engine.module.valid_configs():
        for seats in engine.spec.seat_counts:
            try:
                normalized = engine.normalize_config(config, seats)
            except ConfigError:
                continue
            if engine.side_teams(normalized, seats):
                return True
    return False


async def team_logs_archived(js: Any, connection: AsyncConnection, game_id: str) -> bool:
    """True when the archive holds as many team-log entries of the game as the stream does (so purging its
    subjects loses none); the purge sweep asks it for every game whose rules can have team logs."""
    info = await js.stream_info(GAMES_STREAM, subjects_filter=f"game.{game_id}.team.*")
    on_stream = sum(int(count) for count in (info.state.subjects or {}).values())
    archived = (await connection.execute(_COUNT_OF, {"game_id": game_id})).scalar_one()
    return int(archived) >= on_stream


async def store_team_events(engine: AsyncEngine, rows: list[dict[str, Any]]) -> None:
    """Store team-log entries, each in its game's month; entries already stored are left as they are. A game
    the archive does not know yet gets its catalog row here (its month that of its earliest entry)."""
    if not rows:
        return
    firsts: dict[str, dict[str, Any]] = {}
    for row in rows:
        first = firsts.get(row["game_id"])
        if first is None or row["at"] < first["started_at"]:
            firsts[row["game_id"]] = {"game_id": row["game_id"], "rules": row["rules"], "started_at": row["at"],
                                      "ended_at": None, "last_n": 0, "month": month_of(row["at"])}
    try:
        await ATTACHED.ensure(engine, {first["month"] for first in firsts.values()})
        async with engine.begin() as connection:
            # In game order, as the log's store upserts them, so the two never wait on each other in a circle.
            await connection.execute(_CATALOG, [firsts[game_id] for game_id in sorted(firsts)])
            months = {game_id: month for game_id, month in await connection.execute(
                _MONTHS_OF, {"game_ids": list(firsts)})}
            await connection.execute(_STORE, [{key: value for key, value in row.items() if key != "rules"}
                                              | {"month": months[row["game_id"]]} for row in rows])
    except Exception:
        ATTACHED.forget(engine)
        raise


async def archive_team_events(runtime: Runtime, nc: NatsClient) -> None:
    """Copy every team-log entry of GAMES into the archive, exactly once, until the service stops (acked after
    the commit; a failed store naks the batch)."""
    engine = runtime.engine
    assert engine is not None
    log = get_logger(consumer=TABLE_ARCHIVE_TEAMS_DURABLE)
    js = nc.jetstream()
    config = ConsumerConfig(
        durable_name=TABLE_ARCHIVE_TEAMS_DURABLE, ack_policy=AckPolicy.EXPLICIT, deliver_policy=DeliverPolicy.ALL,
        ack_wait=60.0, max_deliver=-1, filter_subject=GAME_TEAM_LOGS, max_ack_pending=TEAM_BATCH * 4,
    )
    subscription = await js.pull_subscribe(GAME_TEAM_LOGS, durable=TABLE_ARCHIVE_TEAMS_DURABLE, stream=GAMES_STREAM,
                                           config=config)
    try:
        while not runtime.stopping.is_set():
            try:
                messages = await subscription.fetch(TEAM_BATCH, timeout=FETCH_TIMEOUT)
            except (NatsTimeout, TimeoutError):
                continue
            if not messages:
                continue
            rows: list[dict[str, Any]] = []
            unreadable = []
            for msg in messages:
                try:
                    event = Event.decode(msg.data)
                    rows.append({"game_id": event.game_id, "team": int(event.data["team"]), "n": event.n,
                                 "stream_seq": stream_sequence(msg), "at": parse_stamp(event.at),
                                 "body": msg.data.decode(), "rules": event.rules})
                except Exception:
                    log.error("archive_unreadable_team_event", subject=msg.subject)
                    unreadable.append(msg)
            rows.sort(key=lambda row: (row["game_id"], row["team"], row["n"]))
            started = time.perf_counter()
            stored = await store_and_settle(
                messages, unreadable, store_team_events(engine, rows), runtime, log, "archive_team_store_failed",
                entries=len(rows))
            if not stored:
                continue
            log.debug("team_entries_archived", entries=len(rows), seconds=round(time.perf_counter() - started, 4))
            if len(messages) < TEAM_BATCH:
                await runtime.pause(TEAM_LINGER)
    finally:
        try:
            await subscription.unsubscribe()
        except Exception:  # the connection may be closing
            pass
