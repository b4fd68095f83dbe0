"""A follow-up that stalls between deciding and acting cannot act on a position the game has left: a think-time clock
it sets late never replaces the clock a later event of the game set (services/table/timers.py, "fenced").

The follow-up decides from event n which clocks run and schedules them on `timer.set.<game>.<seat>`; each schedule
replaces the seat's earlier one. Here its handler of event 2 stalls right at the schedule's publish (a hook in a
subclass of the real JetStream port) while the players make two more moves and the follow-up sets the clock of the
decision that began at event 4. Then the stalled handler goes on. Before the fence its schedule for the decision that
began at event 2 (long made) was stored last and replaced the running clock: that player's think time never ran out.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import msgspec
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext

from libs.platform.contracts.messages import TimerDeadline
from libs.platform.contracts.subjects import TIMERS_STREAM, timer_set_subject
from libs.platform.settings import Settings
from services.table.app import create_app
from tests.conftest import running_app
from tests.table.test_clocks_and_advice import ANNA, BERT, HUMANS, auth, start

STALLED_AT = 2
"""The event whose follow-up stalls: the schedule of the decision that began with it is held back."""


class StallingJetStream(JetStreamContext):
    """The real JetStream port, whose publish of the clock of the decision that began at event STALLED_AT of `game_id`
    waits until the test releases it (`release`); `done` is set once that publish has returned or failed."""

    def __init__(self, nc: NatsClient, game_id: str) -> None:
        super().__init__(nc)
        self.game_id = game_id
        self.stalled = asyncio.Event()
        self.release = asyncio.Event()
        self.done = asyncio.Event()

    async def publish(self, subject: str, payload: bytes = b"", *args: Any, **kwargs: Any) -> Any:
        if subject.startswith(f"timer.set.{self.game_id}.") and not self.stalled.is_set() \
                and msgspec.json.decode(payload, type=TimerDeadline).n == STALLED_AT:
            self.stalled.set()
            await self.release.wait()
            try:
                return await super().publish(subject, payload, *args, **kwargs)
            finally:
                self.done.set()
        return await super().publish(subject, payload, *args, **kwargs)


async def schedules(js: JetStreamContext, game_id: str, seat: int) -> list[int]:
    """The decisions (the event each began with) of every schedule stored for the seat's clock, in stored order."""
    subject = timer_set_subject(game_id, seat)
    subscription = await js.subscribe(subject, stream=TIMERS_STREAM, ordered_consumer=True)
    found: list[int] = []
    try:
        while True:
            try:
                msg = await subscription.next_msg(timeout=1.0)
            except TimeoutError:
                return found
            found.append(msgspec.json.decode(msg.data, type=TimerDeadline).n)
            if msg.metadata.num_pending == 0:
                return found
    finally:
        await subscription.unsubscribe()


async def wait_until(condition: Any, what: str, timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if await condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not after {timeout} s: {what}")


async def move(table: httpx.AsyncClient, game_id: str) -> int:
    """The player who must decide makes their first legal move; return their seat."""
    for player in (ANNA, BERT):
        view = (await table.get(f"/games/{game_id}/view", headers=auth(player))).json()
        if view["legal_moves"] and view["to_move"]:
            seat = view["to_move"][0]
            answer = await table.post(f"/games/{game_id}/moves", headers=auth(player),
                                      json={"move": view["legal_moves"][0], "expected_n": view["n"]})
            assert answer.status_code == 200, answer.text
            return int(seat)
    raise AssertionError("nobody must decide")


async def test_a_stalled_followup_never_replaces_the_clock_a_later_event_set(settings: Settings,
                                                                            nc: NatsClient) -> None:
    js = nc.jetstream()
    followup = create_app(settings.model_copy(update={"table_roles": "followup"}))
    async with running_app(create_app(settings.model_copy(update={"table_roles": "api"}))) as table, \
            running_app(followup):
        game_id = await start(nc, HUMANS, think_time=60)
        stalling = StallingJetStream(followup.state.runtime.nc, game_id)
        followup.state.runtime.js = stalling  # what the follow-up publishes with from now on
        seat = await move(table, game_id)  # event 2: the other seat's decision begins, its clock is held back
        other = 1 - seat
        await asyncio.wait_for(stalling.stalled.wait(), 20.0)
        assert await move(table, game_id) == other  # event 3
        assert await move(table, game_id) == seat  # event 4: the other seat's next decision begins

        async def latest_clock_set() -> bool:
            return 4 in await schedules(js, game_id, other)

        await wait_until(latest_clock_set, "the clock of the decision that began at event 4 is set")
        stalling.release.set()
        await asyncio.wait_for(stalling.done.wait(), 20.0)
        stored = await schedules(js, game_id, other)
    # The clock in effect is the last stored: the one of the decision that is open now, never an older one after it.
    assert stored[-1] == 4, stored
    assert stored == sorted(stored), stored
