"""Skill ratings per game and variant (issue 28): rating lists, current ratings, every rated seat's change.

The games finished before this revision are rated here, in rating order, by the service's own model
(`services/leaderboard/rating_backfill.py`), so the tables hold what projecting the log again would write.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "leaderboard"


def upgrade() -> None:
    op.create_table(
        "rating_pools",
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("variant", sa.String(64), primary_key=True),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("last_ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_game_id", sa.String(64), nullable=True),
        schema=SCHEMA,
    )
    op.create_table(
        "ratings",
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("variant", sa.String(64), primary_key=True),
        sa.Column("rating_key", sa.String(200), primary_key=True),
        sa.Column("mu", sa.Double, nullable=False),
        sa.Column("sigma", sa.Double, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("last_ended_at", sa.DateTime(timezone=True), nullable=False),
        schema=SCHEMA,
    )
    op.create_index("ratings_by_key", "ratings", ["rating_key"], schema=SCHEMA)
    op.create_table(
        "rating_changes",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("variant", sa.String(64), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rating_key", sa.String(200), nullable=False),
        sa.Column("side", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Double, nullable=False),
        sa.Column("sigma_before", sa.Double, nullable=False),
        sa.Column("games_before", sa.Integer, nullable=False),
        sa.Column("mu_after", sa.Double, nullable=False),
        sa.Column("sigma_after", sa.Double, nullable=False),
        schema=SCHEMA,
    )
    op.create_index("rating_changes_in_order", "rating_changes", ["game", "variant", "ended_at", "game_id"],
                    schema=SCHEMA)
    op.create_index("rating_changes_by_key", "rating_changes", ["rating_key", "ended_at"], schema=SCHEMA)
    from services.leaderboard.rating_backfill import rate_finished_games

    rate_finished_games(op.get_bind())


def downgrade() -> None:
    for table in ("rating_changes", "ratings", "rating_pools"):
        op.drop_table(table, schema=SCHEMA)
