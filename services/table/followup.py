"""What happens after an event is in the log: finish the game, or hand a decision to the computer.

A durable consumer shared by all replicas reads every appended event. Because it acts only on what
is in the log, and acks only after acting, a replica that dies between append and follow-up loses
nothing: JetStream redelivers the event to another replica.

An event of a game of humans only carries the table's hint (followup_hints.py): nobody but humans acts next,
and these clocks run. The follow-up acts on a hint that is the table's own for exactly that message without
folding the event; every other event (no hint, a refused one, a computer to ask, a game to end) is folded.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from nats.aio.msg import Msg

from libs.platform.consumers import run_pull_consumer
from libs.platform.contracts.messages import BotTurn
from libs.platform.contracts.subjects import (
    BOT_TURNS_STREAM,
    GAME_EVENTS,
    GAME_FACTS_STREAM,
    GAME_STARTED_FACT,
    GAMES_STREAM,
    TABLE_FOLLOWUP_DURABLE,
    bot_turn_msg_id,
    bot_turn_subject,
    game_fact_msg_id,
    game_fact_subject,
)
from libs.platform.envelope import Event, EventType
from libs.platform.logging import debug_enabled, get_logger
from libs.platform.nats_client import delivery, stream_sequence
from libs.platform.publishing import publish_patiently
from libs.platform.service import Runtime
from libs.platform.tracing import with_trace
from services.table import metrics
from services.table.followup_hints import HEADER as HINT_HEADER
from services.table.followup_hints import HintRefused
from services.table.games import Games, games_of
from services.table.records import CorruptLog, GameRecord
from services.table.snapshots import SNAPSHOT_EVERY
from services.table.timers import schedule_clocks, start_clocks

FOLLOWUP_CONCURRENCY = 128
"""Events followed up at once per replica: most take microseconds (the cached game is folded on), so a
large batch per fetch keeps the follow-up within a second of the log while commands keep the CPU busy."""
FOLLOWUP_LINGER = 0.02
"""Seconds the follow-up waits after a fetch of a few events (a quiet table): the next few are then followed
up together instead of each waking the follow-up right beside the move that wrote it, which on shared cores
holds up that move's reply (NATS move p50 at one game 0.94 → 0.83 ms, docs/benchmarks.md). Asking a computer
to move or ending a game cuts the wait short, so computers' moves and game ends are followed up at once."""


async def follow_up_events(runtime: Runtime) -> None:
    """Worker: react to every event of every game, once, whichever replica appended it."""
    games = games_of(runtime)
    followed = FollowedOnHints()
    acted = asyncio.Event()  # a computer asked to move or a game ended: their events come back at once

    async def handle(msg: Msg) -> None:
        position = Event.position_in((msg.headers or {}).get("Nats-Msg-Id") or "")
        if position is not None and await follow_hint(runtime, games, followed, msg, position):
            return
        if is_overtaken(games, followed, position):
            return  # the game has moved on and this event is no fact: a later event's follow-up decides
        event = Event.decode(msg.data)
        fact = game_fact_subject(event.type)
        if fact is not None:  # the log is the outbox: ledger, lobby and leaderboard read these copies
            await publish_patiently(runtime.js, fact, msg.data, stream=GAME_FACTS_STREAM,
                                    headers=with_trace({"Nats-Msg-Id": game_fact_msg_id(event.game_id, event.n)}))
        try:
            record = await games.at_event(event, stream_sequence(msg))
        except CorruptLog:
            # Redelivery cannot mend a log; an operator must look at it (the audit endpoint says why).
            get_logger(game_id=event.game_id).error("corrupt_log_skipped", n=event.n)
            return
        if record.n == event.n and (event.type == EventType.GAME_ENDED or event.n % SNAPSHOT_EVERY == 0):
            await games.keep_snapshot(record)
        if record.n != event.n or event.type == EventType.GAME_ENDED:
            return  # a later event's follow-up decides from the newer position
        if record.is_over:
            ended = await games.finish(event.game_id)
            # Once per game, so at info: the game's end in the trace of the move that ended it.
            get_logger(game_id=event.game_id).info("game_ended", n=ended.n)
            acted.set()
            return
        if await request_computer_moves(runtime, record):
            acted.set()
        await start_clocks(runtime, record)

    await run_pull_consumer(runtime.js, stream=GAMES_STREAM, durable=TABLE_FOLLOWUP_DURABLE, subject=GAME_EVENTS,
                            handler=handle, concurrency=FOLLOWUP_CONCURRENCY, ack_wait=5.0,
                            stopping=runtime.stopping, linger=FOLLOWUP_LINGER, wake=acted)


class FollowedOnHints:
    """Per game, the latest event this replica acted on from its hint alone (it holds no record of those games), so
    that an older event of the game handled after it is overtaken, as one its cached record has passed. (Events
    reach a replica in the log's order and their handlers start in that order; a redelivery, which may come late
    and from another replica's share, is folded instead: `follow_hint`.) Bounded to the `size` games most recently
    acted on."""

    def __init__(self, size: int = 20_000) -> None:
        self._latest: OrderedDict[str, int] = OrderedDict()
        self._size = size

    def latest(self, game_id: str) -> int:
        """The latest event of the game acted on from a hint (0: none)."""
        return self._latest.get(game_id, 0)

    def note(self, game_id: str, n: int) -> None:
        """Remember that event `n` of the game was acted on."""
        self._latest[game_id] = n
        self._latest.move_to_end(game_id)
        if len(self._latest) > self._size:
            self._latest.popitem(last=False)


async def follow_hint(runtime: Runtime, games: Games, followed: FollowedOnHints, msg: Msg,
                      position: tuple[str, int]) -> bool:
    """Act on the table's hint beside event `position` (game, n) without folding it; return False when the event
    must be folded instead (no hint, or one that is not the table's own for exactly this message).

    A hinted event leaves nothing for the follow-up to do but copy a GameStarted onto GAME_FACTS and start the
    clocks the hint names: no computer plays at the game, and the game goes on after it; its snapshot (every 16th
    event) is kept by the table that appended it. A redelivered event is folded whatever its hint: it may come after
    later events of its game were handled by another replica, whose acting this one does not know of, and the fold
    reads the game to the log's end, so a stale event sets no clock.
    """
    game_id, n = position
    stored_at, deliveries = delivery(msg)
    if deliveries > 1 and (msg.headers or {}).get(HINT_HEADER) is not None:
        metrics.FOLLOWUP_HINTS.labels("redelivered").inc()
        return False
    try:
        hint = games.hints.read(msg.headers, game_id, n, msg.data, stored_at)
    except HintRefused as refused:
        metrics.FOLLOWUP_HINTS.labels(refused.reason).inc()
        log = get_logger(game_id=game_id)
        if refused.reason == "unknown_key":  # a key rotation under way: folded until every replica has the key
            log.info("followup_hint_refused", n=n, reason=refused.reason)
        else:
            log.warning("followup_hint_refused", n=n, reason=refused.reason)
        return False
    if hint is None:
        metrics.FOLLOWUP_HINTS.labels("none").inc()
        return False
    record = games.cached(game_id)
    if max(record.n if record is not None else 0, followed.latest(game_id)) > n:
        metrics.FOLLOWUP_HINTS.labels("overtaken").inc()
        return True  # a later event was acted on already (its clocks are the newer ones)
    followed.note(game_id, n)
    if record is not None and record.n < n:
        games.forget(game_id)  # behind for good now: a later fold starts from the snapshot instead
    metrics.FOLLOWUP_HINTS.labels("used").inc()
    if n == 1:  # GameStarted (every log's first event): the log is the outbox, as below
        await publish_patiently(runtime.js, GAME_STARTED_FACT, msg.data, stream=GAME_FACTS_STREAM,
                                headers=with_trace({"Nats-Msg-Id": game_fact_msg_id(game_id, n)}))
    await schedule_clocks(runtime, game_id, n, stream_sequence(msg), hint.think_time, hint.clocks)
    return True


def is_overtaken(games: Games, followed: FollowedOnHints, position: tuple[str, int] | None) -> bool:
    """Return True if this replica already holds (or acted on the hint of) a later position of the event's game
    and the event is not GameStarted (event 1); GameEnded is always a game's last event, so it cannot be overtaken.

    Read from the append's de-duplication id (`<game_id>:<n>`), without decoding the event: under load the
    follow-up trails the moves, and most events it is handed are already history.
    """
    if position is None or position[1] == 1:
        return False
    record = games.cached(position[0])
    return (record is not None and record.n > position[1]) or followed.latest(position[0]) > position[1]


def pace_of(record: GameRecord) -> float:
    """How long computers pause before moving, relative to the normal pace (tempo and turbo settings)."""
    platform = record.platform
    if platform.turbo:
        return 0.0
    return 0.5 if platform.tempo == "schnell" else 1.0


async def request_computer_moves(runtime: Runtime, record: GameRecord) -> int:
    """Put a "your turn" request on the bot work queue for every computer seat with an open decision; return
    how many were put there.

    Seats that only may act (answer an offer) are asked too: their policy may choose not to act.
    """
    requested = 0
    for pending in record.engine.pending(record.position):
        seat = pending.seat
        if not record.is_computer_seat(seat):
            continue
        level = record.seats[seat].level or "normal"
        turn = BotTurn(
            game_id=record.game_id, n=record.n, seat=seat, level=level, rules=record.module.rules_id,
            chosen_by="bot" if record.seats[seat].is_bot else "departed", pace=pace_of(record),
            must=pending.must, view=record.engine.view(record.position, seat),
        )
        await publish_patiently(
            runtime.js, bot_turn_subject(record.game_id), turn.encode(), stream=BOT_TURNS_STREAM,
            headers=with_trace({"Nats-Msg-Id": bot_turn_msg_id(record.game_id, record.n, seat)}),
        )
        metrics.BOT_TURNS.inc()
        if debug_enabled():
            get_logger(game_id=record.game_id).debug("bot_turn_requested", seat=seat, n=record.n)
        requested += 1
    return requested
