"""The ledger's NATS side: funding wallets on registration, balances, stakes, and the games' pots; and the
sweeper that gives back expired holds."""

from __future__ import annotations

from datetime import timedelta

from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

from libs.platform.clock import clock_of
from libs.platform.consumers import run_pull_consumer
from libs.platform.contracts.base import ContractError
from libs.platform.contracts.commands import (
    BALANCE,
    GAME_POT,
    HOLD_STAKE,
    READ_GAME_STARTED,
    RELEASE_STAKE,
    Balance,
    BalanceQuery,
    GameStartedQuery,
    HoldStake,
    Pot,
    PotQuery,
    ReleaseStake,
    StakeHeld,
    StakeReleased,
)
from libs.platform.contracts.events import PlayerRegistered
from libs.platform.contracts.subjects import (
    GAME_FACTS,
    GAME_FACTS_STREAM,
    GAMES_STREAM,
    LEDGER_GAMES_DURABLE,
    LEDGER_REGISTRATIONS_DURABLE,
    LOBBY_STREAM,
    PLAYER_REGISTERED,
    game_subject,
)
from libs.platform.database import session_factory
from libs.platform.envelope import Event, EventType
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused, answer, call
from libs.platform.service import Runtime
from services.ledger.handlers import answer_balance, open_wallet_for_registration
from services.ledger.stakes import (
    StartedLoader,
    collect_pot,
    hold_stake,
    read_pot,
    release_expired_holds,
    release_stake,
    settle_game,
)

# How often the sweeper looks for expired holds: a hold goes back at most this long after it expired.
HOLD_SWEEP_INTERVAL = 5.0


async def consume_registrations(runtime: Runtime) -> None:
    """Give every newly registered player a wallet with the starting balance, exactly once."""
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)
    log = get_logger(worker="registrations")

    async def handle(msg: Msg) -> None:
        try:
            registered = PlayerRegistered.decode(msg.data)
            if not registered.player_id:
                raise ContractError("Die Nachricht player_registered ist ungültig: „player_id“ ist leer.")
        except ContractError as error:
            # Redelivering cannot repair a malformed fact: log it and let it be acked.
            log.error("registration_malformed", data=msg.data[:200].decode(errors="replace"), problem=error.reason)
            return
        async with sessions() as session, session.begin():
            booking = await open_wallet_for_registration(
                session, registered.player_id, runtime.settings.starting_balance
            )
        log.info("wallet_opened", player_id=registered.player_id,
                 duplicate=booking.is_duplicate if booking is not None else False)

    await run_pull_consumer(runtime.js, stream=LOBBY_STREAM, durable=LEDGER_REGISTRATIONS_DURABLE,
                            subject=PLAYER_REGISTERED, handler=handle, stopping=runtime.stopping)


async def serve_balance_requests(runtime: Runtime) -> None:
    """Answer `ledger.cmd.balance` requests for other services (queue group `ledger`)."""
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)

    async def handle(query: BalanceQuery) -> Balance:
        async with sessions() as session:
            return await answer_balance(session, query)

    await answer(runtime.nc, BALANCE, handle)


async def serve_stake_requests(runtime: Runtime) -> None:
    """Answer `ledger.cmd.hold`, `ledger.cmd.release` and `ledger.cmd.pot` from the lobby (queue group `ledger`)."""
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)
    clock = clock_of(runtime)
    ttl = timedelta(seconds=runtime.settings.hold_ttl_seconds)

    async def hold(command: HoldStake) -> StakeHeld:
        async with sessions() as session, session.begin():
            return await hold_stake(session, command, clock.now(), ttl)

    async def release(command: ReleaseStake) -> StakeReleased:
        async with sessions() as session, session.begin():
            return await release_stake(session, command, clock.now())

    async def pot(query: PotQuery) -> Pot:
        async with sessions() as session:
            return await read_pot(session, query)

    await answer(runtime.nc, HOLD_STAKE, hold)
    await answer(runtime.nc, RELEASE_STAKE, release)
    await answer(runtime.nc, GAME_POT, pot)


def started_loader(js: JetStreamContext, nc: NatsClient) -> StartedLoader:
    """Return a loader of a game's `GameStarted` (its log's first event): from the GAMES stream, or, once the
    game's subject was purged into the table's archive (docs/archive.md), from the table (`table.cmd.started`).

    Needed when a `GameEnded` fact is handled before its game's `GameStarted` fact (handled concurrently, or
    the start nak'ed for redelivery, or the ledger catching up after an outage longer than the archive's grace).
    The log, not GAME_FACTS, is where one game's start can be looked up directly, and it is the source of truth.
    None only when no such game exists; a table that cannot answer now raises, so the end is handled again later
    instead of being settled without its pot.
    """

    async def load(game_id: str) -> Event | None:
        try:
            stored = await js.get_msg(GAMES_STREAM, seq=1, subject=game_subject(game_id), next=True)
            event = Event.decode(stored.data or b"{}")
        except NotFoundError:
            try:
                event = Event(**await call(nc, READ_GAME_STARTED, GameStartedQuery(game_id=game_id)))
            except CommandRefused as refused:
                if refused.status == 404:
                    return None
                raise
        return event if event.type == EventType.GAME_STARTED and event.game_id == game_id else None

    return load


async def consume_game_events(runtime: Runtime) -> None:
    """Collect each stake game's pot at `GameStarted` and pay it out at `GameEnded`, each exactly once.

    Reads the table's copies of both on GAME_FACTS (the log's exact event bytes), never the moves; a copy
    delivered twice books nothing twice (each step has its idempotency key).
    """
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)
    load_started = started_loader(runtime.js, runtime.nc)
    log = get_logger(worker="game_pots")

    async def handle(msg: Msg) -> None:
        try:
            event = Event.decode(msg.data)
        except (ValueError, TypeError):
            return  # not an event (redelivery cannot change that)
        if not isinstance(event.data, dict):
            return
        # PlayerLeft moves nothing: the leaver's stake stays in the pot and GameEnded names who left.
        try:
            if event.type == EventType.GAME_STARTED:
                async with sessions() as session, session.begin():
                    booking = await collect_pot(session, event)
                if booking is not None:
                    log.info("pot_collected", game_id=event.game_id, postings=len(booking.postings),
                             duplicate=booking.is_duplicate)
            elif event.type == EventType.GAME_ENDED:
                async with sessions() as session, session.begin():
                    booking = await settle_game(session, event, load_started)
                if booking is not None:
                    log.info("pot_paid", game_id=event.game_id, kind=booking.kind, duplicate=booking.is_duplicate)
        except ContractError as error:
            # Redelivering cannot repair a malformed event: log it loudly and let it be acked.
            log.error("game_event_malformed", game_id=event.game_id, n=event.n, type=event.type,
                      problem=error.reason)

    await run_pull_consumer(runtime.js, stream=GAME_FACTS_STREAM, durable=LEDGER_GAMES_DURABLE, subject=GAME_FACTS,
                            handler=handle, concurrency=8, stopping=runtime.stopping)


async def sweep_expired_holds(runtime: Runtime) -> None:
    """Every few seconds: give back the holds whose time ran out without going into a pot (all replicas)."""
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)
    clock = clock_of(runtime)
    log = get_logger(worker="hold_sweeper")
    while True:
        try:
            async with sessions() as session, session.begin():
                released = await release_expired_holds(session, clock.now())
            if released:
                log.info("holds_expired", released=released)
                continue  # there may be more than one batch due
        except Exception:
            log.warning("hold_sweep_failed", exc_info=True)
        if not await runtime.pause(HOLD_SWEEP_INTERVAL):
            return
