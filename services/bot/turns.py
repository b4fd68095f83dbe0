"""Computer players at work: take a "your turn" request, decide from that seat's view only, submit."""

from __future__ import annotations

import asyncio
import hashlib
import time

from libs.platform.consumers import decoding, run_pull_consumer
from libs.platform.contracts.commands import MAKE_MOVE, MakeMove
from libs.platform.contracts.messages import BotTurn
from libs.platform.contracts.subjects import BOT_TURNS, BOT_TURNS_DURABLE, BOT_TURNS_STREAM
from libs.platform.logging import get_logger
from libs.platform.rpc import RESEND_AFTER, CommandRefused, call
from libs.platform.service import Runtime
from libs.rules import SeededRng
from services.bot import metrics
from services.bot.policies import decide


def decision_rng(game_id: str, n: int, seat: int) -> SeededRng:
    """The generator one decision draws from: reproducible for the same game, position and seat."""
    return SeededRng(hashlib.sha256(f"{game_id}:{n}:{seat}".encode()).digest(), "bot")


async def play_turn(runtime: Runtime, turn: BotTurn) -> None:
    """Decide the move for `turn` and submit it (a may-act seat may not act); drop a turn the game moved past."""
    started = time.perf_counter()
    move = await asyncio.to_thread(decide, turn.rules, turn.view, turn.seat, turn.level,
                                   decision_rng(turn.game_id, turn.n, turn.seat))
    metrics.DECISION_SECONDS.labels(turn.level).observe(time.perf_counter() - started)
    if move is None:
        # A seat that only may act chose not to (e.g. not to answer an offer): nothing is submitted.
        return
    pause = runtime.settings.bot_move_delay * turn.pace
    if pause > 0:
        await asyncio.sleep(pause)
    try:
        await call(runtime.nc, MAKE_MOVE, MakeMove(
            game_id=turn.game_id, seat=turn.seat, move=move, expected_n=turn.n,
            actor=f"bot:{turn.level}", chosen_by=turn.chosen_by,
        ), attempt=RESEND_AFTER)  # a table replica that died with the move is not waited out: sent again
    except CommandRefused as refusal:
        if refusal.code in ("stale", "game_over"):
            metrics.STALE_TURNS.inc()
            return
        raise
    metrics.DECISIONS.labels(turn.rules, turn.level).inc()
    get_logger(game_id=turn.game_id).debug("bot_moved", seat=turn.seat, n=turn.n, level=turn.level)


async def work_turns(runtime: Runtime) -> None:
    """Worker: take turn requests from the shared work queue until cancelled."""

    async def play(turn: BotTurn) -> None:
        await play_turn(runtime, turn)

    await run_pull_consumer(runtime.js, stream=BOT_TURNS_STREAM, durable=BOT_TURNS_DURABLE, subject=BOT_TURNS,
                            handler=decoding(BotTurn, play, malformed="bot_turn_malformed"),
                            concurrency=runtime.settings.bot_concurrency, ack_wait=10.0,
                            stopping=runtime.stopping)
