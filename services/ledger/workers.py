"""The ledger's NATS side: funding wallets on registration, balances, stakes, and the game logs' pots."""

from __future__ import annotations

import json
from typing import Any

from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

from libs.platform.consumers import run_pull_consumer
from libs.platform.database import session_factory
from libs.platform.envelope import Event, EventType
from libs.platform.logging import get_logger
from libs.platform.rpc import serve
from libs.platform.service import Runtime
from libs.platform.streams import GAMES_STREAM, LOBBY_STREAM, PLAYER_REGISTERED, game_subject
from services.ledger.handlers import answer_balance, open_wallet_for_registration, player_id_of_registration
from services.ledger.stakes import (
    StartedLoader,
    collect_pot,
    hold_stake,
    parse_stake_command,
    release_stake,
    settle_game,
)

BALANCE_SUBJECT = "ledger.cmd.balance"
HOLD_SUBJECT = "ledger.cmd.hold"
RELEASE_SUBJECT = "ledger.cmd.release"
QUEUE = "ledger"
REGISTRATIONS_DURABLE = "ledger-registrations"
GAMES_DURABLE = "ledger-games"
GAME_EVENTS = "game.*.events"


async def consume_registrations(runtime: Runtime) -> None:
    """Give every newly registered player a wallet with the starting balance, exactly once."""
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)
    log = get_logger(worker="registrations")

    async def handle(msg: Msg) -> None:
        try:
            payload = json.loads(msg.data)
        except ValueError:
            payload = None
        player_id = player_id_of_registration(payload)
        if player_id is None:
            # Redelivering cannot repair a malformed fact: log it and let it be acked.
            log.error("registration_malformed", data=msg.data[:200].decode(errors="replace"))
            return
        async with sessions() as session, session.begin():
            booking = await open_wallet_for_registration(
                session, player_id, runtime.settings.starting_balance
            )
        log.info("wallet_opened", player_id=player_id,
                 duplicate=booking.is_duplicate if booking is not None else False)

    await run_pull_consumer(runtime.js, stream=LOBBY_STREAM, durable=REGISTRATIONS_DURABLE,
                            subject=PLAYER_REGISTERED, handler=handle)


async def serve_balance_requests(runtime: Runtime) -> None:
    """Answer `ledger.cmd.balance` requests for other services (queue group `ledger`)."""
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)

    async def handle(payload: dict[str, Any]) -> dict[str, Any]:
        async with sessions() as session:
            return await answer_balance(session, payload)

    await serve(runtime.nc, BALANCE_SUBJECT, QUEUE, handle)


async def serve_stake_requests(runtime: Runtime) -> None:
    """Answer `ledger.cmd.hold` and `ledger.cmd.release` from the lobby (queue group `ledger`)."""
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)

    async def hold(payload: dict[str, Any]) -> dict[str, Any]:
        command = parse_stake_command(payload, with_amount=True)
        async with sessions() as session, session.begin():
            return await hold_stake(session, command)

    async def release(payload: dict[str, Any]) -> dict[str, Any]:
        command = parse_stake_command(payload, with_amount=False)
        async with sessions() as session, session.begin():
            return await release_stake(session, command)

    await serve(runtime.nc, HOLD_SUBJECT, QUEUE, hold)
    await serve(runtime.nc, RELEASE_SUBJECT, QUEUE, release)


def started_loader(js: JetStreamContext) -> StartedLoader:
    """Return a loader of a game's `GameStarted` (its log's first event) from the GAMES stream."""

    async def load(game_id: str) -> Event | None:
        try:
            stored = await js.get_msg(GAMES_STREAM, seq=1, subject=game_subject(game_id), next=True)
        except NotFoundError:
            return None
        event = Event.decode(stored.data or b"{}")
        return event if event.type == EventType.GAME_STARTED and event.game_id == game_id else None

    return load


async def consume_game_events(runtime: Runtime) -> None:
    """Collect each stake game's pot at `GameStarted` and pay it out at `GameEnded`, each exactly once."""
    assert runtime.engine is not None
    sessions = session_factory(runtime.engine)
    load_started = started_loader(runtime.js)
    log = get_logger(worker="game_pots")

    async def handle(msg: Msg) -> None:
        try:
            event = Event.decode(msg.data)
        except (ValueError, TypeError):
            return  # not an event (redelivery cannot change that)
        if not isinstance(event.data, dict):
            return
        # PlayerLeft moves nothing: the leaver's stake stays in the pot and GameEnded names who left.
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

    await run_pull_consumer(runtime.js, stream=GAMES_STREAM, durable=GAMES_DURABLE, subject=GAME_EVENTS,
                            handler=handle, concurrency=8)
