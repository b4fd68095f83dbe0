"""The table's archive in PostgreSQL, schema `table`: every event of every game, and one row per game.

`events` holds each event's exact stored bytes (`body`, as on the GAMES stream), keyed by (game_id, n), so
a game's log reads back the same after its subject was purged from the stream. `archived_games` says, per
game, what the archive holds (the highest n so far, when the game ended), when its subject was purged, and
the game's archive month.

`events` and `team_events` are partitioned by range of `month` (docs/archive.md, "Months"): one partition per
calendar month (`events_2026_12`), so a month past the retention is detached whole. A game's `month` is fixed
once, in `archived_games` (not partitioned, keyed by game_id alone), when the archive first stores anything of
it; every row of the game takes it from there, so all of a game lies in one partition and (game_id, n) stays
unique although the partitions' keys must include `month`.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, Date, DateTime, Index, Integer, MetaData, Text, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SCHEMA = "table"

metadata = MetaData(schema=SCHEMA)


class Base(DeclarativeBase):
    """Declarative base bound to the table's schema."""

    metadata = metadata


class ArchivedEvent(Base):
    """One event of a game's log, stored once: its number, stream sequence, type, time and exact bytes."""

    __tablename__ = "events"
    __table_args__ = ({"postgresql_partition_by": "RANGE (month)"},)

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    month: Mapped[date] = mapped_column(Date, primary_key=True)
    """The game's archive month (`ArchivedGame.month`): the partition the row lives in."""
    stream_seq: Mapped[int] = mapped_column(BigInteger)
    type: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    body: Mapped[str] = mapped_column(Text)


class ArchivedGame(Base):
    """What the archive holds of one game: its rules, start, end (None while it runs), highest event number
    archived so far, when its subject was purged from the GAMES stream (None: still there), and its month."""

    __tablename__ = "archived_games"
    __table_args__ = (
        # The purge sweep's question: ended, not yet purged, oldest first.
        Index("archived_games_to_purge", "ended_at",
              postgresql_where=text("purged_at IS NULL AND ended_at IS NOT NULL")),
    )

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    rules: Mapped[str] = mapped_column(Text)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    last_n: Mapped[int] = mapped_column(Integer)
    purged_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    month: Mapped[date] = mapped_column(Date)
    """The first day of the UTC month of the first entry the archive stored of the game (its GameStarted's, as
    the stream hands events over in order); set once and never changed: the partition of all its rows."""


class ArchivedTeamEvent(Base):
    """One entry of a game's team log (a side move, libs/platform/team_log.py), stored once: its team, number,
    stream sequence, time and exact bytes. Read only for the team's own players and operators."""

    __tablename__ = "team_events"
    __table_args__ = ({"postgresql_partition_by": "RANGE (month)"},)

    game_id: Mapped[str] = mapped_column(Text, primary_key=True)
    team: Mapped[int] = mapped_column(Integer, primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    month: Mapped[date] = mapped_column(Date, primary_key=True)
    """The game's archive month (`ArchivedGame.month`)."""
    stream_seq: Mapped[int] = mapped_column(BigInteger)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    body: Mapped[str] = mapped_column(Text)
