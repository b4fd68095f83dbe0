"""Game events as the table writes them: appended to the log, and GameStarted/GameEnded copied onto GAME_FACTS.

The copy is what the table's follow-up publishes (`services/table/followup.py`): the event's exact bytes on
`facts.game.started` / `facts.game.ended` with `Nats-Msg-Id fact:<game_id>:<n>`. Tests of the services that
consume the facts (ledger, lobby, leaderboard) publish through these helpers instead of running a table.
"""

from __future__ import annotations

import asyncio
import time

from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

from libs.platform.contracts.subjects import GAME_FACTS_STREAM, game_fact_msg_id, game_fact_subject, game_subject
from libs.platform.envelope import Event


async def publish_fact(js: JetStreamContext, event: Event, msg_id: str | None = None) -> int:
    """Copy `event` (a GameStarted or GameEnded) onto GAME_FACTS as the follow-up does; return its stream sequence.

    `msg_id` replaces the follow-up's `fact:<game_id>:<n>`, to get a second copy past JetStream's de-duplication
    (as a redelivered follow-up after the duplicate window would publish it).
    """
    subject = game_fact_subject(event.type)
    assert subject is not None, f"{event.type} is no game fact"
    ack = await js.publish(subject, event.encode(), stream=GAME_FACTS_STREAM,
                           headers={"Nats-Msg-Id": msg_id or game_fact_msg_id(event.game_id, event.n)})
    return ack.seq


async def append_as_table(js: JetStreamContext, event: Event, *, copy_fact: bool = True) -> None:
    """Append `event` to its game's log (`Nats-Msg-Id <game>:<n>`) and, for a start or end, publish its fact.

    `copy_fact=False` leaves the copy to the test (a follow-up that has not run yet).
    """
    await js.publish(game_subject(event.game_id), event.encode(), headers={"Nats-Msg-Id": event.msg_id})
    if copy_fact and game_fact_subject(event.type) is not None:
        await publish_fact(js, event)


async def facts_are_read(js: JetStreamContext, durable: str, timeout: float = 15.0) -> None:
    """Wait until the durable consumer `durable` on GAME_FACTS has acknowledged every fact it filters."""
    await consumer_is_done(js, GAME_FACTS_STREAM, durable, timeout)


async def consumer_is_done(js: JetStreamContext, stream: str, durable: str, timeout: float = 15.0) -> None:
    """Wait until the durable consumer `durable` on `stream` has acknowledged every message it filters.

    Waits for the ack floor to reach the last message the consumer filters, not only for `num_pending` to
    read 0: JetStream tells its consumers of a new message asynchronously, so right after a publish's ack
    the consumer may still count 0 pending and 0 unacknowledged.
    """
    deadline = time.monotonic() + timeout
    last: int | None = None
    while True:
        try:
            info = await js.consumer_info(stream, durable)
            if last is None:
                last = await _last_filtered(js, stream, info.config.filter_subject, info.config.filter_subjects)
            floor = (info.ack_floor.stream_seq or 0) if info.ack_floor is not None else 0
            if info.num_pending == 0 and info.num_ack_pending == 0 and floor >= last:
                return
        except NotFoundError:  # the service creates its consumer moments after it starts
            pass
        assert time.monotonic() < deadline, f"{durable} did not read {stream} in time"
        await asyncio.sleep(0.05)


async def _last_filtered(js: JetStreamContext, stream: str, subject: str | None,
                         subjects: list[str] | None) -> int:
    """The stream sequence of the last message on `stream` matching the consumer's filter (0 if none)."""
    last = 0
    for filtered in ([subject] if subject else subjects or [">"]):
        try:
            found = await js.get_last_msg(stream, filtered)
        except NotFoundError:
            continue
        last = max(last, found.seq or 0)
    return last


async def consumer_acked(js: JetStreamContext, stream: str, durable: str, stream_seq: int,
                         timeout: float = 15.0) -> None:
    """Wait until the durable consumer `durable` on `stream` has acknowledged everything up to `stream_seq`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            info = await js.consumer_info(stream, durable)
        except NotFoundError:  # the service creates its consumer moments after it starts
            await asyncio.sleep(0.05)
            continue
        if info.ack_floor is not None and (info.ack_floor.stream_seq or 0) >= stream_seq:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{durable} did not process message {stream_seq} within {timeout} s")
