"""The JetStream streams of the platform and creating them idempotently (their names: contracts.subjects)."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import replace

from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy, RetentionPolicy, StorageType, StreamConfig
from nats.js.errors import BadRequestError, NotFoundError

from libs.platform.contracts.subjects import (
    BOT_TURNS,
    BOT_TURNS_STREAM,
    GAME_EVENTS,
    GAME_FACTS,
    GAME_FACTS_STREAM,
    GAME_SNAPSHOTS,
    GAME_SNAPSHOTS_STREAM,
    GAME_TEAM_LOGS,
    GAMES_STREAM,
    LOBBY_EVENTS,
    LOBBY_STREAM,
    TIMER_FIRES,
    TIMER_SETS,
    TIMERS_STREAM,
)
from libs.platform.rpc import UNAVAILABLE

STREAMS: tuple[StreamConfig, ...] = (
    StreamConfig(
        name=GAMES_STREAM,
        description="Every game's event log, one subject per game; the source of truth. Beside it a game's team "
                    "logs (side moves only a team may learn of), one subject per team.",
        subjects=[GAME_EVENTS, GAME_TEAM_LOGS],
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        duplicate_window=120.0,
        allow_msg_schedules=True,
        # Direct get: a game's log is read in one batched request (and, on a cluster, by any replica).
        allow_direct=True,
    ),
    StreamConfig(
        name=BOT_TURNS_STREAM,
        description="Work queue of decisions the computer players must make; one shared consumer.",
        subjects=[BOT_TURNS],
        retention=RetentionPolicy.WORK_QUEUE,
        storage=StorageType.FILE,
        duplicate_window=120.0,
        discard=DiscardPolicy.OLD,
    ),
    StreamConfig(
        name=TIMERS_STREAM,
        description="Durable think-time deadlines: schedules on timer.set.*, fired onto timer.fire.*.",
        subjects=[TIMER_SETS, TIMER_FIRES],
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        max_age=24 * 3600.0,
        allow_msg_schedules=True,
    ),
    StreamConfig(
        name=GAME_FACTS_STREAM,
        description="Copies of GameStarted and GameEnded, published from the log by the table's follow-up, so "
                    "ledger, lobby and leaderboard need not read every move.",
        subjects=[GAME_FACTS],
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        duplicate_window=600.0,
    ),
    StreamConfig(
        name=GAME_SNAPSHOTS_STREAM,
        description="The latest snapshot of each game as the table folded it: a cold replica folds only the log's "
                    "tail onto it (services/table/snapshots.py). A shortcut, never the truth: losing it costs time.",
        subjects=[GAME_SNAPSHOTS],
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        max_msgs_per_subject=1,
        max_age=2 * 24 * 3600.0,
        allow_direct=True,
    ),
    StreamConfig(
        name=LOBBY_STREAM,
        description="Facts from the lobby (players registered) for the ledger and others.",
        subjects=[LOBBY_EVENTS],
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        duplicate_window=120.0,
    ),
)


LEADERLESS_PATIENCE = 60.0
"""Seconds `ensure_streams` waits for JetStream to answer: a cluster starting (or a stream whose leader was lost)
elects its leaders within nats-server's election timeout (4–9 s), and meanwhile no request about the stream is
answered."""


async def ensure_streams(js: JetStreamContext, replicas: int = 1, only: Collection[str] | None = None,
                         patience: float = LEADERLESS_PATIENCE) -> None:
    """Create every platform stream (or those named in `only`) that does not exist yet (with `replicas`
    copies), and update the rest; while JetStream cannot answer (no leader yet), ask again for up to `patience`
    seconds.

    A service passes the streams it owns (libs/platform/nats_permissions.STREAM_OWNERS): its NATS user may
    create no others; a service reading another's stream waits for its owner (its consumer restarts).
    """
    deadline = asyncio.get_running_loop().time() + patience
    for template in STREAMS:
        if only is not None and template.name not in only:
            continue
        config = replace(template, num_replicas=replicas)
        while True:
            try:
                await _ensure_stream(js, config)
                break
            except UNAVAILABLE:
                if asyncio.get_running_loop().time() >= deadline:
                    raise
                await asyncio.sleep(0.25)


async def _ensure_stream(js: JetStreamContext, config: StreamConfig) -> None:
    """Create the stream `config` describes, or update it to that."""
    assert config.name is not None
    try:
        await js.stream_info(config.name)
    except NotFoundError:
        try:
            await js.add_stream(config)
        except BadRequestError as error:  # another replica created it a moment ago
            if error.err_code != 10058:
                raise
        return
    await js.update_stream(config)
