"""A hinted event that comes back (its first follow-up replica died before acknowledging it) is folded, not acted on
from its hint: another replica may have acted on later events of its game meanwhile (services/table/followup.py)."""

from __future__ import annotations

from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import GAMES_STREAM, TABLE_FOLLOWUP_DURABLE, game_subject
from libs.platform.settings import Settings
from services.bot.app import create_app as bot_app
from services.table import metrics
from services.table.app import create_app
from tests.conftest import running_app
from tests.game_facts import consumer_is_done
from tests.table.test_clocks_and_advice import HUMANS, LateClock, start, wait_for_moves


def hints(outcome: str) -> float:
    return float(metrics.FOLLOWUP_HINTS.labels(outcome)._value.get())


async def test_a_redelivered_hinted_event_is_folded_and_its_game_followed_up_all_the_same(
        settings: Settings, nc: NatsClient) -> None:
    js = nc.jetstream()
    followup_settings = settings.model_copy(update={"table_roles": "followup,timers"})
    async with running_app(create_app(followup_settings)):  # the shared durable consumer exists, nothing pending
        await consumer_is_done(js, GAMES_STREAM, TABLE_FOLLOWUP_DURABLE)
    async with running_app(create_app(settings.model_copy(update={"table_roles": "api"}))):
        game_id = await start(nc, HUMANS, think_time=30)  # Anna must move; GameStarted carries the hint
        # A follow-up replica takes the game's start and dies before acknowledging it.
        dying = await js.pull_subscribe_bind(TABLE_FOLLOWUP_DURABLE, GAMES_STREAM)
        taken = await dying.fetch(64, timeout=5.0)
        assert [msg.subject for msg in taken] == [game_subject(game_id)]
        assert (taken[0].headers or {}).get("Speed-Followup")
        await dying.unsubscribe()
        redelivered = hints("redelivered")
        # Another replica gets it once its ack wait (5 s) is over, as a second delivery: folded, Anna's clock runs.
        async with running_app(create_app(followup_settings, clock=LateClock())), running_app(bot_app(settings)):
            made = await wait_for_moves(nc, game_id, 1, timeout=30.0)
    assert (made[0].data["seat"], made[0].data["chosen_by"]) == (0, "timeout")
    assert hints("redelivered") == redelivered + 1
