"""Held stakes: account kind `hold`; holds and pots never go negative.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "ledger"


def upgrade() -> None:
    op.drop_constraint("account_kind_known", "accounts", schema=SCHEMA, type_="check")
    op.create_check_constraint("account_kind_known", "accounts",
                               "kind IN ('wallet', 'house', 'grants', 'pot', 'hold')", schema=SCHEMA)
    op.create_check_constraint("escrow_never_negative", "accounts",
                               "kind NOT IN ('hold', 'pot') OR balance >= 0", schema=SCHEMA)


def downgrade() -> None:
    op.drop_constraint("escrow_never_negative", "accounts", schema=SCHEMA, type_="check")
    op.drop_constraint("account_kind_known", "accounts", schema=SCHEMA, type_="check")
    op.create_check_constraint("account_kind_known", "accounts",
                               "kind IN ('wallet', 'house', 'grants', 'pot')", schema=SCHEMA)
