"""The lobby's PostgreSQL tables (schema `lobby`): players, game tables and their seats, failed logins, and a
player's home: daily seeds, daily attempts, campaign progress, who played which game, table chat, and the
quick-match queue."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Date,
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
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
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
    # A solo mode table (services/lobby/modes.py): the mode of its current game (None: no mode), the Berlin
    # day and the player's attempt of a daily game, the stage of a campaign game.
    mode: Mapped[str | None] = mapped_column(String(40))
    mode_day: Mapped[date | None] = mapped_column(Date)
    mode_attempt: Mapped[int | None] = mapped_column(Integer)
    mode_stage: Mapped[int | None] = mapped_column(Integer)

    __table_args__ = (
        # "Weiterspielen" and the one-unfinished-game-per-mode rule read a player's running solo games.
        Index("tables_running_solo", "host_id", "game", "mode",
              postgresql_where=text("is_solo AND status = 'playing'")),
    )


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


class DailySeed(Base):
    """The seed of one daily mode on one Berlin day, and its commitment sha256(seed), published in advance."""

    __tablename__ = "daily_seeds"

    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    mode: Mapped[str] = mapped_column(String(40), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    seed: Mapped[str] = mapped_column(String(64))  # hex
    commitment: Mapped[str] = mapped_column(String(64))  # hex of sha256(seed bytes)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class DailyAttempt(Base):
    """A player's how-many-th game of a daily mode on a day; only attempt 1 counts, later ones are practice."""

    __tablename__ = "daily_attempts"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    mode: Mapped[str] = mapped_column(String(40), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    attempt: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(String(32), unique=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class CampaignWin(Base):
    """A campaign stage a player has won (place 1); stage k+1 is open once stage k is here."""

    __tablename__ = "campaign_progress"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    mode: Mapped[str] = mapped_column(String(40), primary_key=True)
    stage: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(String(32))
    won_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class GamePlayer(Base):
    """A human seated in a game when the lobby started it: who may read and write the game's chat, and as whom."""

    __tablename__ = "game_players"

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(40))
    table_id: Mapped[str] = mapped_column(String(32))

    __table_args__ = (UniqueConstraint("game_id", "player_id", name="game_players_one_seat"),)


class ChatMessage(Base):
    """A table chat message, kept with its game; `seq` counts a game's messages from 1."""

    __tablename__ = "chat_messages"

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(String(300))
    posted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("chat_messages_by_author", "game_id", "player_id", "posted_at"),)


class MatchPool(Base):
    """One quick-match queue: a game, its variant (the rating list) and a stake. A matching round locks the
    pool's row with `SKIP LOCKED`, so one replica at a time matches a pool and the replicas share the pools."""

    __tablename__ = "match_pools"

    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    variant: Mapped[str] = mapped_column(String(40), primary_key=True)
    stake: Mapped[int] = mapped_column(Integer, primary_key=True)


class MatchRequest(Base):
    """A player's place in a quick-match queue, from "Schnell spielen" until seated, cancelled or dropped."""

    __tablename__ = "match_requests"

    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(40))
    account: Mapped[str] = mapped_column(String(16))  # guest | registered
    game: Mapped[str] = mapped_column(String(40))
    variant: Mapped[str] = mapped_column(String(40))
    stake: Mapped[int] = mapped_column(Integer)
    # The seat counts the player accepts (one, or every count from 2 to 4 the game allows).
    seat_counts: Mapped[list[int]] = mapped_column(ARRAY(Integer))
    # Seconds of waiting after which computers fill the table; None: never.
    fill_after: Mapped[int | None] = mapped_column(Integer)
    # The player's shown rating in the list when they entered the queue (1500 for a new player).
    rating: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))  # waiting | seated | cancelled | dropped
    reason: Mapped[str | None] = mapped_column(String(300))  # why dropped, in German
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The last heartbeat (the player's `GET /match/{id}`); a player silent too long is dropped.
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    table_id: Mapped[str | None] = mapped_column(String(32))
    game_id: Mapped[str | None] = mapped_column(String(32))
    # The ledger key of the stake held while waiting (None: nothing held).
    stake_key: Mapped[str | None] = mapped_column(String(300))

    __table_args__ = (
        # Nobody waits twice: the backstop behind the "already queued" check, over all replicas.
        Index("match_requests_one_waiting", "player_id", unique=True, postgresql_where=text("status = 'waiting'")),
        Index("match_requests_waiting", "game", "variant", "stake", "created_at",
              postgresql_where=text("status = 'waiting'")),
    )
