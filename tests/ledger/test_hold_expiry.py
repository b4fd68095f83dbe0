"""Held stakes expire: a hold that never went into a pot goes back to the wallet `HOLD_TTL_SECONDS` after it
was made (a table never started, a hold whose reply was lost), once, and never one that went into a pot."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from libs.platform.contracts.events import GameSeat, GameStarted, PlatformSettings
from libs.platform.envelope import GENESIS, EventType, new_event
from libs.platform.rpc import CommandRefused, request
from libs.platform.settings import Settings
from services.ledger.app import create_app
from services.ledger.booking import hold_account, pot_account, wallet_account
from services.ledger.models import LedgerTransaction
from services.ledger.stakes import collect_pot, release_expired_holds
from tests.clocks import ShiftedClock
from tests.conftest import running_app
from tests.ledger.conftest import token_for
from tests.ledger.test_stakes import balance_of, release
from tests.ledger.test_stakes import hold as hold_stake

Sessions = async_sessionmaker[AsyncSession]
FundedWallet = Callable[[int], Awaitable[str]]
STAKE = 10


@pytest.fixture(scope="module")
def clock() -> ShiftedClock:
    return ShiftedClock()


@pytest.fixture(scope="module")
async def ledger(settings: Settings, clock: ShiftedClock) -> AsyncIterator[httpx.AsyncClient]:
    """The ledger with its hold sweeper running on a clock the tests move forward."""
    async with running_app(create_app(settings, clock=clock)) as client:
        yield client


@pytest.fixture
def ttl(settings: Settings) -> timedelta:
    return timedelta(seconds=settings.hold_ttl_seconds)


async def hold(nc: NatsClient, table_id: str, player_id: str, round_: int = 1) -> dict[str, Any]:
    """Hold this module's STAKE for the seat (round `round_`)."""
    return await hold_stake(nc, table_id, player_id, STAKE, round_)


async def eventually_balance(sessions: Sessions, account_id: str, expected: int, timeout: float = 30.0) -> None:
    """Wait until the sweeper (every few seconds) has brought `account_id` to `expected`."""
    deadline = time.monotonic() + timeout
    while (balance := await balance_of(sessions, account_id)) != expected:
        assert time.monotonic() < deadline, f"{account_id} stays at {balance}, expected {expected}"
        await asyncio.sleep(0.1)


async def releases_booked(sessions: Sessions, table_id: str, player_id: str, round_: str = "1") -> int:
    async with sessions() as session:
        count = await session.scalar(select(func.count()).select_from(LedgerTransaction).where(
            LedgerTransaction.idempotency_key == f"release:{table_id}:{player_id}:{round_}"))
    return int(count or 0)


async def start_game(sessions: Sessions, table_id: str, player_ids: list[str]) -> str:
    """Collect the pot as the ledger does at the game's `GameStarted`; return the game id."""
    game_id = uuid.uuid4().hex
    seats = [GameSeat(name=f"Mensch {index}", kind="human", player_id=player_id, account="registered")
             for index, player_id in enumerate(player_ids)]
    data = GameStarted(game="speedmosaik", rules="speedmosaik@1", settings={"workshop": "kachelwand"}, seats=seats,
                       table_id=table_id, seed="00" * 32, seed_commitment="0" * 64,
                       platform=PlatformSettings(stake=STAKE)).to_data()
    started = new_event(game_id=game_id, n=1, type=EventType.GAME_STARTED, actor="system", rules="speedmosaik@1",
                        data=data, prev=GENESIS)
    async with sessions() as session, session.begin():
        assert await collect_pot(session, started) is not None
    return game_id


async def test_a_hold_at_a_table_never_started_goes_back_once_its_time_is_up(
    ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet,
    clock: ShiftedClock, ttl: timedelta, settings: Settings,
) -> None:
    player, table = await funded_wallet(100), uuid.uuid4().hex
    await hold(nc, table, player)
    clock.advance(seconds=ttl.total_seconds() - 60)
    async with sessions() as session, session.begin():
        await release_expired_holds(session, clock.now())
    assert await balance_of(sessions, wallet_account(player)) == 90  # a minute before: still held

    clock.advance(minutes=2)
    await eventually_balance(sessions, wallet_account(player), 100)
    assert await balance_of(sessions, hold_account(table, player)) == 0
    history = (await ledger.get("/wallets/me/transactions", headers=token_for(settings, player))).json()
    latest = history["transactions"][0]
    assert (latest["kind"], latest["amount"]) == ("stake_expired", STAKE)
    assert "nicht rechtzeitig gestartet" in latest["memo"]


async def test_a_hold_whose_reply_was_lost_goes_back_and_a_late_release_gives_nothing_twice(
    ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet,
    clock: ShiftedClock, ttl: timedelta,
) -> None:
    # The lobby asked for the hold, the ledger booked it, the reply never arrived and the lobby's
    # compensating release got lost as well: nobody but the ledger knows of this hold.
    player, table = await funded_wallet(100), uuid.uuid4().hex
    await hold(nc, table, player)
    clock.advance(seconds=ttl.total_seconds() + 1)
    await eventually_balance(sessions, wallet_account(player), 100)

    late = await release(nc, table, player)
    assert late == {"released": STAKE, "duplicate": True}
    assert await balance_of(sessions, wallet_account(player)) == 100
    assert await releases_booked(sessions, table, player) == 1
    again = await hold(nc, table, player)  # the same key again changes nothing and holds nothing
    assert (again["held"], again["duplicate"]) == (0, True)
    assert await balance_of(sessions, wallet_account(player)) == 100


async def test_a_hold_that_went_into_a_pot_never_goes_back(
    ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet,
    clock: ShiftedClock, ttl: timedelta,
) -> None:
    anna, ben, table = await funded_wallet(100), await funded_wallet(100), uuid.uuid4().hex
    await hold(nc, table, anna)
    await hold(nc, table, ben)
    game_id = await start_game(sessions, table, [anna, ben])
    clock.advance(seconds=ttl.total_seconds() + 1)
    async with sessions() as session, session.begin():
        await release_expired_holds(session, clock.now())
    assert await balance_of(sessions, pot_account(game_id)) == 2 * STAKE
    assert [await balance_of(sessions, wallet_account(player)) for player in (anna, ben)] == [90, 90]
    assert await releases_booked(sessions, table, anna) == 0


async def test_an_expired_hold_does_not_give_back_the_next_game_s_hold_at_the_same_seat(
    ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet,
    clock: ShiftedClock, ttl: timedelta,
) -> None:
    anna, ben, table = await funded_wallet(100), await funded_wallet(100), uuid.uuid4().hex
    await hold(nc, table, anna, 1)
    await hold(nc, table, ben, 1)
    first_game = await start_game(sessions, table, [anna, ben])
    clock.advance(seconds=ttl.total_seconds() / 2)
    await hold(nc, table, anna, 2)  # "Nochmal": the same hold account holds again

    clock.advance(seconds=ttl.total_seconds() / 2 + 1)  # the first hold's time is up, not the second's
    async with sessions() as session, session.begin():
        await release_expired_holds(session, clock.now())
    assert await balance_of(sessions, hold_account(table, anna)) == STAKE
    assert await balance_of(sessions, wallet_account(anna)) == 80

    clock.advance(seconds=ttl.total_seconds() / 2)
    await eventually_balance(sessions, wallet_account(anna), 90)
    assert await balance_of(sessions, pot_account(first_game)) == 2 * STAKE
    assert await balance_of(sessions, hold_account(table, anna)) == 0


async def test_a_pot_collected_after_the_hold_went_back_plays_that_seat_without_stake(
    ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet,
    clock: ShiftedClock, ttl: timedelta,
) -> None:
    anna, ben, table = await funded_wallet(100), await funded_wallet(100), uuid.uuid4().hex
    await hold(nc, table, anna)
    clock.advance(seconds=ttl.total_seconds() + 1)
    await eventually_balance(sessions, wallet_account(anna), 100)
    await hold(nc, table, ben)
    game_id = await start_game(sessions, table, [anna, ben])
    assert await balance_of(sessions, pot_account(game_id)) == STAKE  # only Ben's stake
    assert [await balance_of(sessions, wallet_account(player)) for player in (anna, ben)] == [100, 90]


async def test_sweepers_and_releases_at_the_same_time_give_each_hold_back_exactly_once(
    ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet,
    clock: ShiftedClock, ttl: timedelta,
) -> None:
    table = uuid.uuid4().hex
    players = [await funded_wallet(100) for _ in range(12)]
    for player in players:
        await hold(nc, table, player)
    later = clock.now() + ttl + timedelta(seconds=1)

    async def sweep() -> None:
        async with sessions() as session, session.begin():
            await release_expired_holds(session, later)

    # Three replicas' sweepers (and the running one's) against the lobby releasing half of the seats.
    await asyncio.gather(*(sweep() for _ in range(3)), *(release(nc, table, player) for player in players[::2]))
    async with sessions() as session, session.begin():
        await release_expired_holds(session, later)
    for player in players:
        assert await balance_of(sessions, wallet_account(player)) == 100
        assert await balance_of(sessions, hold_account(table, player)) == 0
        assert await releases_booked(sessions, table, player) == 1


async def test_a_release_for_a_reason_the_ledger_does_not_know_is_refused_and_gives_nothing_back(
    ledger: httpx.AsyncClient, nc: NatsClient, sessions: Sessions, funded_wallet: FundedWallet,
) -> None:
    player, table = await funded_wallet(100), uuid.uuid4().hex
    await hold(nc, table, player)
    with pytest.raises(CommandRefused) as refused:
        await request(nc, "ledger.cmd.release", {"player_id": player, "table_id": table,
                                                 "key": f"hold:{table}:{player}:1", "because": "weil"})
    assert refused.value.status == 422 and "table_closed" in refused.value.reason
    assert await balance_of(sessions, wallet_account(player)) == 90
