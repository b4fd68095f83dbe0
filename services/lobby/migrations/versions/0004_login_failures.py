"""Failed logins per account name, shared by every lobby replica (the per-account login limit).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "lobby"


def upgrade() -> None:
    op.create_table(
        "login_failures",
        sa.Column("attempt_id", sa.String(32), primary_key=True),
        sa.Column("account_key", sa.String(120), nullable=False),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=False),
        schema=SCHEMA,
    )
    op.create_index("login_failures_account", "login_failures", ["account_key", "failed_at"], schema=SCHEMA)
    op.create_index("login_failures_failed_at", "login_failures", ["failed_at"], schema=SCHEMA)


def downgrade() -> None:
    op.drop_table("login_failures", schema=SCHEMA)
