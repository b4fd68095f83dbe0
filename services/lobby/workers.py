"""The lobby's background workers: following game ends (tables finished, campaign stages won), freeing rematch
seats, re-publishing registrations. The daily seeds' worker is services/lobby/daily.publish_daily_seeds."""

from __future__ import annotations

from nats.aio.msg import Msg
from sqlalchemy import select, text

from libs.platform.clock import clock_of
from libs.platform.consumers import run_pull_consumer
from libs.platform.contracts.base import ContractError
from libs.platform.contracts.events import GameEnded
from libs.platform.contracts.subjects import GAME_ENDED_FACT, GAME_FACTS_STREAM, LOBBY_GAME_ENDS_DURABLE
from libs.platform.envelope import Event, EventType
from libs.platform.logging import get_logger
from libs.platform.service import Runtime
from services.lobby.database import sessions_of
from services.lobby.facts import publish_registration
from services.lobby.models import Player
from services.lobby.modes import record_campaign_win
from services.lobby.tables import (
    close_stale_stake_tables,
    finish_game,
    reopen_expired_rematches,
    start_deferred_rematches,
)

OUTBOX_INTERVAL = 2.0
REMATCH_SWEEP_INTERVAL = 2.0
# Registrations younger than this are still being published by their own request.
OUTBOX_GRACE = "5 seconds"


async def track_game_ends(runtime: Runtime) -> None:
    """Mark a table `finished` when its game's `GameEnded` arrives (idempotent; shared by replicas).

    Reads only the table's copies of `GameEnded` on GAME_FACTS, never the moves of the games.
    """

    async def handle(msg: Msg) -> None:
        await record_game_end(runtime, msg.data)

    await run_pull_consumer(runtime.js, stream=GAME_FACTS_STREAM, durable=LOBBY_GAME_ENDS_DURABLE,
                            subject=GAME_ENDED_FACT, handler=handle, concurrency=8, stopping=runtime.stopping)


async def record_game_end(runtime: Runtime, raw: bytes) -> None:
    """Apply one game-end fact (a log event's bytes): only `GameEnded` with a `data.table_id` changes anything."""
    try:
        event = Event.decode(raw)
    except (ValueError, TypeError):
        return  # not an event of ours; nothing to do, never redeliver
    if event.type != EventType.GAME_ENDED:
        return
    try:
        ended = GameEnded.of(event)
    except ContractError as error:
        # Redelivering cannot repair a malformed event: log it and let it be acked.
        get_logger(game_id=event.game_id).error("game_ended_malformed", n=event.n, problem=error.reason)
        return
    if not ended.table_id or not event.game_id:
        return
    changed = await finish_game(runtime, ended.table_id, event.game_id)
    # A campaign's stage won: recorded whatever the table's state (a given-up game is finished already).
    stages_won = await record_campaign_win(runtime, ended, event.game_id)
    get_logger(table_id=ended.table_id, game_id=event.game_id).info(
        "game_ended", table_marked_finished=changed, stages_won=stages_won)


async def sweep_rematches(runtime: Runtime) -> None:
    """Every few seconds: reopen tables whose kept seats ran out, start rematches whose start was deferred, and
    close stake tables left open too long (their stakes go back).

    Reads and joins free expired seats too; this sweep makes the two minutes hold even when nobody looks.
    """
    log = get_logger(worker="rematch_sweeper")
    while True:
        try:
            reopened = await reopen_expired_rematches(runtime)
            started = await start_deferred_rematches(runtime)
            closed = await close_stale_stake_tables(runtime, clock_of(runtime).now())
            if reopened or started or closed:
                log.info("rematches_swept", reopened=reopened, started=started, stale_stake_tables_closed=closed)
        except Exception:
            log.warning("rematch_sweep_failed", exc_info=True)
        if not await runtime.pause(REMATCH_SWEEP_INTERVAL):
            return


async def publish_pending_registrations(runtime: Runtime) -> None:
    """Outbox: publish registration facts whose publish after sign-up failed, until each is out."""
    log = get_logger(worker="registration_outbox")
    while True:
        try:
            await publish_registrations_once(runtime)
        except Exception:
            log.warning("registration_outbox_failed", exc_info=True)
        if not await runtime.pause(OUTBOX_INTERVAL):
            return


async def publish_registrations_once(runtime: Runtime, grace: str = OUTBOX_GRACE) -> int:
    """Publish every overdue unpublished registration once; return how many were published."""
    async with sessions_of(runtime).begin() as session:
        pending = (await session.execute(
            select(Player)
            .where(Player.kind == "registered", Player.registration_published_at.is_(None),
                   Player.created_at < text(f"now() - interval '{grace}'"))
            .order_by(Player.created_at).limit(100).with_for_update(skip_locked=True))).scalars().all()
        for player in pending:
            await publish_registration(runtime.js, session, player)
    return len(pending)
