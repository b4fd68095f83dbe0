"""What the ledger does for players and other services: open funded wallets, report balances and history."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.auth import Identity, PlayerKind
from libs.platform.contracts.commands import Balance, BalanceQuery
from libs.platform.rpc import CommandRefused
from services.ledger.booking import (
    GRANTS_ACCOUNT,
    Booking,
    open_account,
    open_system_accounts,
    post_transaction,
    wallet_account,
)
from services.ledger.models import Account, AccountKind

STARTING_GRANT = "starting_grant"


class NoWallet(CommandRefused):
    """The player has no wallet: a guest, or a registration the ledger has not seen yet."""

    def __init__(self, reason: str) -> None:
        super().__init__(404, reason, "no_wallet")


class NotYourWallet(CommandRefused):
    """Only the wallet's owner may read it."""

    def __init__(self) -> None:
        super().__init__(403, "Du kannst nur deine eigene Geldbörse ansehen.", "forbidden")


@dataclass(frozen=True)
class Wallet:
    """A player's wallet as the player sees it."""

    player_id: str
    balance: int


@dataclass(frozen=True)
class HistoryLine:
    """One transaction on a wallet, with the wallet's balance right after it."""

    transaction_id: int
    kind: str
    memo: str
    amount: int
    balance_after: int
    booked_at: datetime


def registration_key(player_id: str) -> str:
    """The idempotency key of a player's starting grant: the registration event."""
    return f"registered:{player_id}"


async def open_wallet_for_registration(
    session: AsyncSession, player_id: str, starting_balance: int
) -> Booking | None:
    """Open the player's wallet and fund it once with `starting_balance` Taler from the grants account."""
    await open_system_accounts(session)
    wallet = wallet_account(player_id)
    await open_account(session, wallet, AccountKind.WALLET, player_id)
    if starting_balance <= 0:
        return None
    return await post_transaction(
        session, registration_key(player_id), STARTING_GRANT,
        [(GRANTS_ACCOUNT, -starting_balance), (wallet, starting_balance)], memo="Startguthaben",
    )


async def read_wallet(session: AsyncSession, player_id: str) -> Wallet:
    """Return the player's wallet, or refuse with 404."""
    balance = await session.scalar(select(Account.balance).where(Account.id == wallet_account(player_id)))
    if balance is None:
        raise NoWallet("Für dich gibt es keine Geldbörse – ist deine Registrierung abgeschlossen?")
    return Wallet(player_id=player_id, balance=balance)


def wallet_owner(identity: Identity, player_id: str | None = None) -> str:
    """Return whose wallet `identity` may read: its own, never a guest's, never someone else's."""
    if player_id is not None and player_id != identity.player_id:
        raise NotYourWallet()
    if identity.kind == PlayerKind.GUEST:
        raise NoWallet("Gäste spielen ohne Einsatz und haben keine Geldbörse.")
    return identity.player_id


_HISTORY = text("""
SELECT transaction_id, kind, memo, amount, balance_after, booked_at FROM (
    SELECT t.id AS transaction_id, t.kind, t.memo, t.created_at AS booked_at, p.amount,
           SUM(p.amount) OVER (ORDER BY t.id) AS balance_after
    FROM (SELECT transaction_id, SUM(amount) AS amount FROM ledger.postings
          WHERE account_id = :account GROUP BY transaction_id) AS p
    JOIN ledger.transactions AS t ON t.id = p.transaction_id
) AS history
ORDER BY transaction_id DESC
LIMIT :limit OFFSET :offset
""")


async def read_history(session: AsyncSession, player_id: str, limit: int, offset: int) -> list[HistoryLine]:
    """Return the wallet's transactions, newest first, each with the balance right after it."""
    rows = await session.execute(_HISTORY, {"account": wallet_account(player_id), "limit": limit,
                                            "offset": offset})
    return [HistoryLine(transaction_id=row.transaction_id, kind=row.kind, memo=row.memo,
                        amount=int(row.amount), balance_after=int(row.balance_after), booked_at=row.booked_at)
            for row in rows]


async def answer_balance(session: AsyncSession, query: BalanceQuery) -> Balance:
    """Answer `ledger.cmd.balance`: the wallet's balance, 404 without a wallet."""
    if not query.player_id:
        raise CommandRefused(422, "Die Anfrage braucht eine player_id.", "malformed")
    wallet = await read_wallet(session, query.player_id)
    return Balance(balance=wallet.balance)
