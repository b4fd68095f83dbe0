"""Rebuilding the leaderboard's tables from the game log into a fresh schema, through the live projection code."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from nats.js import JetStreamContext
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from libs.platform.database import session_factory
from services.leaderboard.models import SCHEMA, metadata
from services.leaderboard.projection import MalformedGameEnded, project_finished_game, read_finished_game
from tools.speed.rebuild_compare import TableDifference, compare_schemas, table_exists
from tools.speed.rebuild_log import GameEnds, game_ends

IGNORED_COLUMNS: dict[str, tuple[str, ...]] = {"processed_events": ("processed_at",)}
"""Columns not derived from the log: when the live consumer projected an event (its transaction's clock).
Every other column of every table is a function of the `GameEnded` events and their order."""

GAMES_PER_TRANSACTION = 200
"""Games projected per transaction of the rebuild (the live consumer uses one per game; the rows are the same,
because each game's statements see the rows the games before it wrote either way)."""


@dataclass
class LeaderboardRebuild:
    """What a rebuild read, where it wrote, and how the result differs from the live tables."""

    schema: str
    ends: GameEnds
    projected: int = 0
    malformed: list[str] = field(default_factory=list)
    """Games whose GameEnded the projection refuses (the live consumer skips them too)."""
    differences: list[TableDifference] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return not self.differences


def fresh_schema_name(now: datetime | None = None) -> str:
    """A new schema's name for a rebuild started `now` (UTC, to the microsecond)."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return f"{SCHEMA}_rebuild_{moment:%Y%m%d_%H%M%S_%f}"


async def create_fresh_schema(engine: AsyncEngine, schema: str) -> None:
    """Create `schema` with the leaderboard's tables, as its metadata defines them (indexes included)."""
    async with engine.begin() as connection:
        await connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        translated = await connection.execution_options(schema_translate_map={SCHEMA: schema})
        await translated.run_sync(metadata.create_all)


async def drop_schema(engine: AsyncEngine, schema: str) -> None:
    """Drop a rebuild's schema and its tables."""
    async with engine.begin() as connection:
        await connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


async def live_schema_exists(engine: AsyncEngine) -> bool:
    """Whether the live leaderboard schema's tables exist (its migrations ran)."""
    async with engine.connect() as connection:
        return await table_exists(connection, f"{SCHEMA}.processed_events")


async def project_into(engine: AsyncEngine, schema: str, rebuild: LeaderboardRebuild) -> None:
    """Feed the games' ends, in order, through the live consumer's projection into `schema`'s tables."""
    translated = engine.execution_options(schema_translate_map={SCHEMA: schema})
    sessions = session_factory(translated)
    events = rebuild.ends.events
    for start in range(0, len(events), GAMES_PER_TRANSACTION):
        async with sessions() as session, session.begin():
            for event in events[start:start + GAMES_PER_TRANSACTION]:
                try:
                    finished = read_finished_game(event)
                except MalformedGameEnded:
                    rebuild.malformed.append(event.game_id)
                    continue
                if await project_finished_game(session, finished) is not None:
                    rebuild.projected += 1


async def rebuild_leaderboard(engine: AsyncEngine, js: JetStreamContext, *, keep: bool = False,
                              schema: str | None = None) -> LeaderboardRebuild:
    """Rebuild the leaderboard from the log into a fresh schema and compare it with the live one.

    The fresh schema is dropped afterwards unless `keep`.
    """
    schema = schema or fresh_schema_name()
    rebuild = LeaderboardRebuild(schema=schema, ends=await game_ends(engine, js))
    await create_fresh_schema(engine, schema)
    try:
        await project_into(engine, schema, rebuild)
        async with engine.connect() as connection:
            rebuild.differences = await compare_schemas(connection, metadata, SCHEMA, schema, IGNORED_COLUMNS)
    finally:
        if not keep:
            await drop_schema(engine, schema)
    return rebuild
