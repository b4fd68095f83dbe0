"""A Speednova 2 v 2 game played through the table in which a human leaves (issue 36): the table's `GameEnded`
ranks the team by its result (the rules: partners share the team's place; the computer plays the leaver's seat
on) and names the leaver, and the leaderboard rates the partner who played on by that result, the leaver last."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import TABLE_START
from libs.platform.envelope import EventType
from libs.platform.rpc import request
from libs.platform.settings import Settings
from services.bot.app import create_app as create_bot_app
from services.table.app import create_app as create_table_app
from tests.audit.games import FixedSeeds, bearer, player, wait_ended
from tests.conftest import running_app


async def projected(leaderboard: httpx.AsyncClient, game_id: str) -> dict[str, Any]:
    """The leaderboard's end table of the game, once its consumer has projected the game's end."""
    for _ in range(300):
        answer = await leaderboard.get(f"/games/{game_id}")
        if answer.status_code == 200:
            table: dict[str, Any] = answer.json()
            return table
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game_id} was not projected")


async def test_a_speednova_team_game_a_human_left_ranks_and_rates_the_partner_by_the_teams_result(
        settings: Settings, nc: NatsClient, leaderboard: httpx.AsyncClient) -> None:
    anna = player("Anna")
    seats = [{"kind": "human", "player_id": anna.player_id, "name": anna.name}, {"kind": "bot", "level": "easy"},
             {"kind": "bot", "level": "strong"}, {"kind": "bot", "level": "easy"}]
    # The same deal every run; Anna's team wins it in most runs (the computers' timing varies), and then the
    # partner's rating must rise where ranking the whole team last lowered it.
    async with running_app(create_table_app(settings, seeds=FixedSeeds())) as table, \
            running_app(create_bot_app(settings)):
        game_id = str((await request(nc, TABLE_START, {"game": "speednova", "settings": {"teams": "mit"},
                                                        "seats": seats}))["game_id"])
        assert (await table.post(f"/games/{game_id}/leave", headers=bearer(settings, anna))).status_code == 200
        await wait_ended(table, game_id, timeout=120)
        log = (await table.get(f"/games/{game_id}/events")).json()["events"]

    ended = next(event["data"] for event in log if event["type"] == EventType.GAME_ENDED)
    places = ended["outcome"]["places"]
    assert (ended["teams"], ended["left"], ended["left_with_other_humans"]) == ([[0, 2], [1, 3]], [0], [])
    assert places[0] == places[2] and places[1] == places[3] and sorted(places) in ([1, 1, 3, 3], [1, 1, 1, 1])
    end = await projected(leaderboard, game_id)
    left, _, partner, _ = (seat["rating"] for seat in end["seats"])
    assert left["mu_after"] < left["mu_before"] == 25  # Anna is rated last: she left
    # The partner, the strong computer, moves with the team's result: up for a win, down for a loss.
    if places[2] < places[1]:
        assert partner["mu_after"] > partner["mu_before"], (places, partner)
    elif places[2] > places[1]:
        assert partner["mu_after"] < partner["mu_before"], (places, partner)
    results = (await leaderboard.get(f"/players/{anna.player_id}/results")).json()["results"]
    assert [(result["game_id"], result["points"], result["has_left"]) for result in results] == [
        (game_id, 0, True)]  # left a game without other humans: 0 list points
