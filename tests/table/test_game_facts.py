"""The table copies a game's start and end onto GAME_FACTS, and nothing else (ledger, lobby, leaderboard read it)."""

from __future__ import annotations

from nats.aio.client import Client as NatsClient
from nats.js.api import RawStreamMsg
from nats.js.errors import NotFoundError

from libs.platform.contracts.subjects import (
    GAME_ENDED_FACT,
    GAME_FACTS_STREAM,
    GAME_STARTED_FACT,
    GAMES_STREAM,
    game_fact_msg_id,
    game_subject,
)
from libs.platform.envelope import Event, EventType
from libs.platform.settings import Settings
from services.bot.app import create_app as create_bot_app
from services.table.app import create_app as create_table_app
from tests.conftest import running_app
from tests.table.computer_games import computers_play_to_the_end


async def stored_log(nc: NatsClient, game_id: str) -> list[RawStreamMsg]:
    """One game's log as JetStream stores it (the raw messages, in order)."""
    js = nc.jetstream()
    log: list[RawStreamMsg] = []
    while True:
        try:
            stored = await js.get_msg(GAMES_STREAM, seq=(log[-1].seq or 0) + 1 if log else 1,
                                      subject=game_subject(game_id), next=True)
        except NotFoundError:
            return log
        log.append(stored)


async def facts_after(nc: NatsClient, seq: int, game_id: str) -> list[RawStreamMsg]:
    """The messages on GAME_FACTS after stream sequence `seq` that belong to `game_id`."""
    js = nc.jetstream()
    last = (await js.stream_info(GAME_FACTS_STREAM)).state.last_seq
    facts = []
    for number in range(seq + 1, last + 1):
        try:
            stored = await js.get_msg(GAME_FACTS_STREAM, seq=number)
        except NotFoundError:
            continue
        if Event.decode(stored.data or b"").game_id == game_id:
            facts.append(stored)
    return facts


async def test_a_finished_game_puts_exactly_its_start_and_end_on_game_facts_and_no_move(
        settings: Settings, nc: NatsClient) -> None:
    js = nc.jetstream()
    async with running_app(create_table_app(settings)) as table, running_app(create_bot_app(settings)):
        before = (await js.stream_info(GAME_FACTS_STREAM)).state.last_seq
        game_id = await computers_play_to_the_end(nc, table)

    log = await stored_log(nc, game_id)
    types = [Event.decode(stored.data or b"").type for stored in log]
    assert types[0] == EventType.GAME_STARTED and types[-1] == EventType.GAME_ENDED
    assert types.count(EventType.MOVE_MADE) > 10  # many moves were made, none of them is a fact
    facts = await facts_after(nc, before, game_id)
    assert [(fact.subject, fact.data) for fact in facts] == [
        (GAME_STARTED_FACT, log[0].data), (GAME_ENDED_FACT, log[-1].data)]  # the log's exact bytes
    assert [(fact.headers or {}).get("Nats-Msg-Id") for fact in facts] == [
        game_fact_msg_id(game_id, 1), game_fact_msg_id(game_id, len(log))]
