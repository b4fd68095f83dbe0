"""Think time per decision: durable deadlines on JetStream, and the computer deciding when one passes.

Each time a human seat must decide, its clock starts: a message schedule on `timer.set.<game>.<seat>`
(replacing any earlier one) fires onto `timer.fire.<game>.<seat>` after the think time plus 10 s of
grace. A fired deadline whose decision is already made does nothing; otherwise the computer makes that
one decision for the player, who keeps the seat, and the log marks the move `chosen_by: "timeout"`.

A schedule is fenced by the game's stream sequence: it carries the sequence of the event it was decided from
(`DECIDED_AT`), and is stored only with `Nats-Expected-Last-Subject-Sequence` of the seat's schedule it was checked
against, which must have been decided no later. So a follow-up that stalled between deciding and acting never
replaces the clock a later event of the game set (the player's running think time) with an older one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from nats.js import JetStreamContext
from nats.js.errors import APIError, NotFoundError

from libs.platform.clock import Clock as PlatformClock
from libs.platform.clock import clock_of
from libs.platform.consumers import decoding, run_pull_consumer
from libs.platform.contracts.commands import DECIDE, DecideRequest
from libs.platform.contracts.messages import TimerDeadline
from libs.platform.contracts.subjects import (
    TABLE_TIMERS_DURABLE,
    TIMER_FIRES,
    TIMERS_STREAM,
    timer_fire_subject,
    timer_set_subject,
)
from libs.platform.logging import get_logger
from libs.platform.publishing import PUBLISH_PATIENCE, RETRY_PAUSE, publish_patiently
from libs.platform.rpc import RESEND_AFTER, UNAVAILABLE, CommandRefused, call
from libs.platform.service import Runtime
from libs.platform.table_options import GRACE_SECONDS
from libs.platform.tracing import with_trace
from services.table import metrics
from services.table.event_store import WRONG_LAST_SEQUENCE
from services.table.games import games_of
from services.table.records import ClockStart, GameRecord

TIMEOUT_LEVEL = "normal"
DECIDED_AT = "Speed-Game-Seq"
"""Header of a clock's schedule: the game's stream sequence of the event the follow-up decided it from."""


class Clock(PlatformClock):
    """The wall clock (the edge a test may shift by subclassing, or by CLOCK_LAG_SECONDS in a test process).

    It is the platform's clock port (`libs.platform.clock`), so `clock_of(runtime)` reads it and a test may
    hand the table any platform clock (e.g. tests/clocks.py's ShiftedClock).
    """

    def __init__(self, lag_seconds: float = 0.0) -> None:
        self._lag = timedelta(seconds=lag_seconds)

    def now(self) -> datetime:
        """Return the current time in UTC (minus the configured lag)."""
        return datetime.now(UTC) - self._lag


async def start_clocks(runtime: Runtime, record: GameRecord) -> None:
    """Schedule the deadline of every human seat that must decide at the game's latest event.

    The deadline runs from the moment the decision began in the log (as the view shows it), not from when
    this follow-up runs, so scheduling a seat again (each schedule replaces the seat's earlier one) sets the
    same deadline. That makes it safe to schedule after every event rather than only after the event the
    decision began with, whose follow-up may be overtaken by a later event (a PlayerLeft appended before it
    ran) and then skips it: such a decision would otherwise wait for ever.
    """
    if record.ended is not None or record.platform.think_time is None:
        return
    clocks = [(seat, started) for seat, started in enumerate(record.clocks)
              if started is not None and not record.is_computer_seat(seat)]
    await schedule_clocks(runtime, record.game_id, record.n, record.last_seq, record.platform.think_time, clocks)


async def schedule_clocks(runtime: Runtime, game_id: str, n: int, seq: int, think_time: int | None,
                          clocks: Iterable[tuple[int, ClockStart]]) -> None:
    """Schedule the deadline of each (human seat, start of its decision) of `clocks` at event `n` of the game (stored
    at stream sequence `seq`), with `think_time` seconds per decision (None: "ohne", no clock): what `start_clocks`
    does from a folded game, and the follow-up from the table's hint (followup_hints.py) without one. A seat whose
    clock was set from a later event of the game meanwhile keeps that clock (`set_clock`)."""
    if think_time is None:
        return
    clock = clock_of(runtime)
    real_now = datetime.now(UTC)
    behind = clock.now() - real_now  # the table's clock may run behind the log's (tests shift it)
    for seat, started in clocks:
        deadline = started.began + behind + timedelta(seconds=think_time + GRACE_SECONDS)
        # Schedules have second resolution: round up, so nobody loses part of a second; and never into
        # the past (a follow-up late after an outage): then the computer decides in a second.
        at = (max(deadline, real_now) + timedelta(seconds=1)).replace(microsecond=0)
        payload = TimerDeadline(game_id=game_id, seat=seat, n=started.n, deadline=at.isoformat())
        stored = await set_clock(  # a schedule set twice fires twice; the deadline's check acts once
            runtime.js, timer_set_subject(game_id, seat), payload.encode(), seq,
            headers=with_trace({"Nats-Schedule": f"@at {at.strftime('%Y-%m-%dT%H:%M:%SZ')}",
                                "Nats-Schedule-Target": timer_fire_subject(game_id, seat)}),
        )
        if stored and started.n == n:
            metrics.CLOCKS_STARTED.inc()
        elif not stored:
            metrics.CLOCKS_FENCED.inc()


async def set_clock(js: JetStreamContext, subject: str, payload: bytes, seq: int, headers: dict[str, str]) -> bool:
    """Store the schedule `payload` on the seat's clock subject, decided from the game's event at stream sequence
    `seq`, unless the schedule there was decided from a later one; return whether it was stored.

    Fenced, not only checked: the schedule is published with `Nats-Expected-Last-Subject-Sequence` of the schedule
    read (0: none), so one stored in between (another replica's, another handler's) makes JetStream refuse it, and
    the check is made again on that one. A schedule replaces the subject's earlier one (a message schedule per
    subject), so the last stored is the clock in effect.
    """
    while True:
        last_seq, decided = await _last_clock(js, subject)
        if decided > seq:
            return False  # a later event of the game set this seat's clock: it stays
        try:
            await publish_patiently(js, subject, payload, stream=TIMERS_STREAM, headers={
                **headers, DECIDED_AT: str(seq), "Nats-Expected-Last-Subject-Sequence": str(last_seq)})
            return True
        except APIError as error:
            if error.err_code != WRONG_LAST_SEQUENCE:
                raise


async def _last_clock(js: JetStreamContext, subject: str) -> tuple[int, int]:
    """The stream sequence of the schedule on `subject` and the game's stream sequence it was decided from ((0, 0):
    none; a schedule from before the fence counts as decided from 0), read from the stream's leader; asked again
    while JetStream cannot answer, for up to PUBLISH_PATIENCE seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PUBLISH_PATIENCE
    while True:
        try:
            last = await js.get_last_msg(TIMERS_STREAM, subject)
        except NotFoundError:
            return 0, 0
        except UNAVAILABLE:
            if loop.time() >= deadline:
                raise
            await asyncio.sleep(RETRY_PAUSE)
            continue
        return int(last.seq or 0), int((last.headers or {}).get(DECIDED_AT) or 0)


async def decide_for_late_player(runtime: Runtime, deadline: TimerDeadline) -> None:
    """Make the overdue decision with the computer, if it is still the decision the deadline was set for."""
    games = games_of(runtime)
    game_id, seat, started = deadline.game_id, deadline.seat, deadline.n
    for _attempt in range(3):
        record = await games.load(game_id)
        clock = record.clocks[seat]
        if record.ended is not None or clock is None or clock.n != started:
            return  # decided in time (or the game is over): nothing to do
        move = record.engine.timeout_move(record.position, seat)  # the game's own rule, if it has one
        if move is None:  # the computer makes the whole decision
            decision = await call(runtime.nc, DECIDE, DecideRequest(
                rules=record.module.rules_id, seat=seat, level=TIMEOUT_LEVEL,
                view=record.engine.view(record.position, seat), game_id=game_id, n=record.n,
            ), attempt=RESEND_AFTER)  # a question: asked again of another bot replica if the first died with it
            move = decision.move
        try:
            await games.move(game_id, seat, move, actor="system", chosen_by="timeout", expected_n=record.n)
        except CommandRefused as refusal:
            if refusal.code == "stale":  # someone else moved meanwhile: decide again on the new position
                continue
            raise
        metrics.TIMEOUT_MOVES.inc()
        get_logger(game_id=game_id).info("timeout_move", seat=seat, n=record.n)
        return


async def watch_deadlines(runtime: Runtime) -> None:
    """Worker: act on fired deadlines of every game (one shared consumer for all table replicas)."""

    async def decide(deadline: TimerDeadline) -> None:
        await decide_for_late_player(runtime, deadline)

    await run_pull_consumer(runtime.js, stream=TIMERS_STREAM, durable=TABLE_TIMERS_DURABLE, subject=TIMER_FIRES,
                            handler=decoding(TimerDeadline, decide, malformed="deadline_malformed"),
                            concurrency=8, ack_wait=30.0, stopping=runtime.stopping)
