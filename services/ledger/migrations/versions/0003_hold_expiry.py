"""Held stakes expire: one row per hold (its key, amount, state and expiry), so a sweeper can give back the
holds that never went into a pot.

Holds booked before this migration get their rows from the bookings: a hold given back (its release booked)
is `released`; of the others, each hold account's balance is attributed to its newest holds (a pot only ever
takes from holds made before its game started), the older ones count as gone into a pot. The still held
ones expire `HOLD_TTL` after they were made, as new ones do (at the default of two hours).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "ledger"

_BACKFILL = """
WITH held AS (
    SELECT t.idempotency_key AS key, p.account_id, p.amount, t.created_at AS held_at,
           EXISTS (SELECT 1 FROM ledger.transactions AS r
                   WHERE r.idempotency_key = 'release:' || substr(t.idempotency_key, 6)) AS is_released
    FROM ledger.transactions AS t
    JOIN ledger.postings AS p ON p.transaction_id = t.id
    JOIN ledger.accounts AS a ON a.id = p.account_id AND a.kind = 'hold'
    WHERE t.kind = 'stake_held' AND p.amount > 0
), ranked AS (
    SELECT held.*, a.balance,
           COALESCE(SUM(held.amount) FILTER (WHERE NOT held.is_released) OVER (
               PARTITION BY held.account_id ORDER BY held.held_at DESC, held.key DESC
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS newer
    FROM held JOIN ledger.accounts AS a ON a.id = held.account_id
)
INSERT INTO ledger.holds (key, account_id, amount, state, held_at, expires_at, settled_at)
SELECT key, account_id,
       CASE WHEN NOT is_released AND balance - newer > 0 THEN LEAST(amount, balance - newer) ELSE amount END,
       CASE WHEN is_released THEN 'released' WHEN balance - newer > 0 THEN 'held' ELSE 'in_pot' END,
       held_at, held_at + interval '2 hours',
       CASE WHEN NOT is_released AND balance - newer > 0 THEN NULL ELSE now() END
FROM ranked
"""


def upgrade() -> None:
    op.create_table(
        "holds",
        sa.Column("key", sa.String(300), primary_key=True),
        sa.Column("account_id", sa.String(200), sa.ForeignKey(f"{SCHEMA}.accounts.id"), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("state", sa.String(16), nullable=False, server_default="held"),
        sa.Column("held_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True)),
        sa.CheckConstraint("state IN ('held', 'in_pot', 'released', 'expired')", name="hold_state_known"),
        sa.CheckConstraint("amount > 0", name="hold_amount_positive"),
        schema=SCHEMA,
    )
    op.create_index("holds_due", "holds", ["expires_at"], schema=SCHEMA,
                    postgresql_where=sa.text("state = 'held'"))
    op.create_index("holds_held_by_account", "holds", ["account_id", "held_at"], schema=SCHEMA,
                    postgresql_where=sa.text("state = 'held'"))
    op.execute(_BACKFILL)


def downgrade() -> None:
    op.drop_table("holds", schema=SCHEMA)
