"""A player's home: solo modes on tables, daily seeds and attempts, campaign progress, who played which game,
and table chat.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "lobby"


def upgrade() -> None:
    op.add_column("tables", sa.Column("mode", sa.String(40)), schema=SCHEMA)
    op.add_column("tables", sa.Column("mode_day", sa.Date), schema=SCHEMA)
    op.add_column("tables", sa.Column("mode_attempt", sa.Integer), schema=SCHEMA)
    op.add_column("tables", sa.Column("mode_stage", sa.Integer), schema=SCHEMA)
    # A game's solo mode may seat the player alone (opponents 0, where the game's seat counts include 1).
    op.drop_constraint("tables_player_count", "tables", schema=SCHEMA, type_="check")
    op.create_check_constraint("tables_player_count", "tables", "player_count BETWEEN 1 AND 4", schema=SCHEMA)
    op.create_index("tables_running_solo", "tables", ["host_id", "game", "mode"], schema=SCHEMA,
                    postgresql_where=sa.text("is_solo AND status = 'playing'"))
    op.create_table(
        "daily_seeds",
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("mode", sa.String(40), primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        schema=SCHEMA,
    )
    op.create_table(
        "daily_attempts",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("mode", sa.String(40), primary_key=True),
        sa.Column("day", sa.Date, primary_key=True),
        sa.Column("attempt", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.String(32), nullable=False, unique=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint("attempt >= 1", name="daily_attempts_attempt"),
        schema=SCHEMA,
    )
    op.create_table(
        "campaign_progress",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("mode", sa.String(40), primary_key=True),
        sa.Column("stage", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("won_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        schema=SCHEMA,
    )
    op.create_table(
        "game_players",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.UniqueConstraint("game_id", "player_id", name="game_players_one_seat"),
        schema=SCHEMA,
    )
    # Games running or finished before this migration: their humans are the seats of their table now
    # (a table's seats change only when it reopens or waits for a rematch).
    op.execute(
        "INSERT INTO lobby.game_players (game_id, seat, player_id, name, table_id) "
        "SELECT t.game_id, s.seat, s.player_id, s.name, t.table_id FROM lobby.tables t "
        "JOIN lobby.seats s ON s.table_id = t.table_id "
        "WHERE t.game_id IS NOT NULL AND t.status IN ('playing', 'finished') "
        "AND s.kind = 'human' AND s.player_id IS NOT NULL ON CONFLICT DO NOTHING")
    op.create_table(
        "chat_messages",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("text", sa.String(300), nullable=False),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=False),
        schema=SCHEMA,
    )
    op.create_index("chat_messages_by_author", "chat_messages", ["game_id", "player_id", "posted_at"],
                    schema=SCHEMA)


def downgrade() -> None:
    op.drop_table("chat_messages", schema=SCHEMA)
    op.drop_table("game_players", schema=SCHEMA)
    op.drop_table("campaign_progress", schema=SCHEMA)
    op.drop_table("daily_attempts", schema=SCHEMA)
    op.drop_table("daily_seeds", schema=SCHEMA)
    op.drop_index("tables_running_solo", "tables", schema=SCHEMA)
    op.drop_constraint("tables_player_count", "tables", schema=SCHEMA, type_="check")
    op.create_check_constraint("tables_player_count", "tables", "player_count BETWEEN 2 AND 4", schema=SCHEMA)
    for column in ("mode_stage", "mode_attempt", "mode", "mode_day"):
        op.drop_column("tables", column, schema=SCHEMA)
