"""Campaigns: stage 1 open, stage k+1 once stage k is won (from the game-end fact); the modes of a game."""

from __future__ import annotations

from typing import Any

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import func, select

from libs.platform.envelope import Event
from services.lobby.database import sessions_of
from services.lobby.models import CampaignWin
from tests.game_facts import publish_fact
from tests.lobby.conftest import Lobby, TableStandIn, game_events_are_read, new_guest
from tests.lobby.home_helpers import end_started_game, solo

pytestmark = pytest.mark.usefixtures("with_tinygame")


async def campaign(lobby: Lobby, player: dict[str, Any]) -> dict[str, Any]:
    answer = await lobby.http.get("/me/campaigns/tinygame/reise", headers=player["headers"])
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def flags(progress: dict[str, Any]) -> list[tuple[int, bool, bool]]:
    return [(stage["number"], stage["open"], stage["won"]) for stage in progress["stages"]]


async def test_stage_two_opens_when_stage_one_is_won(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna = await new_guest(lobby.http, "Anna")
    assert flags(await campaign(lobby, anna)) == [(1, True, False), (2, False, False)]

    locked = await solo(lobby.http, anna, game="tinygame", mode="reise", stage=2)
    assert locked.status_code == 409 and locked.json() == {
        "detail": "Etappe 2 von „Stich-Reise“ ist noch gesperrt: gewinne zuerst Etappe 1.", "code": "stage_locked"}
    assert table_service.requests == []

    first = await solo(lobby.http, anna, game="tinygame", mode="reise")  # default: the highest open stage
    assert first.status_code == 201, first.text
    assert first.json()["mode"]["stage"] == 1 and first.json()["mode"]["stage_title"] == "Erster Stich"
    sent = table_service.last
    assert sent["mode"] == {"key": "reise", "day": None, "attempt": None, "stage": 1}
    assert sent["settings"] == {"variante": "einzeln"}
    assert [(seat["kind"], seat["level"]) for seat in sent["seats"]] == [("human", None), ("bot", "easy")]

    await end_started_game(lobby_nc, sent, places=[2, 1])  # lost: stage 2 stays locked
    assert flags(await campaign(lobby, anna)) == [(1, True, False), (2, False, False)]

    # "Nochmal": the same stage again; asking for the next one while it is locked is refused.
    too_soon = await lobby.http.post(f"/tables/{first.json()['table_id']}/rematch?next_stage=true",
                                     headers=anna["headers"])
    assert too_soon.status_code == 409 and too_soon.json()["code"] == "stage_locked"
    again = await lobby.http.post(f"/tables/{first.json()['table_id']}/rematch", headers=anna["headers"])
    assert again.status_code == 200, again.text
    assert table_service.last["mode"]["stage"] == 1
    won = table_service.last
    await end_started_game(lobby_nc, won, places=[1, 2])

    progress = await campaign(lobby, anna)
    assert flags(progress) == [(1, True, True), (2, True, False)] and progress["current"] == 2

    next_stage = await lobby.http.post(f"/tables/{first.json()['table_id']}/rematch?next_stage=true",
                                       headers=anna["headers"])
    assert next_stage.status_code == 200, next_stage.text
    assert table_service.last["mode"]["stage"] == 2
    assert [seat["level"] for seat in table_service.last["seats"][1:]] == ["easy", "easy"]
    assert next_stage.json()["player_count"] == 3


async def test_a_win_is_recorded_once_and_never_for_who_left(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna = await new_guest(lobby.http, "Anna")
    bert = await new_guest(lobby.http, "Bert")
    await solo(lobby.http, anna, game="tinygame", mode="reise")
    annas = table_service.last
    await solo(lobby.http, bert, game="tinygame", mode="reise")
    berts = table_service.last

    await end_started_game(lobby_nc, annas, places=[1, 2])
    # The same end once more (the follow-up redelivered after the duplicate window): nothing new.
    raw = await lobby_nc.jetstream().get_last_msg("GAMES", f"game.{annas['game_id']}.events")
    assert raw.data is not None
    await publish_fact(lobby_nc.jetstream(), Event.decode(raw.data), msg_id=f"again:{annas['game_id']}")
    await game_events_are_read(lobby_nc)
    await end_started_game(lobby_nc, berts, places=[1, 2], left=[0])  # Bert left: the computer finished

    async with sessions_of(lobby.runtime)() as session:
        wins = await session.scalar(select(func.count()).select_from(CampaignWin).where(
            CampaignWin.player_id.in_([anna["player_id"], bert["player_id"]])))
    assert wins == 1
    assert flags(await campaign(lobby, bert)) == [(1, True, False), (2, False, False)]


async def test_a_campaign_fixes_its_opponents_and_other_modes_have_no_stages(
        lobby: Lobby, table_service: TableStandIn) -> None:
    anna = await new_guest(lobby.http, "Anna")

    opponents = await solo(lobby.http, anna, game="tinygame", mode="reise", opponents=2)
    no_such_stage = await solo(lobby.http, anna, game="tinygame", mode="reise", stage=3)
    not_a_campaign = await lobby.http.get("/me/campaigns/tinygame/tagesstich", headers=anna["headers"])

    assert opponents.status_code == 422 and opponents.json()["code"] == "fixed_opponents"
    assert no_such_stage.status_code == 422 and no_such_stage.json() == {
        "detail": "„Stich-Reise“ hat Etappen 1 bis 2.", "code": "invalid_stage"}
    assert not_a_campaign.status_code == 404 and not_a_campaign.json()["code"] == "not_a_campaign"
    assert table_service.requests == []


async def test_a_games_modes_with_todays_commitment(lobby: Lobby) -> None:
    answer = await lobby.http.get("/games/tinygame/modes")

    assert answer.status_code == 200, answer.text
    modes = {mode["key"]: mode for mode in answer.json()}
    assert list(modes) == ["frei", "tagesstich", "reise"]
    assert modes["frei"]["today"] is None and modes["reise"]["today"] is None
    assert [stage["title"] for stage in modes["reise"]["campaign"]] == ["Erster Stich", "Zweiter Stich"]
    today = modes["tagesstich"]["today"]
    daily = (await lobby.http.get(f"/daily/tinygame/tagesstich/{today['day']}")).json()
    assert today == daily and today["seed"] is None and modes["tagesstich"]["settings"] == {"variante": "einzeln"}
    assert (await lobby.http.get("/games/schach/modes")).status_code == 422
