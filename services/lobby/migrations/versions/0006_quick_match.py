"""Quick match: the queues (one per game, variant and stake) and the players waiting in them.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "lobby"


def upgrade() -> None:
    op.create_table(
        "match_pools",
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("variant", sa.String(40), primary_key=True),
        sa.Column("stake", sa.Integer, primary_key=True),
        schema=SCHEMA,
    )
    op.create_table(
        "match_requests",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("account", sa.String(16), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("variant", sa.String(40), nullable=False),
        sa.Column("stake", sa.Integer, nullable=False),
        sa.Column("seat_counts", postgresql.ARRAY(sa.Integer), nullable=False),
        sa.Column("fill_after", sa.Integer),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(300)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True)),
        sa.Column("table_id", sa.String(32)),
        sa.Column("game_id", sa.String(32)),
        sa.Column("stake_key", sa.String(300)),
        sa.CheckConstraint("status IN ('waiting', 'seated', 'cancelled', 'dropped')", name="match_requests_status"),
        schema=SCHEMA,
    )
    op.create_index("match_requests_one_waiting", "match_requests", ["player_id"], unique=True, schema=SCHEMA,
                    postgresql_where=sa.text("status = 'waiting'"))
    op.create_index("match_requests_waiting", "match_requests", ["game", "variant", "stake", "created_at"],
                    schema=SCHEMA, postgresql_where=sa.text("status = 'waiting'"))


def downgrade() -> None:
    op.drop_table("match_requests", schema=SCHEMA)
    op.drop_table("match_pools", schema=SCHEMA)
