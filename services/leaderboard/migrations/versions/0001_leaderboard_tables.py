"""Tracking rows, per-game results and all-time standings.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "leaderboard"


def upgrade() -> None:
    op.create_table(
        "processed_events",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("event_type", sa.String(64), nullable=False),
        sa.Column("event_hash", sa.String(64), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        schema=SCHEMA,
    )
    op.create_table(
        "results",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.String(200), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("account", sa.String(32), nullable=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("variant", sa.String(64), nullable=False),
        sa.Column("rules", sa.String(64), nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("has_left", sa.Boolean, nullable=False, server_default="false"),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        schema=SCHEMA,
    )
    op.create_index("results_by_player", "results", ["player_id", "ended_at"], schema=SCHEMA)
    op.create_index("results_by_list", "results", ["game", "variant"], schema=SCHEMA)
    op.create_table(
        "standings",
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("variant", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(200), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("points", sa.BigInteger, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("best_score", sa.Integer, nullable=False),
        sa.Column("last_played_at", sa.DateTime(timezone=True), nullable=False),
        schema=SCHEMA,
    )
    op.create_index("standings_ranking", "standings", ["game", "variant", "points"], schema=SCHEMA)


def downgrade() -> None:
    op.drop_table("standings", schema=SCHEMA)
    op.drop_table("results", schema=SCHEMA)
    op.drop_table("processed_events", schema=SCHEMA)
