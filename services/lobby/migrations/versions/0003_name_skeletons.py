"""Players' name skeletons: registered names are unique up to look-alikes (Cyrillic "А", full width, "rn").

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from services.lobby.names import skeleton

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "lobby"


def upgrade() -> None:
    op.add_column("players", sa.Column("name_skeleton", sa.String(120)), schema=SCHEMA)
    connection = op.get_bind()
    rows = connection.execute(sa.text(
        "SELECT player_id, name, kind FROM lobby.players ORDER BY created_at, player_id")).all()
    registered: set[str] = set()
    for player_id, name, kind in rows:
        value = skeleton(name)
        if kind == "registered":
            # Look-alikes registered before this rule keep their accounts (and log in by their exact name);
            # only the first of them owns the skeleton.
            if value in registered:
                value = f"{value}#{player_id}"
            registered.add(value)
        connection.execute(sa.text("UPDATE lobby.players SET name_skeleton = :value WHERE player_id = :id"),
                           {"value": value, "id": player_id})
    op.alter_column("players", "name_skeleton", nullable=False, schema=SCHEMA)
    op.create_index("players_registered_skeleton_key", "players", ["name_skeleton"], unique=True, schema=SCHEMA,
                    postgresql_where=sa.text("kind = 'registered'"))


def downgrade() -> None:
    op.drop_index("players_registered_skeleton_key", "players", schema=SCHEMA)
    op.drop_column("players", "name_skeleton", schema=SCHEMA)
