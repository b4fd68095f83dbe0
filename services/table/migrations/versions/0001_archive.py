"""The archive: every event of every game, and one row per game (docs/archive.md).

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "table"


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("game_id", sa.Text, primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("stream_seq", sa.BigInteger, nullable=False),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        schema=SCHEMA,
    )
    op.create_table(
        "archived_games",
        sa.Column("game_id", sa.Text, primary_key=True),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_n", sa.Integer, nullable=False),
        sa.Column("purged_at", sa.DateTime(timezone=True), nullable=True),
        schema=SCHEMA,
    )
    op.create_index("archived_games_to_purge", "archived_games", ["ended_at"], schema=SCHEMA,
                    postgresql_where=sa.text("purged_at IS NULL AND ended_at IS NOT NULL"))


def downgrade() -> None:
    op.drop_index("archived_games_to_purge", table_name="archived_games", schema=SCHEMA)
    op.drop_table("archived_games", schema=SCHEMA)
    op.drop_table("events", schema=SCHEMA)
