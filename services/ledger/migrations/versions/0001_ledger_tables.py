"""Accounts, transactions and postings; postings of a transaction must sum to zero at commit.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "ledger"

# Checked at COMMIT (deferred), so a transaction may insert its postings one by one.
BALANCED_FUNCTION = """
CREATE OR REPLACE FUNCTION ledger.check_transaction_balanced() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    tx bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.transaction_id ELSE NEW.transaction_id END;
    total numeric;
BEGIN
    SELECT COALESCE(SUM(amount), 0) INTO total FROM ledger.postings WHERE transaction_id = tx;
    IF total <> 0 THEN
        RAISE EXCEPTION 'postings of ledger transaction % sum to %, not zero', tx, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$
"""

BALANCED_TRIGGER = """
CREATE CONSTRAINT TRIGGER postings_sum_to_zero
AFTER INSERT OR UPDATE OR DELETE ON ledger.postings
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION ledger.check_transaction_balanced()
"""


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(200), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("owner", sa.String(200), nullable=True),
        sa.Column("balance", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint("kind IN ('wallet', 'house', 'grants', 'pot')", name="account_kind_known"),
        sa.CheckConstraint("kind <> 'wallet' OR balance >= 0", name="wallet_never_negative"),
        sa.UniqueConstraint("kind", "owner", name="account_kind_owner_unique"),
        schema=SCHEMA,
    )
    op.create_table(
        "transactions",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("idempotency_key", sa.String(300), nullable=False, unique=True),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("memo", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        schema=SCHEMA,
    )
    op.create_table(
        "postings",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("transaction_id", sa.BigInteger, sa.ForeignKey(f"{SCHEMA}.transactions.id"),
                  nullable=False),
        sa.Column("account_id", sa.String(200), sa.ForeignKey(f"{SCHEMA}.accounts.id"), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.CheckConstraint("amount <> 0", name="posting_amount_not_zero"),
        schema=SCHEMA,
    )
    op.create_index("ix_ledger_postings_transaction_id", "postings", ["transaction_id"], schema=SCHEMA)
    op.create_index("postings_by_account", "postings", ["account_id", "transaction_id"], schema=SCHEMA)
    op.execute(BALANCED_FUNCTION)
    op.execute(BALANCED_TRIGGER)


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS postings_sum_to_zero ON ledger.postings")
    op.execute("DROP FUNCTION IF EXISTS ledger.check_transaction_balanced()")
    op.drop_table("postings", schema=SCHEMA)
    op.drop_table("transactions", schema=SCHEMA)
    op.drop_table("accounts", schema=SCHEMA)
