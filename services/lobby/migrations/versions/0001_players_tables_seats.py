"""Players, tables and seats.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "lobby"


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.String(200)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("registration_published_at", sa.DateTime(timezone=True)),
        sa.CheckConstraint("kind IN ('guest', 'registered')", name="players_kind"),
        schema=SCHEMA,
    )
    op.create_index("players_registered_name_key", "players", [sa.text("lower(name)")], unique=True,
                    postgresql_where=sa.text("kind = 'registered'"), schema=SCHEMA)
    op.create_index("players_unpublished", "players", ["created_at"],
                    postgresql_where=sa.text("kind = 'registered' AND registration_published_at IS NULL"),
                    schema=SCHEMA)
    op.create_table(
        "tables",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("settings", JSONB, nullable=False),
        sa.Column("tempo", sa.String(16), nullable=False),
        sa.Column("think_time", sa.Integer),
        sa.Column("stake", sa.Integer, nullable=False),
        sa.Column("turbo", sa.Boolean, nullable=False),
        sa.Column("is_solo", sa.Boolean, nullable=False),
        sa.Column("host_id", sa.String(32), nullable=False),
        sa.Column("player_count", sa.Integer, nullable=False),
        sa.Column("bot_level", sa.String(16), nullable=False),
        sa.Column("fill_with_bots", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("game_id", sa.String(32)),
        sa.Column("rules", sa.String(40)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.CheckConstraint("status IN ('open', 'playing', 'finished')", name="tables_status"),
        sa.CheckConstraint("player_count BETWEEN 2 AND 4", name="tables_player_count"),
        schema=SCHEMA,
    )
    op.create_index("ix_lobby_tables_status", "tables", ["status"], schema=SCHEMA)
    op.create_index("tables_game_id", "tables", ["game_id"], schema=SCHEMA)
    op.create_table(
        "seats",
        sa.Column("table_id", sa.String(32),
                  sa.ForeignKey(f"{SCHEMA}.tables.table_id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.String(32)),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("level", sa.String(16)),
        sa.Column("account", sa.String(16)),
        sa.UniqueConstraint("table_id", "player_id", name="seats_one_per_player"),
        sa.CheckConstraint("kind IN ('human', 'bot')", name="seats_kind"),
        schema=SCHEMA,
    )


def downgrade() -> None:
    op.drop_table("seats", schema=SCHEMA)
    op.drop_table("tables", schema=SCHEMA)
    op.drop_table("players", schema=SCHEMA)
