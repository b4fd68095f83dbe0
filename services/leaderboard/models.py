"""The leaderboard's tables in schema `leaderboard`: tracking rows, results, standings, end tables and badges."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, Date, DateTime, Double, Index, Integer, MetaData, String, func
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SCHEMA = "leaderboard"

metadata = MetaData(schema=SCHEMA)


class Base(DeclarativeBase):
    """Declarative base bound to the leaderboard's schema."""

    metadata = metadata


class ProcessedEvent(Base):
    """Tracking row: this game log event was projected (written in the same transaction as its effects)."""

    __tablename__ = "processed_events"

    game_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_type: Mapped[str] = mapped_column(String(64))
    event_hash: Mapped[str] = mapped_column(String(64))
    processed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.clock_timestamp())
    """When this event was projected: its own moment (not its transaction's start), so the games of one batch keep
    their order for the badge rebuild."""


class Result(Base):
    """One human's result in one finished game: the facts every list is rebuilt from."""

    __tablename__ = "results"
    __table_args__ = (
        Index("results_by_player", "player_id", "ended_at"),
        Index("results_by_list", "game", "variant"),
        Index("results_by_mode", "game", "mode", "day"),
    )

    game_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(String(200))
    name: Mapped[str] = mapped_column(String(200))
    account: Mapped[str | None] = mapped_column(String(32))
    game: Mapped[str] = mapped_column(String(64))
    variant: Mapped[str] = mapped_column(String(64))
    rules: Mapped[str] = mapped_column(String(64))
    place: Mapped[int] = mapped_column(Integer)
    score: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    players: Mapped[int] = mapped_column(Integer)
    has_left: Mapped[bool] = mapped_column(Boolean, server_default="false")
    ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The solo mode (GameEnded.mode); all None / false for games outside the modes.
    mode: Mapped[str | None] = mapped_column(String(64))
    day: Mapped[date | None] = mapped_column(Date)
    """A daily game's Berlin day (its seed's day, not necessarily the day it ended)."""
    attempt: Mapped[int | None] = mapped_column(Integer)
    practice: Mapped[bool] = mapped_column(Boolean, server_default="false")
    """A daily game after the first attempt of the day: in no list."""
    stage: Mapped[int | None] = mapped_column(Integer)
    list_key: Mapped[list[int] | None] = mapped_column(ARRAY(Integer))
    """The vector the mode's lists order by (compared element by element, higher is better)."""
    badges: Mapped[list[str]] = mapped_column(ARRAY(String(64)), server_default="{}")
    """The game badges GameEnded listed for this seat, as given (kept so awards can be rebuilt)."""


class Standing(Base):
    """A player's all-time line in the list of one (game, variant): a running sum over their results."""

    __tablename__ = "standings"
    __table_args__ = (Index("standings_ranking", "game", "variant", "points"),)

    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    variant: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    points: Mapped[int] = mapped_column(BigInteger)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    best_score: Mapped[int] = mapped_column(Integer)
    last_played_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class FinishedGameRow(Base):
    """The end table of one finished game, every seat included (computers too), for result pages."""

    __tablename__ = "finished_games"
    __table_args__ = (Index("finished_games_recent", "ended_at"),)

    game_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    variant: Mapped[str] = mapped_column(String(64))
    rules: Mapped[str] = mapped_column(String(64))
    ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSONB)
    mode: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    """`{"key", "day", "attempt", "stage", "practice"}` of a solo mode game, else None."""


class BadgeAward(Base):
    """A badge a player holds: awarded once per (player, game, badge), by the game that earned it."""

    __tablename__ = "badge_awards"
    __table_args__ = (Index("badge_awards_by_game", "game_id"),)

    player_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    badge: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(String(64))
    awarded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    """The awarding game's end (its GameEnded's `at`), so a rebuild gives the same rows."""


class RatingPool(Base):
    """One rating list (game, variant): how many games it has rated and the last one in rating order.

    Its row is locked (`FOR UPDATE` through an upsert) by every transaction that rates a game of the list, so
    replicas rate one list's games one after another; the last game tells whether a game arrives late.
    """

    __tablename__ = "rating_pools"

    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    variant: Mapped[str] = mapped_column(String(64), primary_key=True)
    games: Mapped[int] = mapped_column(Integer)
    last_ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_game_id: Mapped[str | None] = mapped_column(String(64))


class PlayerRating(Base):
    """The current rating of a human (player id) or a computer level (`computer:<level>`) in one list."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ratings_by_key", "rating_key"),)

    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    variant: Mapped[str] = mapped_column(String(64), primary_key=True)
    rating_key: Mapped[str] = mapped_column(String(200), primary_key=True)
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)
    games: Mapped[int] = mapped_column(Integer)
    """Rated games of this list."""
    last_ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingChange(Base):
    """One seat of one rated game: its side and rank (the update's input) and its rating before and after."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        Index("rating_changes_in_order", "game", "variant", "ended_at", "game_id"),
        Index("rating_changes_by_key", "rating_key", "ended_at"),
    )

    game_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    variant: Mapped[str] = mapped_column(String(64))
    ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    rating_key: Mapped[str] = mapped_column(String(200))
    side: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Double)
    sigma_before: Mapped[float] = mapped_column(Double)
    games_before: Mapped[int] = mapped_column(Integer)
    """The key's rated games of this list before this one (0: its first)."""
    mu_after: Mapped[float] = mapped_column(Double)
    sigma_after: Mapped[float] = mapped_column(Double)
