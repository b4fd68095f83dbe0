"""Stakes held per seat, and seats kept for a rematch ("Nochmal"): table status `rematch`.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "lobby"


def upgrade() -> None:
    op.add_column("tables", sa.Column("rematch_until", sa.DateTime(timezone=True)), schema=SCHEMA)
    op.add_column("seats", sa.Column("stake_key", sa.String(300)), schema=SCHEMA)
    op.add_column("seats", sa.Column("held_until", sa.DateTime(timezone=True)), schema=SCHEMA)
    op.drop_constraint("tables_status", "tables", schema=SCHEMA, type_="check")
    op.create_check_constraint("tables_status", "tables", "status IN ('open', 'playing', 'finished', 'rematch')",
                               schema=SCHEMA)
    op.create_index("tables_rematch_until", "tables", ["rematch_until"], schema=SCHEMA,
                    postgresql_where=sa.text("status = 'rematch'"))


def downgrade() -> None:
    op.drop_index("tables_rematch_until", "tables", schema=SCHEMA)
    op.execute("UPDATE lobby.tables SET status = 'finished' WHERE status = 'rematch'")
    op.drop_constraint("tables_status", "tables", schema=SCHEMA, type_="check")
    op.create_check_constraint("tables_status", "tables", "status IN ('open', 'playing', 'finished')",
                               schema=SCHEMA)
    op.drop_column("seats", "held_until", schema=SCHEMA)
    op.drop_column("seats", "stake_key", schema=SCHEMA)
    op.drop_column("tables", "rematch_until", schema=SCHEMA)
