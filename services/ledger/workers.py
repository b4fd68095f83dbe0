"""The ledger's NATS side: funding wallets on registration, answering balance requests."""

from __future__ import annotations

import json
from typing import Any

from nats.aio.msg import Msg

from libs.platform.consumers import run_pull_consumer
from libs.platform.database import session_factory
from libs.platform.logging import get_logger
from libs.platform.rpc import serve
from libs.platform.service import Runtime
from libs.platform.streams import LOBBY_STREAM, PLAYER_REGISTERED
from services.ledger.handlers import answer_balance, open_wallet_for_registration, player_id_of_registration

BALANCE_SUBJECT = "ledger.cmd.balance"
QUEUE = "ledger"
REGISTRATIONS_DURABLE = "ledger-registrations"


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
