"""What happens after an event is in the log: finish the game, or hand a decision to the computer.

A durable consumer shared by all replicas reads every appended event. Because it acts only on what
is in the log, and acks only after acting, a replica that dies between append and follow-up loses
nothing: JetStream redelivers the event to another replica.
"""

from __future__ import annotations

import json

from nats.aio.msg import Msg

from libs.platform.consumers import run_pull_consumer
from libs.platform.envelope import Event, EventType
from libs.platform.logging import get_logger
from libs.platform.service import Runtime
from libs.platform.streams import BOT_TURNS_STREAM, GAMES_STREAM, bot_turn_subject
from services.table import metrics
from services.table.games import Games
from services.table.records import CorruptLog, GameRecord
from services.table.timers import start_clocks

DURABLE = "table-followup"


async def follow_up_events(runtime: Runtime) -> None:
    """Worker: react to every event of every game, once, whichever replica appended it."""
    games: Games = runtime.extras["games"]

    async def handle(msg: Msg) -> None:
        event = Event.decode(msg.data)
        try:
            record = await games.load(event.game_id)
        except CorruptLog:
            # Redelivery cannot mend a log; an operator must look at it (the audit endpoint says why).
            get_logger(game_id=event.game_id).error("corrupt_log_skipped", n=event.n)
            return
        if record.n != event.n or event.type == EventType.GAME_ENDED:
            return  # a later event's follow-up decides from the newer position
        if record.is_over:
            await games.finish(event.game_id)
            return
        await request_computer_moves(runtime, record)
        await start_clocks(runtime, record)

    await run_pull_consumer(runtime.js, stream=GAMES_STREAM, durable=DURABLE, subject="game.*.events",
                            handler=handle, concurrency=32, ack_wait=5.0)


def pace_of(record: GameRecord) -> float:
    """How long computers pause before moving, relative to the normal pace (tempo and turbo settings)."""
    if record.platform.get("turbo"):
        return 0.0
    return 0.5 if record.platform.get("tempo") == "schnell" else 1.0


async def request_computer_moves(runtime: Runtime, record: GameRecord) -> None:
    """Put a "your turn" request on the bot work queue for every computer seat that must decide now."""
    for seat in record.module.to_move(record.state):
        if not record.is_computer_seat(seat):
            continue
        level = record.seats[seat].level or "normal"
        payload = {
            "game_id": record.game_id,
            "n": record.n,
            "seat": seat,
            "level": level,
            "rules": record.module.rules_id,
            "chosen_by": "bot" if record.seats[seat].is_bot else "departed",
            "pace": pace_of(record),
            "view": record.module.view(record.state, seat),
        }
        await runtime.js.publish(
            bot_turn_subject(record.game_id), json.dumps(payload).encode(), stream=BOT_TURNS_STREAM,
            headers={"Nats-Msg-Id": f"{record.game_id}:{record.n}:{seat}"},
        )
        metrics.BOT_TURNS.inc()
        get_logger(game_id=record.game_id).debug("bot_turn_requested", seat=seat, n=record.n)
