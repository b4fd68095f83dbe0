"""The ledger's tables in schema `ledger`: accounts, transactions and their postings."""

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
