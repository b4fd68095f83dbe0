"""`POST /solo`: a game in one of a game's solo modes — the daily seed and attempts, what a mode fixes, and one
unfinished game per mode (given up on request)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import select

from libs.platform.days import berlin_day, day_end, iso_z
from libs.platform.rpc import CommandRefused
from services.lobby.database import sessions_of
from services.lobby.models import DailyAttempt
from tests.lobby.conftest import Lobby, TableStandIn, new_guest
from tests.lobby.home_helpers import end_started_game, solo

pytestmark = pytest.mark.usefixtures("with_tinygame")


async def commitment_today(lobby: Lobby, game: str, mode: str) -> dict[str, Any]:
    entries = (await lobby.http.get("/daily")).json()
    today = berlin_day(lobby.clock.now()).isoformat()
    entry: dict[str, Any] = next(entry for entry in entries
                                 if (entry["game"], entry["mode"], entry["day"]) == (game, mode, today))
    return entry


async def test_daily_attempts_share_the_days_seed_and_only_the_first_counts(
        lobby: Lobby, table_service: TableStandIn, lobby_nc: NatsClient) -> None:
    anna = await new_guest(lobby.http, "Anna")
    published = await commitment_today(lobby, "speedmosaik", "tageswerkstatt")
    day = published["day"]

    first = await solo(lobby.http, anna, game="speedmosaik", mode="tageswerkstatt")

    assert first.status_code == 201, first.text
    body = first.json()
    assert body["status"] == "playing" and body["solo"] is True and body["game_id"]
    assert body["mode"] == {"key": "tageswerkstatt", "title": "Tageswerkstatt", "day": day, "attempt": 1,
                            "practice": False, "stage": None, "stage_title": None}
    sent = table_service.last
    assert sent["mode"] == {"key": "tageswerkstatt", "day": day, "attempt": 1, "stage": None}
    assert hashlib.sha256(bytes.fromhex(sent["seed"])).hexdigest() == published["commitment"]
    assert sent["seed_reveal_at"] == published["reveal_at"] == iso_z(day_end(berlin_day(lobby.clock.now())))
    assert sent["settings"] == {"workshop": "kachelwand", "wall": "fest", "jokers": "ohne"}
    assert [(seat["kind"], seat["level"]) for seat in sent["seats"]] == [("human", None), ("bot", "normal")]
    await end_started_game(lobby_nc, sent)

    second = await solo(lobby.http, anna, game="speedmosaik", mode="tageswerkstatt",
                        settings={"tempo": "schnell", "workshop": "kachelwand"})

    assert second.status_code == 201, second.text
    assert second.json()["mode"]["attempt"] == 2 and second.json()["mode"]["practice"] is True
    again = table_service.last
    assert again["mode"] == {"key": "tageswerkstatt", "day": day, "attempt": 2, "stage": None}
    assert again["seed"] == sent["seed"] and again["platform"]["tempo"] == "schnell"
    await end_started_game(lobby_nc, again)

    # "Nochmal" at a daily table goes through the mode too: the next attempt, the same seed.
    nochmal = await lobby.http.post(f"/tables/{second.json()['table_id']}/rematch", headers=anna["headers"])
    assert nochmal.status_code == 200, nochmal.text
    assert nochmal.json()["mode"]["attempt"] == 3 and table_service.last["seed"] == sent["seed"]
    assert table_service.last["mode"]["attempt"] == 3

    async with sessions_of(lobby.runtime)() as session:
        attempts = (await session.execute(select(DailyAttempt.attempt, DailyAttempt.game_id).where(
            DailyAttempt.player_id == anna["player_id"]).order_by(DailyAttempt.attempt))).all()
    assert [tuple(row) for row in attempts] == [(1, sent["game_id"]), (2, again["game_id"]),
                                                (3, table_service.last["game_id"])]


async def test_what_a_mode_fixes_cannot_be_chosen(lobby: Lobby, table_service: TableStandIn) -> None:
    anna = await new_guest(lobby.http, "Anna")
    daily = {"game": "speedmosaik", "mode": "tageswerkstatt"}

    other_wall = await solo(lobby.http, anna, **daily, settings={"wall": "frei"})
    unknown_key = await solo(lobby.http, anna, **daily, settings={"workshop": "kachelwand", "farbe": "rot"})
    two = await solo(lobby.http, anna, **daily, opponents=2)
    strong = await solo(lobby.http, anna, **daily, bot_level="strong")
    stake = await solo(lobby.http, anna, **daily, settings={"stake": 10})
    stage = await solo(lobby.http, anna, **daily, stage=1)
    name = await solo(lobby.http, anna, **daily, name="Bert")
    unknown_mode = await solo(lobby.http, anna, game="speedmosaik", mode="blitz")
    free_but_four = await solo(lobby.http, anna, game="speedmosaik", mode="solo", opponents=4)

    assert other_wall.status_code == 422 and other_wall.json() == {
        "detail": "„Tageswerkstatt“ spielt mit festen Einstellungen: „wall“ lässt sich hier nicht wählen.",
        "code": "fixed_settings"}
    assert unknown_key.status_code == 422 and unknown_key.json()["code"] == "fixed_settings"
    assert two.status_code == 422 and two.json() == {
        "detail": "In „Tageswerkstatt“ spielst du gegen 1 Computer.", "code": "invalid_opponents"}
    assert strong.status_code == 422 and strong.json() == {
        "detail": "In „Tageswerkstatt“ spielen die Computer „normal“.", "code": "invalid_bot_level"}
    assert stake.status_code == 422 and stake.json()["detail"] == "Solo spielst du ohne Einsatz."
    assert stage.status_code == 422 and stage.json()["code"] == "invalid_stage"
    assert name.status_code == 422 and name.json()["code"] == "invalid_request"
    assert unknown_mode.status_code == 404 and unknown_mode.json() == {
        "detail": "Einen Spielmodus „blitz“ gibt es bei Speedmosaik nicht.", "code": "unknown_mode"}
    assert free_but_four.status_code == 422 and free_but_four.json()["code"] == "invalid_opponents"
    assert table_service.requests == []
    assert (await lobby.http.get("/me/unfinished", headers=anna["headers"])).json() == []


async def test_a_free_mode_lets_the_player_choose(lobby: Lobby, table_service: TableStandIn) -> None:
    anna = await new_guest(lobby.http, "Anna")

    started = await solo(lobby.http, anna, game="speedmosaik", mode="solo", opponents=3, bot_level="strong",
                         settings={"workshop": "kachelwand", "think_time": 60})

    assert started.status_code == 201, started.text
    sent = table_service.last
    assert sent["mode"] == {"key": "solo", "day": None, "attempt": None, "stage": None}
    assert sent["seed"] is None and sent["seed_reveal_at"] is None
    assert [seat["level"] for seat in sent["seats"][1:]] == ["strong"] * 3
    assert sent["platform"]["think_time"] == 60


async def test_one_unfinished_game_per_mode_unless_the_older_is_given_up(
        lobby: Lobby, table_service: TableStandIn) -> None:
    anna = await new_guest(lobby.http, "Anna")
    first = (await solo(lobby.http, anna, game="tinygame", mode="tagesstich")).json()
    other_mode = await solo(lobby.http, anna, game="tinygame", mode="frei")  # another mode: allowed
    assert other_mode.status_code == 201, other_mode.text
    count = len(table_service.requests)

    refused = await solo(lobby.http, anna, game="tinygame", mode="tagesstich")

    assert refused.status_code == 409
    assert refused.json() == {
        "detail": f"Du hast in „Tagesstich“ noch eine unfertige Partie ({first['game_id']}): spiel sie weiter "
                  "oder gib sie auf („give_up_unfinished“).", "code": "unfinished_game"}
    assert len(table_service.requests) == count and table_service.leaves == []

    given_up = await solo(lobby.http, anna, game="tinygame", mode="tagesstich", give_up_unfinished=True)

    assert given_up.status_code == 201, given_up.text
    assert table_service.leaves == [{"game_id": first["game_id"], "player_id": anna["player_id"]}]
    assert given_up.json()["mode"]["attempt"] == 2  # the given-up game was the day's first attempt
    old = (await lobby.http.get(f"/tables/{first['table_id']}")).json()
    assert old["status"] == "finished"
    running = (await lobby.http.get("/me/unfinished", headers=anna["headers"])).json()
    assert {entry["game_id"] for entry in running} == {given_up.json()["game_id"], other_mode.json()["game_id"]}


async def test_a_give_up_lost_with_a_dying_table_replica_is_asked_again(
        lobby: Lobby, table_service: TableStandIn) -> None:
    anna = await new_guest(lobby.http, "Anna")
    first = (await solo(lobby.http, anna, game="tinygame", mode="frei")).json()
    table_service.dying.add("leave")  # the replica that takes the leave dies with it

    again = await solo(lobby.http, anna, game="tinygame", mode="frei", give_up_unfinished=True)

    assert again.status_code == 201, again.text
    assert table_service.leaves == [{"game_id": first["game_id"], "player_id": anna["player_id"]}]


async def test_the_table_having_let_the_player_go_already_is_fine(
        lobby: Lobby, table_service: TableStandIn) -> None:
    anna = await new_guest(lobby.http, "Anna")
    first = (await solo(lobby.http, anna, game="tinygame", mode="frei")).json()
    # The player left at the table already (e.g. an earlier give-up whose start then failed).
    table_service.leaves.append({"game_id": first["game_id"], "player_id": anna["player_id"]})

    again = await solo(lobby.http, anna, game="tinygame", mode="frei", give_up_unfinished=True)

    assert again.status_code == 201, again.text


async def test_a_failed_start_changes_nothing(lobby: Lobby, table_service: TableStandIn) -> None:
    anna = await new_guest(lobby.http, "Anna")
    table_service.refusal = CommandRefused(503, "Gerade nicht.", "busy")

    failed = await solo(lobby.http, anna, game="tinygame", mode="tagesstich")

    assert failed.status_code == 503
    table_service.refusal = None
    async with sessions_of(lobby.runtime)() as session:
        attempts = (await session.execute(select(DailyAttempt).where(
            DailyAttempt.player_id == anna["player_id"]))).scalars().all()
    assert attempts == []
    assert (await lobby.http.get("/me/unfinished", headers=anna["headers"])).json() == []
    started = await solo(lobby.http, anna, game="tinygame", mode="tagesstich")
    assert started.status_code == 201 and started.json()["mode"]["attempt"] == 1


async def test_plain_solo_tables_stay_outside_the_modes(lobby: Lobby, table_service: TableStandIn) -> None:
    anna = await new_guest(lobby.http, "Anna")

    first = await lobby.http.post("/tables/solo", json={"opponents": 1}, headers=anna["headers"])
    second = await lobby.http.post("/tables/solo", json={"opponents": 2}, headers=anna["headers"])

    assert first.status_code == second.status_code == 201
    assert first.json()["mode"] is None and table_service.last.get("mode") is None
    running = (await lobby.http.get("/me/unfinished", headers=anna["headers"])).json()
    assert {entry["table_id"] for entry in running} == {first.json()["table_id"], second.json()["table_id"]}
    assert all(entry["mode"] is None and entry["practice"] is False for entry in running)
