"""A player's home: results and end tables gain the solo mode; badge awards.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "leaderboard"


def upgrade() -> None:
    op.add_column("results", sa.Column("mode", sa.String(64), nullable=True), schema=SCHEMA)
    op.add_column("results", sa.Column("day", sa.Date, nullable=True), schema=SCHEMA)
    op.add_column("results", sa.Column("attempt", sa.Integer, nullable=True), schema=SCHEMA)
    op.add_column("results", sa.Column("practice", sa.Boolean, nullable=False, server_default="false"),
                  schema=SCHEMA)
    op.add_column("results", sa.Column("stage", sa.Integer, nullable=True), schema=SCHEMA)
    op.add_column("results", sa.Column("list_key", ARRAY(sa.Integer), nullable=True), schema=SCHEMA)
    op.add_column("results", sa.Column("badges", ARRAY(sa.String(64)), nullable=False, server_default="{}"),
                  schema=SCHEMA)
    op.create_index("results_by_mode", "results", ["game", "mode", "day"], schema=SCHEMA)
    op.add_column("finished_games", sa.Column("mode", JSONB, nullable=True), schema=SCHEMA)
    op.create_table(
        "badge_awards",
        sa.Column("player_id", sa.String(200), primary_key=True),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("badge", sa.String(64), primary_key=True),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("awarded_at", sa.DateTime(timezone=True), nullable=False),
        schema=SCHEMA,
    )
    op.create_index("badge_awards_by_game", "badge_awards", ["game_id"], schema=SCHEMA)


def downgrade() -> None:
    op.drop_table("badge_awards", schema=SCHEMA)
    op.drop_column("finished_games", "mode", schema=SCHEMA)
    op.drop_index("results_by_mode", table_name="results", schema=SCHEMA)
    for column in ("badges", "list_key", "stage", "practice", "attempt", "day", "mode"):
        op.drop_column("results", column, schema=SCHEMA)
