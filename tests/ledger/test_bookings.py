"""post_transaction: double entry, idempotency, and wallets that never go below zero."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.ledger.booking import (
    GRANTS_ACCOUNT,
    HOUSE_ACCOUNT,
    Booking,
    InsufficientFunds,
    UnbalancedPostings,
    UnknownAccount,
    find_booking,
    post_transaction,
    wallet_account,
)
from services.ledger.models import Account, LedgerTransaction, Posting

Sessions = async_sessionmaker[AsyncSession]


async def balance_of(sessions: Sessions, account_id: str) -> int:
    async with sessions() as session:
        balance = await session.scalar(select(Account.balance).where(Account.id == account_id))
    assert balance is not None
    return balance


async def spend(sessions: Sessions, player_id: str, amount: int, key: str | None = None) -> Booking:
    async with sessions() as session, session.begin():
        return await post_transaction(session, key or f"spend:{uuid.uuid4().hex}", "stake",
                                      [(wallet_account(player_id), -amount), (HOUSE_ACCOUNT, amount)])


async def test_the_same_key_twice_books_once_and_returns_the_first_booking(
    sessions: Sessions, funded_wallet: Callable[[int], Awaitable[str]]
) -> None:
    player_id = await funded_wallet(500)

    first = await spend(sessions, player_id, 100, key=f"game-1:{player_id}")
    again = await spend(sessions, player_id, 100, key=f"game-1:{player_id}")

    assert not first.is_duplicate
    assert again.is_duplicate
    assert again.transaction_id == first.transaction_id
    assert await balance_of(sessions, wallet_account(player_id)) == 400


async def test_concurrent_duplicates_book_once(
    sessions: Sessions, funded_wallet: Callable[[int], Awaitable[str]]
) -> None:
    player_id = await funded_wallet(500)

    bookings = await asyncio.gather(*(spend(sessions, player_id, 50, key=f"dup:{player_id}") for _ in range(5)))

    assert len({booking.transaction_id for booking in bookings}) == 1
    assert sum(not booking.is_duplicate for booking in bookings) == 1
    assert await balance_of(sessions, wallet_account(player_id)) == 450


async def test_postings_that_do_not_sum_to_zero_are_refused_and_nothing_is_booked(
    sessions: Sessions, funded_wallet: Callable[[int], Awaitable[str]]
) -> None:
    player_id = await funded_wallet(500)
    key = f"unbalanced:{player_id}"

    with pytest.raises(UnbalancedPostings) as refusal:
        async with sessions() as session, session.begin():
            await post_transaction(session, key, "stake", [(wallet_account(player_id), -100), (HOUSE_ACCOUNT, 90)])

    assert "null" in refusal.value.reason
    async with sessions() as session:
        assert await find_booking(session, key) is None
    assert await balance_of(sessions, wallet_account(player_id)) == 500


async def test_the_database_itself_refuses_unbalanced_postings_at_commit(sessions: Sessions) -> None:
    with pytest.raises(DBAPIError, match="not zero"):
        async with sessions() as session, session.begin():
            transaction = LedgerTransaction(idempotency_key=f"raw:{uuid.uuid4().hex}", kind="raw", memo="")
            session.add(transaction)
            await session.flush()
            session.add(Posting(transaction_id=transaction.id, account_id=GRANTS_ACCOUNT, amount=-5))
            session.add(Posting(transaction_id=transaction.id, account_id=HOUSE_ACCOUNT, amount=4))


async def test_spending_more_than_the_wallet_holds_is_refused_with_a_reason(
    sessions: Sessions, funded_wallet: Callable[[int], Awaitable[str]]
) -> None:
    player_id = await funded_wallet(100)

    with pytest.raises(InsufficientFunds) as refusal:
        await spend(sessions, player_id, 101)

    assert refusal.value.reason.startswith("Nicht genug Taler: ")
    assert refusal.value.status == 409
    assert await balance_of(sessions, wallet_account(player_id)) == 100


async def test_a_wallet_can_be_spent_down_to_exactly_zero(
    sessions: Sessions, funded_wallet: Callable[[int], Awaitable[str]]
) -> None:
    player_id = await funded_wallet(100)

    await spend(sessions, player_id, 100)

    assert await balance_of(sessions, wallet_account(player_id)) == 0


async def test_concurrent_spends_never_take_a_wallet_below_zero(
    sessions: Sessions, funded_wallet: Callable[[int], Awaitable[str]]
) -> None:
    player_id = await funded_wallet(1000)

    outcomes = await asyncio.gather(*(spend(sessions, player_id, 300) for _ in range(6)), return_exceptions=True)

    booked = [outcome for outcome in outcomes if isinstance(outcome, Booking)]
    refused = [outcome for outcome in outcomes if isinstance(outcome, InsufficientFunds)]
    assert (len(booked), len(refused)) == (3, 3)
    assert await balance_of(sessions, wallet_account(player_id)) == 100


async def test_the_grants_account_may_go_negative_as_the_money_supply(
    sessions: Sessions, funded_wallet: Callable[[int], Awaitable[str]]
) -> None:
    await funded_wallet(1000)

    assert await balance_of(sessions, GRANTS_ACCOUNT) <= -1000


async def test_posting_to_an_account_never_opened_is_refused(sessions: Sessions) -> None:
    with pytest.raises(UnknownAccount):
        async with sessions() as session, session.begin():
            await post_transaction(session, f"ghost:{uuid.uuid4().hex}", "stake",
                                   [(wallet_account("nobody"), 10), (HOUSE_ACCOUNT, -10)])


async def test_every_balance_equals_the_sum_of_its_postings(sessions: Sessions) -> None:
    async with sessions() as session:
        rows = await session.execute(select(Account.id, Account.balance))
        sums = {account_id: total for account_id, total in await session.execute(
            select(Posting.account_id, func.sum(Posting.amount)).group_by(Posting.account_id)
        )}
    for account_id, balance in rows:
        assert balance == sums.get(account_id, 0), account_id
