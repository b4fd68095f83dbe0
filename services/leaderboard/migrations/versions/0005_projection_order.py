"""The tracking rows' time is the moment each game was projected, not its transaction's start.

The badge rebuild replays the games in the order they were projected (`processed_events.processed_at`). Since the
projection takes a batch of ended games in one transaction, `now()` (the transaction's start) would give a
batch's games one time; `clock_timestamp()` gives each its own, in the order they were projected. Rows written
before keep their times.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "leaderboard"


def upgrade() -> None:
    op.alter_column("processed_events", "processed_at", server_default=sa.text("clock_timestamp()"), schema=SCHEMA)


def downgrade() -> None:
    op.alter_column("processed_events", "processed_at", server_default=sa.func.now(), schema=SCHEMA)
