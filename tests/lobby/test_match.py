"""Quick match: players of like rating are seated together at a table that starts at once, computers of a like
rating fill in after the time a player chose, cancelling and going away give the stake back, and with two lobby
replicas on one database and one NATS nobody is ever seated twice.

The lobbies here run on a database of their own (a fresh one, migrated), so no other test's lobby matches
their queues; both share one clock the tests move forward.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import psycopg
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import LEADERBOARD_QUEUE, LEADERBOARD_RATINGS
from libs.platform.database import upgrade_service
from libs.platform.rpc import serve
from libs.platform.settings import Settings
from services.lobby.app import create_app
from services.lobby.matchmaking import MatchSettings
from tests.clocks import ShiftedClock
from tests.conftest import Infrastructure, running_app
from tests.lobby.conftest import TableStandIn, new_guest, new_registered, taler_of

HEARTBEAT = 120.0


@dataclass
class Replicas:
    """Two lobby replicas on one database and one NATS, sharing one clock."""

    first: httpx.AsyncClient
    second: httpx.AsyncClient
    clock: ShiftedClock


@pytest.fixture(scope="module")
def match_database(infra: Infrastructure) -> Iterator[str]:
    """A fresh database with the lobby's schema, for this module's lobbies only (dropped afterwards)."""
    name = f"match_{uuid.uuid4().hex[:10]}"
    admin_url = infra.database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = infra.database_url.rsplit("/", 1)[0] + f"/{name}"
    upgrade_service("lobby", url)
    try:
        yield url
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
async def replicas(lobby_settings: Settings, match_database: str) -> AsyncIterator[Replicas]:
    """Two lobby apps (workers included) on the fresh database and the lobby tests' NATS."""
    settings = lobby_settings.model_copy(update={"database_url": match_database})
    clock = ShiftedClock()
    match_settings = MatchSettings(match_heartbeat_seconds=HEARTBEAT, match_interval_seconds=0.2)
    async with running_app(create_app(settings, clock=clock, match_settings=match_settings)) as first, \
            running_app(create_app(settings, clock=clock, match_settings=match_settings)) as second:
        yield Replicas(first, second, clock)


@pytest.fixture
async def ratings(lobby_nc: NatsClient) -> AsyncIterator[dict[str, int]]:
    """A stand-in for the leaderboard's `leaderboard.cmd.ratings`: the test fills in players' ratings (others are
    new, 1500) and computer levels' (key "computer:<level>")."""
    known: dict[str, int] = {}

    async def answer(payload: dict[str, Any]) -> dict[str, Any]:
        def rating(key: str, value: int) -> dict[str, Any]:
            return {"key": key, "mu": value / 60, "sigma": 5.0, "rating": value, "uncertainty": 300, "games": 12}

        players = [rating(player, known.get(player, 1500)) for player in payload.get("player_ids", [])]
        computers = [rating(key.removeprefix("computer:"), value) for key, value in known.items()
                     if key.startswith("computer:")]
        return {"players": players, "computers": computers}

    subscription = await serve(lobby_nc, LEADERBOARD_RATINGS, LEADERBOARD_QUEUE, answer)
    await lobby_nc.flush()
    yield known
    await subscription.unsubscribe()


async def until_settled(http: httpx.AsyncClient, player: dict[str, Any], match: dict[str, Any],
                        timeout: float = 15.0) -> dict[str, Any]:
    """Ask for the match (the heartbeat) until it is no longer waiting; return it."""
    deadline = time.monotonic() + timeout
    while True:
        answer = await http.get(f"/match/{match['match_id']}", headers=player["headers"])
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        if body["status"] != "waiting":
            return body
        assert time.monotonic() < deadline, f"still waiting: {body}"
        await asyncio.sleep(0.1)


async def enter(http: httpx.AsyncClient, player: dict[str, Any], **body: Any) -> dict[str, Any]:
    answer = await http.post("/match", json={"game": "speedmosaik", "variant": "kachelwand", **body},
                             headers=player["headers"])
    assert answer.status_code == 201, answer.text
    match: dict[str, Any] = answer.json()
    assert match["status"] == "waiting"
    return match


async def test_two_players_are_seated_at_one_table_that_starts_at_once(
        replicas: Replicas, table_service: TableStandIn) -> None:
    anna, ben = await new_guest(replicas.first), await new_guest(replicas.second)
    first = await enter(replicas.first, anna, seats=2)
    second = await enter(replicas.second, ben, seats="2–4")

    seated = [await until_settled(replicas.first, anna, first), await until_settled(replicas.second, ben, second)]

    assert [each["status"] for each in seated] == ["seated", "seated"]
    assert seated[0]["game_id"] == seated[1]["game_id"] and seated[0]["game_id"]
    table = seated[0]["table"]
    assert table["status"] == "playing" and table["player_count"] == 2
    assert {seat["player_id"] for seat in table["seats"]} == {anna["player_id"], ben["player_id"]}
    started = next(each for each in table_service.requests if each["game_id"] == seated[0]["game_id"])
    assert started["settings"]["workshop"] == "kachelwand" and len(started["seats"]) == 2
    # a table like any other: the lobby shows it, and its players are the game's (chat, Nochmal)
    shown = (await replicas.second.get(f"/tables/{table['table_id']}")).json()
    assert shown["game_id"] == seated[0]["game_id"]


async def test_players_are_seated_with_those_of_like_rating(
        replicas: Replicas, table_service: TableStandIn, ratings: dict[str, int]) -> None:
    players = [await new_guest(replicas.first) for _ in range(4)]
    for player, rating in zip(players, (1200, 1900, 1260, 1950), strict=True):
        ratings[player["player_id"]] = rating
    matches = [await enter(replicas.first if index % 2 else replicas.second, player, seats=2)
               for index, player in enumerate(players)]

    seated = [await until_settled(replicas.first, player, match)
              for player, match in zip(players, matches, strict=True)]

    assert [match["rating"] for match in matches] == [1200, 1900, 1260, 1950]
    assert seated[0]["game_id"] == seated[2]["game_id"]  # 1200 with 1260
    assert seated[1]["game_id"] == seated[3]["game_id"]  # 1900 with 1950
    assert seated[0]["game_id"] != seated[1]["game_id"]


async def test_the_window_widens_with_waiting_until_distant_players_meet(
        replicas: Replicas, table_service: TableStandIn, ratings: dict[str, int]) -> None:
    low, high = await new_guest(replicas.first), await new_guest(replicas.first)
    ratings[low["player_id"]], ratings[high["player_id"]] = 1300, 1700
    first, second = await enter(replicas.first, low, seats=2), await enter(replicas.second, high, seats=2)
    await asyncio.sleep(1.0)
    assert (await replicas.first.get(f"/match/{first['match_id']}", headers=low["headers"])).json()["status"] \
        == "waiting"

    replicas.clock.advance(seconds=40)  # ±500 for both now

    assert (await until_settled(replicas.first, low, first))["game_id"] == \
        (await until_settled(replicas.second, high, second))["game_id"]


async def test_a_lone_player_is_filled_with_computers_of_the_nearest_level_after_the_chosen_time(
        replicas: Replicas, table_service: TableStandIn, ratings: dict[str, int]) -> None:
    alone = await new_guest(replicas.first)
    ratings.update({alone["player_id"]: 1750, "computer:easy": 1100, "computer:normal": 1450,
                    "computer:strong": 1820})
    match = await enter(replicas.first, alone, seats=3, fill_after=30)
    await asyncio.sleep(1.0)
    assert (await replicas.first.get(f"/match/{match['match_id']}", headers=alone["headers"])).json()["status"] \
        == "waiting"

    replicas.clock.advance(seconds=31)
    seated = await until_settled(replicas.first, alone, match)

    assert seated["status"] == "seated"
    seats = seated["table"]["seats"]
    assert [seat["kind"] for seat in seats] == ["human", "bot", "bot"]
    assert {seat["level"] for seat in seats[1:]} == {"strong"}


async def test_never_filled_with_computers_when_the_player_said_never(
        replicas: Replicas, table_service: TableStandIn) -> None:
    patient = await new_guest(replicas.first)
    match = await enter(replicas.first, patient, seats=4, fill_after=None)
    replicas.clock.advance(seconds=100)
    await asyncio.sleep(1.0)

    answer = (await replicas.first.get(f"/match/{match['match_id']}", headers=patient["headers"])).json()
    assert answer["status"] == "waiting" and answer["fill_at"] is None
    assert (await replicas.first.delete(f"/match/{match['match_id']}", headers=patient["headers"])).json()[
        "status"] == "cancelled"


async def test_refusals_say_why_in_german(replicas: Replicas, ledger_service: httpx.AsyncClient,
                                          lobby_nc: NatsClient, table_service: TableStandIn) -> None:
    guest = await new_guest(replicas.first)

    async def refused(**body: Any) -> dict[str, Any]:
        answer = await replicas.first.post("/match", json=body, headers=guest["headers"])
        assert answer.status_code in (409, 422), answer.text
        return {"status": answer.status_code, **answer.json()}

    assert await refused(game="schach") == {
        "status": 422, "detail": "Das Spiel „schach“ gibt es hier nicht.", "code": "unknown_game"}
    unknown_variant = await refused(game="speedmosaik", variant="dachboden")
    assert unknown_variant["code"] == "unknown_variant"
    assert unknown_variant["detail"].startswith("Die Variante „dachboden“ gibt es bei Speedmosaik nicht")
    seats = await refused(game="speedmosaik", seats=5)
    assert seats["code"] == "invalid_seats"
    assert seats["detail"] == "Schnell spielen gibt es bei Speedmosaik mit 2, 3 oder 4 Plätzen oder „2–4“."

    match = await enter(replicas.first, guest, seats=4)
    twice = await replicas.second.post("/match", json={"game": "speedkoi"}, headers=guest["headers"])
    assert twice.status_code == 409 and twice.json()["code"] == "already_queued"
    assert twice.json()["detail"].startswith("Du wartest schon auf eine Partie.")
    await replicas.first.delete(f"/match/{match['match_id']}", headers=guest["headers"])

    rich = await new_registered(replicas.first, lobby_nc)
    table = await replicas.first.post("/tables", json={"settings": {"stake": 50}, "player_count": 4},
                                      headers=rich["headers"])
    assert table.status_code == 201
    poor = await replicas.first.post("/match", json={"game": "speedmosaik", "stake": 100, "seats": 2},
                                     headers=rich["headers"])
    assert poor.status_code == 409
    assert poor.json()["detail"] == "Nicht genug Taler für den Einsatz von 100 Taler: du hast 50 Taler."


async def test_stakes_are_held_while_waiting_and_given_back_on_cancel(
        replicas: Replicas, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient,
        table_service: TableStandIn) -> None:
    player = await new_registered(replicas.first, lobby_nc)
    match = await enter(replicas.first, player, seats=4, stake=25)
    assert match["stake_held"] is True
    assert await taler_of(lobby_nc, player) == 75

    cancelled = await replicas.second.delete(f"/match/{match['match_id']}", headers=player["headers"])

    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert cancelled.json()["stake_held"] is False
    assert await taler_of(lobby_nc, player) == 100


async def test_a_player_who_goes_away_is_dropped_and_gets_the_stake_back(
        replicas: Replicas, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient,
        table_service: TableStandIn) -> None:
    player = await new_registered(replicas.first, lobby_nc)
    match = await enter(replicas.first, player, seats=4, stake=10)
    assert await taler_of(lobby_nc, player) == 90

    replicas.clock.advance(seconds=HEARTBEAT + 1)
    await asyncio.sleep(1.0)  # matching rounds run meanwhile; asking now would be a heartbeat
    dropped = (await replicas.second.get(f"/match/{match['match_id']}", headers=player["headers"])).json()

    assert dropped["status"] == "dropped"
    assert dropped["reason"].startswith("Du warst zu lange nicht da")
    assert await taler_of(lobby_nc, player) == 100


async def test_seated_stake_players_pay_into_the_table_and_cannot_cancel_any_more(
        replicas: Replicas, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient,
        table_service: TableStandIn) -> None:
    anna, ben = await new_registered(replicas.first, lobby_nc), await new_registered(replicas.first, lobby_nc)
    first = await enter(replicas.first, anna, seats=2, stake=50, variant="sternpavillon")
    second = await enter(replicas.second, ben, seats=2, stake=50, variant="sternpavillon")

    seated = await until_settled(replicas.first, anna, first)
    await until_settled(replicas.second, ben, second)

    assert [seat["stake_held"] for seat in seated["table"]["seats"]] == [True, True]
    assert seated["table"]["settings"]["stake"] == 50
    assert await taler_of(lobby_nc, anna) == 50 and await taler_of(lobby_nc, ben) == 50
    late = await replicas.first.delete(f"/match/{first['match_id']}", headers=anna["headers"])
    assert late.status_code == 409 and late.json()["code"] == "already_seated"


async def test_with_two_replicas_and_many_players_nobody_is_seated_twice(
        replicas: Replicas, table_service: TableStandIn) -> None:
    players = await asyncio.gather(*(new_guest(replicas.first) for _ in range(48)))
    entries = await asyncio.gather(*(
        enter(replicas.first if index % 2 else replicas.second, player, variant="kirchenfenster",
              seats=("2-4", 2, 3, 4)[index % 4], fill_after=20)
        for index, player in enumerate(players)))
    replicas.clock.advance(seconds=21)  # whoever is left over gets computers

    settled = await asyncio.gather(*(until_settled(replicas.first if index % 3 else replicas.second, player, match)
                                     for index, (player, match) in enumerate(zip(players, entries, strict=True))))

    assert {match["status"] for match in settled} == {"seated"}
    ours = {player["player_id"] for player in players}
    starts = [start for start in table_service.requests
              if any(seat.get("player_id") in ours for seat in start["seats"])]
    seatings = Counter(seat["player_id"] for start in starts for seat in start["seats"] if seat.get("player_id"))
    assert set(seatings) == ours and set(seatings.values()) == {1}
    for player, match in zip(players, settled, strict=True):
        start = next(start for start in starts if start["game_id"] == match["game_id"])
        assert player["player_id"] in {seat.get("player_id") for seat in start["seats"]}
        assert len(start["seats"]) in match["seats"]


async def test_a_seated_players_stake_moves_from_the_queue_to_the_table_without_ever_being_free(
        replicas: Replicas, ledger_service: httpx.AsyncClient, lobby_nc: NatsClient,
        table_service: TableStandIn) -> None:
    """The wallet's history, as its player reads it: the stake leaves the wallet once, on entering the queue, and
    never comes back until the game is paid out; no moment where the Taler were free to spend elsewhere."""
    anna, ben = await new_registered(replicas.first, lobby_nc), await new_registered(replicas.first, lobby_nc)
    first = await enter(replicas.first, anna, seats=2, stake=25, variant="kirchenfenster")
    second = await enter(replicas.second, ben, seats=2, stake=25, variant="kirchenfenster")

    seated = await until_settled(replicas.first, anna, first)
    await until_settled(replicas.second, ben, second)

    assert [seat["stake_held"] for seat in seated["table"]["seats"]] == [True, True]
    for player in (anna, ben):
        history = await ledger_service.get("/wallets/me/transactions", headers=player["headers"])
        assert history.status_code == 200, history.text
        lines = list(reversed(history.json()["transactions"]))  # oldest first
        assert [line["balance_after"] for line in lines] == [100, 75], lines
        assert [line["amount"] for line in lines] == [100, -25], lines
        assert await taler_of(lobby_nc, player) == 75
