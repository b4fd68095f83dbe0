"""Team logs in the archive: every entry of every game's team logs (side moves; docs/archive.md).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "table"


def upgrade() -> None:
    op.create_table(
        "team_events",
        sa.Column("game_id", sa.Text, primary_key=True),
        sa.Column("team", sa.Integer, primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("stream_seq", sa.BigInteger, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        schema=SCHEMA,
    )


def downgrade() -> None:
    op.drop_table("team_events", schema=SCHEMA)
