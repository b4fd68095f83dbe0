"""The leaderboard's tables in schema `leaderboard`: tracking rows, result rows and the all-time standings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, DateTime, Index, Integer, MetaData, String, func
from sqlalchemy.dialects.postgresql import JSONB
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
    processed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Result(Base):
    """One human's result in one finished game: the facts every list is rebuilt from."""

    __tablename__ = "results"
    __table_args__ = (
        Index("results_by_player", "player_id", "ended_at"),
        Index("results_by_list", "game", "variant"),
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
