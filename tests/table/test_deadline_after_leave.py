"""A human's think time runs out even when another seat's leaving overtook the follow-up that began it."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime, timedelta

from nats.aio.client import Client as NatsClient

from libs.platform.contracts.commands import StartGame, StartSeat
from libs.platform.contracts.events import PlatformSettings
from libs.platform.envelope import EventType
from libs.platform.settings import Settings
from services.bot.app import create_app as bot_app
from services.table.app import create_app
from services.table.event_store import GameLog
from services.table.games import Games
from services.table.seeds import SeedSource
from services.table.timers import Clock
from tests.conftest import running_app


class LateClock(Clock):
    """A clock that runs 39 s behind, so a 30 s think time (+10 s grace) ends about a second after it began."""

    def now(self) -> datetime:
        return super().now() - timedelta(seconds=39)


async def test_the_first_decision_gets_its_deadline_when_a_leave_is_logged_before_any_follow_up(
        settings: Settings, nc: NatsClient) -> None:
    anna, bert = "anna-" + uuid.uuid4().hex[:8], "bert-" + uuid.uuid4().hex[:8]
    games = Games(GameLog(nc.jetstream(), nc), SeedSource())
    # Logged while no table runs: when the follow-up comes to GameStarted, the game is already past it.
    started = await games.start(StartGame(
        game="speedmosaik", settings={}, platform=PlatformSettings(think_time=30),
        seats=[StartSeat(kind="human", player_id=anna, name="Anna"),
               StartSeat(kind="human", player_id=bert, name="Bert")]))
    await games.leave(started.game_id, 1, bert)

    async with running_app(create_app(settings, clock=LateClock())), running_app(bot_app(settings)):
        log = GameLog(nc.jetstream(), nc)
        for _ in range(300):
            moves = [stored.event for stored in await log.read(started.game_id)
                     if stored.event.type == EventType.MOVE_MADE]
            if moves:
                break
            await asyncio.sleep(0.1)
    assert moves, "Anna's think time never ran out: her first decision had no deadline"
    assert moves[0].data["seat"] == 0 and moves[0].data["chosen_by"] == "timeout"
