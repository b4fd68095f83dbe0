"""Checking the ledger's derived figures against its book (the postings), since the game log cannot rebuild them.

The ledger's book is its transactions and their postings, written by commands (stakes held and paid by the
lobby's requests, wallets opened on registrations, pots settled on game ends) with idempotency keys; much of
it (a stake held for a table that never started, a hold given back on expiry) never appears in any game's
log. So nothing of the ledger is a projection of the game log (docs/rebuild.md). What is derived inside it
are the figures kept beside the postings for fast reads, and those are checked here against the postings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from tools.speed.rebuild_compare import row_text, table_exists

SHOWN = 10

CHECKS: tuple[tuple[str, str], ...] = (
    ("Kontostand ≠ Summe der Buchungen", """
        SELECT a.id, a.balance, COALESCE(SUM(p.amount), 0) AS postings
        FROM ledger.accounts a LEFT JOIN ledger.postings p ON p.account_id = a.id
        GROUP BY a.id, a.balance HAVING a.balance <> COALESCE(SUM(p.amount), 0) ORDER BY a.id"""),
    # A transaction without postings is a recorded decision (e.g. `pot_empty`): it sums to zero as well.
    ("Buchung nicht ausgeglichen (Summe ≠ 0)", """
        SELECT t.id, t.idempotency_key, SUM(p.amount) AS total, COUNT(p.id) AS postings
        FROM ledger.transactions t JOIN ledger.postings p ON p.transaction_id = t.id
        GROUP BY t.id, t.idempotency_key HAVING SUM(p.amount) <> 0 ORDER BY t.id"""),
    ("Haltekonto ≠ Summe der gehaltenen Einsätze", """
        SELECT a.id, a.balance, COALESCE(SUM(h.amount) FILTER (WHERE h.state = 'held'), 0) AS held
        FROM ledger.accounts a LEFT JOIN ledger.holds h ON h.account_id = a.id
        WHERE a.kind = 'hold'
        GROUP BY a.id, a.balance HAVING a.balance <> COALESCE(SUM(h.amount) FILTER (WHERE h.state = 'held'), 0)
        ORDER BY a.id"""),
)
"""(what is wrong, the query returning the rows where it is wrong): every derived figure of the ledger."""


@dataclass
class LedgerCheck:
    """The ledger's derived figures compared with its postings."""

    accounts: int = 0
    transactions: int = 0
    problems: dict[str, list[str]] = field(default_factory=dict)
    """What is wrong -> the rows where it is (as text)."""

    @property
    def equal(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        """The problems as German lines (at most SHOWN rows each)."""
        lines = []
        for what, rows in self.problems.items():
            lines.append(f"{what}: {len(rows)}")
            lines.extend(f"  {row}" for row in rows[:SHOWN])
        return lines


async def ledger_schema_exists(engine: AsyncEngine) -> bool:
    """Whether the ledger's tables exist (its migrations ran)."""
    async with engine.connect() as connection:
        return await table_exists(connection, "ledger.accounts")


async def check_ledger(engine: AsyncEngine) -> LedgerCheck:
    """Check, in one snapshot, every account's balance, every transaction's balance and every hold account."""
    check = LedgerCheck()
    async with engine.connect() as connection:
        await connection.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"))
        check.accounts = int((await connection.execute(text("SELECT COUNT(*) FROM ledger.accounts"))).scalar() or 0)
        check.transactions = int(
            (await connection.execute(text("SELECT COUNT(*) FROM ledger.transactions"))).scalar() or 0)
        for what, query in CHECKS:
            rows = [row_text(dict(row._mapping)) for row in await connection.execute(text(query))]
            if rows:
                check.problems[what] = rows
    return check
