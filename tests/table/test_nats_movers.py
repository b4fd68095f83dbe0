"""Over `table.cmd.move` (the bot service's user and the operator's) the table writes only moves the audit accepts:
on a computer's seat the computer of that seat's level, on a seat whose human left the computer that plays on
(`departed`, `bot:normal`); never a move naming another actor, and never a timeout (the table's own decision)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import TABLE_MOVE, TABLE_START
from libs.platform.envelope import EventType
from libs.platform.rpc import CommandRefused, request
from libs.platform.settings import Settings
from services.table.app import create_app
from services.table.event_store import GameLog
from services.table.games import Games
from services.table.seeds import SeedSource
from tests.conftest import running_app
from tests.table.test_table_api import ANNA, BERT
from tests.table.test_table_api import stored_events as log_of


@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    # No bot service and no follow-up here: the computer's turn stays open for the moves sent below.
    async with running_app(create_app(settings)) as client:
        yield client


async def start(nc: NatsClient, seats: list[dict[str, object]]) -> str:
    started = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": {"workshop": "kachelwand"},
                                              "seats": seats})
    return str(started["game_id"])


async def test_for_a_seat_whose_human_left_only_the_normal_computer_moves(table: httpx.AsyncClient,
                                                                          nc: NatsClient) -> None:
    game_id = await start(nc, [{"kind": "human", "player_id": ANNA.player_id, "name": "Anna"},
                               {"kind": "human", "player_id": BERT.player_id, "name": "Bert"}])
    games = Games(GameLog(nc.jetstream()), SeedSource())
    record = await games.load(game_id)
    move = record.engine.legal_moves(record.position, 0)[0]
    await games.leave(game_id, 0, ANNA.player_id)

    refusals = {}
    for actor, chosen_by in [(BERT.player_id, "departed"), ("system", "departed"), ("bot:strong", "departed"),
                             ("operator", "departed"), ("system", "timeout"), ("bot:normal", "timeout")]:
        with pytest.raises(CommandRefused) as refused:
            await request(nc, TABLE_MOVE, {"game_id": game_id, "seat": 0, "move": move, "actor": actor,
                                           "chosen_by": chosen_by})
        refusals[(actor, chosen_by)] = (refused.value.status, refused.value.code, refused.value.reason)

    assert refusals[(BERT.player_id, "departed")] == (
        403, "not_your_seat", "Für Platz 1 spielt der Computer der Stufe „normal“ weiter (bot:normal), kein anderer.")
    assert refusals[("system", "timeout")] == (403, "not_your_seat", "Wenn die Bedenkzeit abläuft, zieht der Tisch "
                                                                     "selbst.")
    assert {status for status, _, _ in refusals.values()} == {403}
    assert len(await log_of(nc, game_id)) == 2

    await request(nc, TABLE_MOVE, {"game_id": game_id, "seat": 0, "move": move, "actor": "bot:normal",
                                   "chosen_by": "departed", "expected_n": 2})
    made = (await log_of(nc, game_id))[-1]
    assert (made.type, made.actor, made.data["chosen_by"]) == (EventType.MOVE_MADE, "bot:normal", "departed")


async def test_on_a_computers_seat_only_the_computer_of_its_level_moves(table: httpx.AsyncClient,
                                                                        nc: NatsClient) -> None:
    game_id = await start(nc, [{"kind": "bot", "level": "easy", "name": "Computer 1"},
                               {"kind": "human", "player_id": ANNA.player_id, "name": "Anna"}])
    games = Games(GameLog(nc.jetstream()), SeedSource())
    record = await games.load(game_id)
    move = record.engine.legal_moves(record.position, 0)[0]

    refusals = {}
    for actor in ("system", "bot:strong", "bot:normal", "", "operator"):
        with pytest.raises(CommandRefused) as refused:
            await request(nc, TABLE_MOVE, {"game_id": game_id, "seat": 0, "move": move, "actor": actor,
                                           "chosen_by": "bot"})
        refusals[actor] = (refused.value.status, refused.value.code, refused.value.reason)

    assert refusals["bot:strong"] == (403, "not_your_seat", "Auf Platz 1 spielt der Computer der Stufe „easy“ "
                                                            "(bot:easy), kein anderer.")
    assert {status for status, _, _ in refusals.values()} == {403}
    assert len(await log_of(nc, game_id)) == 1

    await request(nc, TABLE_MOVE, {"game_id": game_id, "seat": 0, "move": move, "actor": "bot:easy",
                                   "chosen_by": "bot", "expected_n": 1})
    made = (await log_of(nc, game_id))[-1]
    assert (made.type, made.actor, made.data["chosen_by"]) == (EventType.MOVE_MADE, "bot:easy", "bot")
