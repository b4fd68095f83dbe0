"""Double-entry bookkeeping: accounts and the one way money moves, `post_transaction`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.rpc import CommandRefused
from services.ledger.metrics import DUPLICATES_IGNORED, TRANSACTIONS_BOOKED
from services.ledger.models import NEVER_NEGATIVE, Account, AccountKind, LedgerTransaction, Posting

GRANTS_ACCOUNT = "grants"
HOUSE_ACCOUNT = "house"


class UnbalancedPostings(CommandRefused):
    """The postings of a transaction do not sum to zero (or are empty)."""

    def __init__(self, reason: str) -> None:
        super().__init__(422, reason, "unbalanced")


class InsufficientFunds(CommandRefused):
    """A wallet would go below zero."""

    def __init__(self, reason: str) -> None:
        super().__init__(409, reason, "insufficient_funds")


class UnknownAccount(CommandRefused):
    """A posting names an account that was never opened."""

    def __init__(self, account_id: str) -> None:
        super().__init__(404, f"Das Konto „{account_id}“ gibt es nicht.", "unknown_account")


@dataclass(frozen=True)
class Booking:
    """A booked transaction; `is_duplicate` says the key was booked before and this is that first booking."""

    transaction_id: int
    idempotency_key: str
    kind: str
    memo: str
    created_at: datetime
    postings: tuple[tuple[str, int], ...]
    is_duplicate: bool = False


def wallet_account(player_id: str) -> str:
    """The account id of a player's wallet."""
    return f"wallet:{player_id}"


def pot_account(game_id: str) -> str:
    """The account id of a game's pot."""
    return f"pot:{game_id}"


def hold_account(table_id: str, player_id: str) -> str:
    """The account id of the stake a player has held at a table (escrow until the game starts)."""
    return f"hold:{table_id}:{player_id}"


async def open_account(session: AsyncSession, account_id: str, kind: AccountKind, owner: str | None) -> None:
    """Make sure the account exists (opening an existing account changes nothing)."""
    await session.execute(
        insert(Account)
        .values(id=account_id, kind=kind.value, owner=owner, balance=0)
        .on_conflict_do_nothing(index_elements=[Account.id])
    )


async def open_system_accounts(session: AsyncSession) -> None:
    """Make sure the money supply (`grants`, may go negative) and the house account exist."""
    await open_account(session, GRANTS_ACCOUNT, AccountKind.GRANTS, None)
    await open_account(session, HOUSE_ACCOUNT, AccountKind.HOUSE, None)


def _checked_postings(postings: Sequence[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    lines = tuple((str(account), int(amount)) for account, amount in postings)
    if not lines:
        raise UnbalancedPostings("Eine Buchung braucht mindestens zwei Posten.")
    if any(amount == 0 for _, amount in lines):
        raise UnbalancedPostings("Ein Posten über 0 Taler ist keine Buchung.")
    total = sum(amount for _, amount in lines)
    if total != 0:
        raise UnbalancedPostings(f"Die Posten einer Buchung müssen sich zu null ergänzen, nicht zu {total}.")
    return lines


async def post_transaction(
    session: AsyncSession,
    idempotency_key: str,
    kind: str,
    postings: Sequence[tuple[str, int]],
    memo: str = "",
) -> Booking:
    """Book `postings` once per `idempotency_key` inside the session's transaction, or refuse.

    A key booked before returns that first booking (even if booked concurrently: the UNIQUE key makes the
    second insert wait and then find it). Refuses postings that don't sum to zero and any posting that
    would take a wallet below zero; the caller commits.
    """
    lines = _checked_postings(postings)
    async with session.begin_nested():
        inserted = await session.execute(
            insert(LedgerTransaction)
            .values(idempotency_key=idempotency_key, kind=kind, memo=memo)
            .on_conflict_do_nothing(index_elements=[LedgerTransaction.idempotency_key])
            .returning(LedgerTransaction.id, LedgerTransaction.created_at)
        )
        row = inserted.first()
        if row is None:
            DUPLICATES_IGNORED.labels(kind).inc()
            first = await find_booking(session, idempotency_key)
            assert first is not None  # the conflicting row is committed, or the insert would have waited
            return replace(first, is_duplicate=True)
        transaction_id, created_at = row
        await _move_balances(session, lines)
        session.add_all(Posting(transaction_id=transaction_id, account_id=account, amount=amount)
                        for account, amount in lines)
        await session.flush()
    TRANSACTIONS_BOOKED.labels(kind).inc()
    return Booking(transaction_id=transaction_id, idempotency_key=idempotency_key, kind=kind, memo=memo,
                   created_at=created_at, postings=lines)


async def _move_balances(session: AsyncSession, lines: tuple[tuple[str, int], ...]) -> None:
    change: dict[str, int] = {}
    for account_id, amount in lines:
        change[account_id] = change.get(account_id, 0) + amount
    # Locks in a fixed order, so two bookings over the same accounts never deadlock.
    locked = await session.scalars(
        select(Account).where(Account.id.in_(change)).order_by(Account.id)
        .with_for_update().execution_options(populate_existing=True)
    )
    accounts = {account.id: account for account in locked}
    for account_id in sorted(change):
        account = accounts.get(account_id)
        if account is None:
            raise UnknownAccount(account_id)
        new_balance = account.balance + change[account_id]
        if account.kind in NEVER_NEGATIVE and new_balance < 0:
            raise InsufficientFunds(
                f"Nicht genug Taler: Guthaben {account.balance} Taler, benötigt {-change[account_id]} Taler."
            )
        account.balance = new_balance


async def record_decision(session: AsyncSession, idempotency_key: str, kind: str, memo: str = "") -> Booking:
    """Book a transaction without postings under `idempotency_key`: "decided, nothing moved", once.

    It takes the key, so a later booking under the same key (e.g. a redelivered event) finds this
    decision instead of moving money.
    """
    async with session.begin_nested():
        inserted = await session.execute(
            insert(LedgerTransaction)
            .values(idempotency_key=idempotency_key, kind=kind, memo=memo)
            .on_conflict_do_nothing(index_elements=[LedgerTransaction.idempotency_key])
            .returning(LedgerTransaction.id, LedgerTransaction.created_at)
        )
        row = inserted.first()
    if row is None:
        DUPLICATES_IGNORED.labels(kind).inc()
        first = await find_booking(session, idempotency_key)
        assert first is not None
        return replace(first, is_duplicate=True)
    TRANSACTIONS_BOOKED.labels(kind).inc()
    return Booking(transaction_id=row[0], idempotency_key=idempotency_key, kind=kind, memo=memo,
                   created_at=row[1], postings=())


async def find_booking(session: AsyncSession, idempotency_key: str) -> Booking | None:
    """Return the booking made under `idempotency_key`, or None."""
    transaction = await session.scalar(
        select(LedgerTransaction).where(LedgerTransaction.idempotency_key == idempotency_key)
    )
    if transaction is None:
        return None
    lines = await session.execute(
        select(Posting.account_id, Posting.amount)
        .where(Posting.transaction_id == transaction.id).order_by(Posting.id)
    )
    return Booking(transaction_id=transaction.id, idempotency_key=transaction.idempotency_key,
                   kind=transaction.kind, memo=transaction.memo, created_at=transaction.created_at,
                   postings=tuple((account, amount) for account, amount in lines))
