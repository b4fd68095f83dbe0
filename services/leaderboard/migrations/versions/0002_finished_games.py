"""The end table of every finished game, all seats included.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "leaderboard"


def upgrade() -> None:
    op.create_table(
        "finished_games",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("variant", sa.String(64), nullable=False),
        sa.Column("rules", sa.String(64), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seats", JSONB, nullable=False),
        schema=SCHEMA,
    )
    op.create_index("finished_games_recent", "finished_games", ["ended_at"], schema=SCHEMA)


def downgrade() -> None:
    op.drop_table("finished_games", schema=SCHEMA)
