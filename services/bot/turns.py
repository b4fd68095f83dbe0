"""Computer players at work: take a "your turn" request, decide from that seat's view only, submit."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from typing import Any

from nats.aio.msg import Msg

from libs.platform.consumers import run_pull_consumer
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused, request
from libs.platform.service import Runtime
from libs.platform.streams import BOT_TURNS_STREAM, TABLE_MOVE
from libs.rules import SeededRng
from services.bot import metrics
from services.bot.policies import decide

DURABLE = "bots"


def decision_rng(game_id: str, n: int, seat: int) -> SeededRng:
    """The generator one decision draws from: reproducible for the same game, position and seat."""
    return SeededRng(hashlib.sha256(f"{game_id}:{n}:{seat}".encode()).digest(), "bot")


async def play_turn(runtime: Runtime, turn: dict[str, Any]) -> None:
    """Decide the move for `turn` and submit it; a turn the game has moved past is dropped."""
    game_id, n, seat, level = turn["game_id"], int(turn["n"]), int(turn["seat"]), str(turn["level"])
    started = time.perf_counter()
    move = await asyncio.to_thread(decide, turn["rules"], turn["view"], seat, level, decision_rng(game_id, n, seat))
    metrics.DECISION_SECONDS.labels(level).observe(time.perf_counter() - started)
    pause = runtime.settings.bot_move_delay * float(turn.get("pace", 1.0))
    if pause > 0:
        await asyncio.sleep(pause)
    try:
        await request(runtime.nc, TABLE_MOVE, {
            "game_id": game_id, "seat": seat, "move": move, "expected_n": n,
            "actor": f"bot:{level}", "chosen_by": turn.get("chosen_by", "bot"),
        })
    except CommandRefused as refusal:
        if refusal.code in ("stale", "game_over"):
            metrics.STALE_TURNS.inc()
            return
        raise
    metrics.DECISIONS.labels(turn["rules"], level).inc()
    get_logger(game_id=game_id).debug("bot_moved", seat=seat, n=n, level=level)


async def work_turns(runtime: Runtime) -> None:
    """Worker: take turn requests from the shared work queue until cancelled."""

    async def handle(msg: Msg) -> None:
        await play_turn(runtime, json.loads(msg.data))

    await run_pull_consumer(runtime.js, stream=BOT_TURNS_STREAM, durable=DURABLE, subject="bot.turn.*",
                            handler=handle, concurrency=runtime.settings.bot_concurrency, ack_wait=10.0)
