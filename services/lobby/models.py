"""The lobby's PostgreSQL tables (schema `lobby`): players, game tables and their seats, failed logins."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SCHEMA = "lobby"
metadata = MetaData(schema=SCHEMA)


class Base(DeclarativeBase):
    """Declarative base of the lobby's models."""

    metadata = metadata


class Player(Base):
    """A guest or a registered player; registered names are unique regardless of case and look-alikes."""

    __tablename__ = "players"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    # The name's look-alike form (services/lobby/names.skeleton): registered names are unique in it.
    name_skeleton: Mapped[str] = mapped_column(String(120))
    kind: Mapped[str] = mapped_column(String(16))
    password_hash: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    # Outbox marker: the registration fact is re-published until this is set.
    registration_published_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        Index("players_registered_name_key", text("lower(name)"), unique=True,
              postgresql_where=text("kind = 'registered'")),
        Index("players_registered_skeleton_key", "name_skeleton", unique=True,
              postgresql_where=text("kind = 'registered'")),
    )


class GameTable(Base):
    """A table: its game and settings, its host, how many seats, and where it is in its life."""

    __tablename__ = "tables"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(40))
    # The rule module's normalized settings (what the table service receives).
    settings: Mapped[dict[str, Any]] = mapped_column(JSONB)
    tempo: Mapped[str] = mapped_column(String(16))
    think_time: Mapped[int | None] = mapped_column(Integer)  # seconds; None = "ohne"
    stake: Mapped[int] = mapped_column(Integer)
    turbo: Mapped[bool] = mapped_column(Boolean)
    is_solo: Mapped[bool] = mapped_column(Boolean)
    host_id: Mapped[str] = mapped_column(String(32))
    player_count: Mapped[int] = mapped_column(Integer)
    bot_level: Mapped[str] = mapped_column(String(16))
    fill_with_bots: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16), index=True)
    game_id: Mapped[str | None] = mapped_column(String(32))
    rules: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # While the humans of the last game are asked back ("Nochmal"): until when their seats are held.
    rematch_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Seat(Base):
    """One occupied seat; (table_id, seat) is unique, so two joins can never share a seat."""

    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey(f"{SCHEMA}.tables.table_id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str | None] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(8))  # human | bot
    level: Mapped[str | None] = mapped_column(String(16))
    account: Mapped[str | None] = mapped_column(String(16))  # guest | registered | None for bots
    # The ledger key of the stake held for this seat (None: no stake held, e.g. guests, bots, no-stake tables).
    stake_key: Mapped[str | None] = mapped_column(String(300))
    # Set while the seat is kept for a player of the last game who has not clicked "Nochmal" yet.
    held_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (UniqueConstraint("table_id", "player_id", name="seats_one_per_player"),)


class LoginAttempt(Base):
    """A login attempt that has not (yet) succeeded, per account name (its skeleton), shared by every lobby
    replica: an account takes only so many failures per window, wherever they are tried."""

    __tablename__ = "login_failures"

    attempt_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    account_key: Mapped[str] = mapped_column(String(120))
    failed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        Index("login_failures_account", "account_key", "failed_at"),
        Index("login_failures_failed_at", "failed_at"),
    )
