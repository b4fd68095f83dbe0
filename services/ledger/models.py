"""The ledger's tables in schema `ledger`: accounts, transactions and their postings, and held stakes."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Identity,
    Index,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SCHEMA = "ledger"

metadata = MetaData(schema=SCHEMA)


class Base(DeclarativeBase):
    """Declarative base bound to the ledger's schema."""

    metadata = metadata


class AccountKind(StrEnum):
    """What an account is: a wallet, the house, the money supply, a game's pot, or a held stake."""

    WALLET = "wallet"
    HOUSE = "house"
    GRANTS = "grants"
    POT = "pot"
    HOLD = "hold"


# Accounts that can never owe anything: a wallet, a held stake, a pot.
NEVER_NEGATIVE = frozenset({AccountKind.WALLET, AccountKind.HOLD, AccountKind.POT})


class Account(Base):
    """One account; `balance` equals the sum of its postings; wallets, holds and pots are never negative."""

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint("kind IN ('wallet', 'house', 'grants', 'pot', 'hold')", name="account_kind_known"),
        CheckConstraint("kind <> 'wallet' OR balance >= 0", name="wallet_never_negative"),
        CheckConstraint("kind NOT IN ('hold', 'pot') OR balance >= 0", name="escrow_never_negative"),
        UniqueConstraint("kind", "owner", name="account_kind_owner_unique"),
    )

    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    owner: Mapped[str | None] = mapped_column(String(200))
    balance: Mapped[int] = mapped_column(BigInteger, server_default="0")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class LedgerTransaction(Base):
    """A booking; `idempotency_key` names the event that caused it, so it is booked at most once."""

    __tablename__ = "transactions"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    idempotency_key: Mapped[str] = mapped_column(String(300), unique=True)
    kind: Mapped[str] = mapped_column(String(64))
    memo: Mapped[str] = mapped_column(Text, server_default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Posting(Base):
    """One line of a transaction: a signed amount of Taler on one account."""

    __tablename__ = "postings"
    __table_args__ = (
        CheckConstraint("amount <> 0", name="posting_amount_not_zero"),
        Index("postings_by_account", "account_id", "transaction_id"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    transaction_id: Mapped[int] = mapped_column(ForeignKey("transactions.id"), index=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"))
    amount: Mapped[int] = mapped_column(BigInteger)


class HoldState(StrEnum):
    """Where a held stake is: still held, gone into a game's pot, given back on leaving, or given back on expiry."""

    HELD = "held"
    IN_POT = "in_pot"
    RELEASED = "released"
    EXPIRED = "expired"


class Hold(Base):
    """One stake held for a seat under its key, until it goes into a pot or back to the wallet.

    The money sits on the seat's hold account (`hold:<table>:<player>`); the rows tell which hold it belongs
    to, so a hold that already went into a pot is never given back out of a later hold on the same account.
    The `amount` of the rows still `held` on an account sums to that account's balance.
    """

    __tablename__ = "holds"
    __table_args__ = (
        CheckConstraint("state IN ('held', 'in_pot', 'released', 'expired')", name="hold_state_known"),
        CheckConstraint("amount > 0", name="hold_amount_positive"),
        Index("holds_due", "expires_at", postgresql_where=text("state = 'held'")),
        Index("holds_held_by_account", "account_id", "held_at", postgresql_where=text("state = 'held'")),
    )

    key: Mapped[str] = mapped_column(String(300), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"))
    amount: Mapped[int] = mapped_column(BigInteger)
    state: Mapped[str] = mapped_column(String(16), server_default=HoldState.HELD.value)
    held_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # Given back by the ledger's sweeper at this time at the latest, unless it went into a pot before.
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    settled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
