"""A player who left a game acts no more: the computer plays on for the seat, and only the computer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import (
    BOT_TURNS_STREAM,
    GAMES_STREAM,
    TABLE_FOLLOWUP_DURABLE,
    TABLE_MOVE,
    TABLE_START,
    bot_turn_subject,
)
from libs.platform.envelope import EventType
from libs.platform.rpc import CommandRefused, request
from libs.platform.settings import Settings
from libs.rules.engine import UNDO_MOVE
from services.table.app import create_app
from services.table.event_store import GameLog
from services.table.games import Games
from services.table.seeds import SeedSource
from tests.conftest import running_app
from tests.game_facts import consumer_is_done
from tests.rules.helpers import registered_plugins
from tests.table.test_table_api import ANNA, BERT, auth
from tests.table.test_table_api import stored_events as log_of

LEFT = "Du hast die Partie verlassen; der Computer spielt jetzt für dich."


@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    # No bot service runs here: the computer's turn for a left seat stays open, so the position the
    # refused requests aim at is still the one they were made for.
    async with running_app(create_app(settings)) as client:
        yield client


async def start(nc: NatsClient, seats: list[dict[str, Any]], game: str = "speedmosaik") -> str:
    result = await request(nc, TABLE_START, {"game": game, "settings": {}, "seats": seats})
    return str(result["game_id"])


HUMANS = [{"kind": "human", "player_id": ANNA.player_id, "name": "Anna"},
          {"kind": "human", "player_id": BERT.player_id, "name": "Bert"}]
ANNA_AND_COMPUTER = [{"kind": "human", "player_id": ANNA.player_id, "name": "Anna"},
                     {"kind": "bot", "level": "normal"}]


def assert_left_refusal(answer: httpx.Response) -> None:
    assert answer.status_code == 403, answer.text
    assert answer.json() == {"detail": LEFT, "code": "left_game"}


async def test_after_leaving_a_player_can_neither_move_nor_preview(table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, HUMANS)
    move = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()["legal_moves"][0]
    assert (await table.post(f"/games/{game_id}/leave", headers=auth(ANNA))).status_code == 200

    assert_left_refusal(await table.post(f"/games/{game_id}/moves", json={"move": move}, headers=auth(ANNA)))
    assert_left_refusal(await table.post(f"/games/{game_id}/moves", json={"move": move, "expected_n": 2},
                                         headers=auth(ANNA)))
    assert_left_refusal(await table.post(f"/games/{game_id}/preview", json={"move": move}, headers=auth(ANNA)))
    assert [event.type for event in await log_of(nc, game_id)] == [EventType.GAME_STARTED, EventType.PLAYER_LEFT]
    # She may still watch, but her view offers her nothing to do any more.
    view = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()
    assert view["seats"][0]["left"] is True and view["legal_moves"] == [] and view["can_undo"] is False


async def test_after_leaving_a_player_gets_no_advice(table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, ANNA_AND_COMPUTER)
    assert (await table.post(f"/games/{game_id}/leave", headers=auth(ANNA))).status_code == 200
    assert_left_refusal(await table.get(f"/games/{game_id}/advice", headers=auth(ANNA)))
    assert len(await log_of(nc, game_id)) == 2


async def test_over_nats_a_move_for_a_left_seat_is_the_computers_alone(nc: NatsClient) -> None:
    game_id = await start(nc, HUMANS)
    games = Games(GameLog(nc.jetstream()), SeedSource())
    record = await games.load(game_id)
    move = record.engine.legal_moves(record.position, 0)[0]
    await games.leave(game_id, 0, ANNA.player_id)

    for actor, chosen_by in [(ANNA.player_id, "player"), (ANNA.player_id, "departed"), (ANNA.player_id, "bot"),
                             ("bot:normal", "player"), ("system", "bot")]:
        with pytest.raises(CommandRefused) as refused:
            await request(nc, TABLE_MOVE, {"game_id": game_id, "seat": 0, "move": move, "actor": actor,
                                           "chosen_by": chosen_by})
        assert (refused.value.status, refused.value.code, refused.value.reason) == (403, "left_game", LEFT)
    assert len(await log_of(nc, game_id)) == 2

    # The computer that took the seat over still plays it.
    await request(nc, TABLE_MOVE, {"game_id": game_id, "seat": 0, "move": move, "actor": "bot:normal",
                                   "chosen_by": "departed", "expected_n": 2})
    made = (await log_of(nc, game_id))[-1]
    assert made.type == EventType.MOVE_MADE and made.data["chosen_by"] == "departed"


async def test_a_move_racing_the_leave_on_another_replica_is_refused(nc: NatsClient) -> None:
    # Replica A still holds the game from before Anna left (on replica B); her move through A must not land.
    replica_a, replica_b = (Games(GameLog(nc.jetstream()), SeedSource()) for _ in range(2))
    game_id = await start(nc, HUMANS)
    record = await replica_a.load(game_id)
    await replica_b.leave(game_id, 0, ANNA.player_id)
    with pytest.raises(CommandRefused) as refused:
        await replica_a.move(game_id, 0, record.engine.legal_moves(record.position, 0)[0], actor=ANNA.player_id)
    assert refused.value.code == "left_game"
    assert [event.type for event in await log_of(nc, game_id)] == [EventType.GAME_STARTED, EventType.PLAYER_LEFT]


async def test_after_leaving_a_player_cannot_take_a_step_back(table: httpx.AsyncClient, nc: NatsClient) -> None:
    with registered_plugins("tests.rules.tinygame"):
        game_id = await start(nc, HUMANS, game="tinygame")
        view = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()
        mark = next(move for move in view["legal_moves"] if set(move) == {"vormerken"})
        assert (await table.post(f"/games/{game_id}/moves", json={"move": mark}, headers=auth(ANNA))).status_code == 200
        assert (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()["can_undo"] is True
        assert (await table.post(f"/games/{game_id}/leave", headers=auth(ANNA))).status_code == 200

        assert_left_refusal(await table.post(f"/games/{game_id}/moves", json={"move": UNDO_MOVE}, headers=auth(ANNA)))
        types = [event.type for event in await log_of(nc, game_id)]
        assert types == [EventType.GAME_STARTED, EventType.MOVE_MADE, EventType.PLAYER_LEFT]
        # The computer's turn for Anna's seat is in a game later bots no longer know: take it off the queue.
        await consumer_is_done(nc.jetstream(), GAMES_STREAM, TABLE_FOLLOWUP_DURABLE)
        await nc.jetstream().purge_stream(BOT_TURNS_STREAM, subject=bot_turn_subject(game_id))


@pytest.mark.parametrize("name", ["Anna", "Computer (stark)", "Computer 99", "Сomputer 1", "Computer 1\u200b"])
async def test_a_computer_seat_cannot_be_given_a_name_of_its_own(nc: NatsClient, name: str) -> None:
    with pytest.raises(CommandRefused) as refused:
        await start(nc, [HUMANS[0], {"kind": "bot", "level": "normal", "name": name}])
    assert (refused.value.status, refused.value.code) == (422, "invalid_bot_name")
    assert "Computergegner heißen" in refused.value.reason


async def test_computer_seats_carry_the_platforms_names(table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, [HUMANS[0], {"kind": "bot", "level": "easy", "name": "Computer 2"},
                               {"kind": "bot", "level": "easy"}])
    seats = (await table.get(f"/games/{game_id}")).json()["seats"]
    assert [seat["name"] for seat in seats] == ["Anna", "Computer 2", "Computer"]
