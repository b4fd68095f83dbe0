"""HTTP: a player's own wallet and its history."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from libs.platform.database import session_factory
from libs.platform.http_errors import refusals
from libs.platform.http_params import Offset
from libs.platform.service import CurrentPlayer, Runtime, RuntimeDep
from services.ledger.handlers import read_history, read_wallet, wallet_owner

router = APIRouter(prefix="/wallets", tags=["wallets"], responses=refusals(403, 404))


class WalletOut(BaseModel):
    """A wallet's balance in Taler."""

    player_id: str
    balance: int


class TransactionOut(BaseModel):
    """One booking on the wallet; `balance_after` is the wallet's balance right after it."""

    transaction_id: int
    kind: str
    memo: str
    amount: int
    balance_after: int
    booked_at: datetime


class HistoryOut(BaseModel):
    """A page of the wallet's history, newest first."""

    player_id: str
    balance: int
    limit: int
    offset: int
    transactions: list[TransactionOut]


async def _wallet(runtime: Runtime, player_id: str) -> WalletOut:
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        wallet = await read_wallet(session, player_id)
    return WalletOut(player_id=wallet.player_id, balance=wallet.balance)


@router.get("/me", response_model=WalletOut)
async def get_my_wallet(runtime: RuntimeDep, identity: CurrentPlayer) -> WalletOut:
    """The caller's balance; 404 for guests (they play without stakes) and for unknown wallets."""
    return await _wallet(runtime, wallet_owner(identity))


@router.get("/me/transactions", response_model=HistoryOut)
async def get_my_transactions(
    runtime: RuntimeDep,
    identity: CurrentPlayer,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Offset = 0,
) -> HistoryOut:
    """The caller's bookings, newest first, each with the running balance."""
    player_id = wallet_owner(identity)
    assert runtime.engine is not None
    async with session_factory(runtime.engine)() as session:
        wallet = await read_wallet(session, player_id)
        lines = await read_history(session, player_id, limit, offset)
    return HistoryOut(player_id=player_id, balance=wallet.balance, limit=limit, offset=offset,
                      transactions=[TransactionOut(**line.__dict__) for line in lines])


@router.get("/{player_id}", response_model=WalletOut)
async def get_wallet(player_id: str, runtime: RuntimeDep, identity: CurrentPlayer) -> WalletOut:
    """A wallet by player id: only its owner may read it (403 otherwise)."""
    return await _wallet(runtime, wallet_owner(identity, player_id))
