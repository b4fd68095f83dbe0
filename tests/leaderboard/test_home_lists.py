"""A game's solo modes and their lists: the all-time list (each player's best) and the daily mode's day lists."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import httpx
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import game_fact_msg_id
from libs.platform.days import day_end, iso_z
from tests.leaderboard.conftest import publish, publish_and_wait, wait_until_consumed
from tests.leaderboard.home_facts import at_day, bot, ended, fresh_game, get_json, human

DAY = date(2026, 3, 14)


def lines(body: dict[str, object]) -> list[tuple[object, ...]]:
    entries = body["entries"]
    assert isinstance(entries, list)
    return [(entry["rank"], entry["name"], entry["list_key"]) for entry in entries]


async def test_a_game_lists_its_solo_modes_with_the_campaign_stages(leaderboard: httpx.AsyncClient) -> None:
    game = fresh_game()

    body = await get_json(leaderboard, f"/modes/{game}")

    assert [(mode["key"], mode["title"], mode["daily"]) for mode in body["modes"]] == [
        ("frei", "Freies Spiel", False), ("tagesstich", "Tagesstich", True), ("reise", "Stich-Reise", False)]
    daily = body["modes"][1]
    assert daily["list_order"] == ["score", "tie_break"] and daily["campaign"] == []
    assert [(stage["number"], stage["title"], stage["opponents"]) for stage in body["modes"][2]["campaign"]] == [
        (1, "Erster Stich", ["easy"]), (2, "Zweiter Stich", ["easy", "easy"])]
    speedmosaik = await get_json(leaderboard, "/modes/speedmosaik")
    assert [mode["key"] for mode in speedmosaik["modes"]] == ["solo", "tageswerkstatt"]


async def test_the_all_time_list_ranks_each_players_best_result_by_points_then_tie_break(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna, bert, cleo, dora = human("Anna"), human("Bert"), human("Cleo"), human("Dora")
    await publish_and_wait(
        nc,
        ended(game, [anna, bot()], scores=[5, 2], tie_break=[1, 0], mode="frei", at=at_day(DAY, 8)),
        ended(game, [anna, bot()], scores=[7, 2], tie_break=[0, 0], mode="frei", at=at_day(DAY, 9)),  # her best
        ended(game, [bert, bot()], scores=[7, 2], tie_break=[2, 0], mode="frei", at=at_day(DAY, 10)),  # more tricks
        ended(game, [cleo, bot()], scores=[7, 1], tie_break=[0, 0], mode="frei", at=at_day(DAY, 11)),  # as Anna, later
        ended(game, [dora, bot()], scores=[3, 1], tie_break=[0, 0], mode="frei", at=at_day(DAY, 7)),
    )

    body = await get_json(leaderboard, f"/modes/{game}/frei")

    assert lines(body) == [(1, "Bert", [7, 2]), (2, "Anna", [7, 0]), (2, "Cleo", [7, 0]), (4, "Dora", [3, 0])]
    assert body["total"] == 4 and body["title"] == "Freies Spiel" and body["day"] is None
    first = body["entries"][1]
    assert (first["player_id"], first["score"], first["day"]) == (anna["player_id"], 7, None)
    page = await get_json(leaderboard, f"/modes/{game}/frei", limit=2, offset=1)
    assert [(entry["rank"], entry["name"]) for entry in page["entries"]] == [(2, "Anna"), (2, "Cleo")]
    assert page["total"] == 4


async def test_practice_and_left_games_enter_neither_the_day_list_nor_the_all_time_list(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna, bert, cleo = human("Anna"), human("Bert"), human("Cleo")
    await publish_and_wait(
        nc,
        ended(game, [anna, bot()], scores=[3, 5], mode="tagesstich", day=DAY, attempt=1, at=at_day(DAY, 8)),
        ended(game, [anna, bot()], scores=[9, 1], mode="tagesstich", day=DAY, attempt=2, at=at_day(DAY, 9)),
        ended(game, [bert, bot()], scores=[8, 1], mode="tagesstich", day=DAY, attempt=1, left=[0],
              at=at_day(DAY, 10)),
        ended(game, [cleo, bot()], scores=[4, 1], mode="tagesstich", day=DAY, attempt=1, at=at_day(DAY, 11)),
        ended(game, [cleo, bot()], scores=[6, 1], mode="tagesstich", day=date(2026, 3, 15), attempt=1),
    )

    day_list = await get_json(leaderboard, f"/modes/{game}/tagesstich/days/{DAY.isoformat()}")
    all_time = await get_json(leaderboard, f"/modes/{game}/tagesstich")

    assert lines(day_list) == [(1, "Cleo", [4, 0]), (2, "Anna", [3, 0])]
    assert day_list["day"] == DAY.isoformat() and day_list["entries"][1]["day"] == DAY.isoformat()
    assert lines(all_time) == [(1, "Cleo", [6, 0]), (2, "Anna", [3, 0])]
    empty = await get_json(leaderboard, f"/modes/{game}/tagesstich/days/2026-03-13")
    assert (empty["total"], empty["entries"]) == (0, [])


async def test_a_first_attempt_that_ends_after_its_seed_is_revealed_is_practice(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna, bert = human("Anna"), human("Bert")
    reveal = iso_z(day_end(DAY))
    late = ended(game, [anna, bot()], scores=[9, 1], mode="tagesstich", day=DAY, attempt=1,
                 at=day_end(DAY) + timedelta(minutes=5), seed_reveal_at=reveal)
    await publish_and_wait(
        nc, late,
        ended(game, [bert, bot()], scores=[4, 1], mode="tagesstich", day=DAY, attempt=1,
              at=day_end(DAY) - timedelta(minutes=5), seed_reveal_at=reveal),
    )

    day_list = await get_json(leaderboard, f"/modes/{game}/tagesstich/days/{DAY.isoformat()}")
    end_table = await get_json(leaderboard, f"/games/{late.game_id}")

    assert lines(day_list) == [(1, "Bert", [4, 0])]
    assert (end_table["mode"]["practice"], end_table["mode"]["late"], end_table["mode"]["attempt"]) == (True, True, 1)


async def test_a_fact_delivered_twice_gives_one_result_and_one_award(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna = human("Anna")
    event = ended(game, [anna, bot()], scores=[4, 2], mode="frei", badges=[["erster_stich"], []])

    await publish(nc, event)
    again = await publish(nc, event, msg_id=f"{game_fact_msg_id(event.game_id, event.n)}:again")
    await wait_until_consumed(nc, again)

    assert len((await get_json(leaderboard, f"/modes/{game}/frei"))["entries"]) == 1
    history = await get_json(leaderboard, f"/players/{anna['player_id']}/history", game=game)
    assert history["total"] == 1
    badges = await get_json(leaderboard, f"/players/{anna['player_id']}/badges", game=game)
    assert [(badge["key"], badge["game_id"]) for badge in badges["badges"] if badge["earned"]] == [
        ("erster_stich", event.game_id)]
    [seat, _] = (await get_json(leaderboard, f"/games/{event.game_id}"))["seats"]
    assert [badge["key"] for badge in seat["new_badges"]] == ["erster_stich"]


async def test_unknown_games_modes_and_days_are_refused_with_german_reasons(leaderboard: httpx.AsyncClient) -> None:
    game = fresh_game()

    unknown_game = await get_json(leaderboard, "/modes/schach", 404)
    unknown_mode = await get_json(leaderboard, f"/modes/{game}/blitz", 404)
    not_daily = await get_json(leaderboard, f"/modes/{game}/frei/days/2026-03-14", 404)
    bad_day = await get_json(leaderboard, f"/modes/{game}/tagesstich/days/14.03.2026", 422)
    no_such_day = await get_json(leaderboard, f"/modes/{game}/tagesstich/days/2026-02-30", 422)

    assert unknown_game == {"detail": "Ein Spiel „schach“ gibt es hier nicht.", "code": "unknown_game"}
    assert unknown_mode == {"detail": f"Einen Spielmodus „blitz“ gibt es bei „{game}“ nicht.", "code": "unknown_mode"}
    assert not_daily == {"detail": "„Freies Spiel“ ist kein Tagesmodus und hat keine Tageslisten.",
                         "code": "not_daily"}
    assert bad_day["code"] == no_such_day["code"] == "bad_day"
    assert bad_day["detail"] == "„14.03.2026“ ist kein Tag; erwartet wird JJJJ-MM-TT, z. B. 2026-12-01."
    assert (await get_json(leaderboard, "/modes/schach/frei", 404))["code"] == "unknown_game"
    assert (await get_json(leaderboard, "/players/p-x/history", 404, game="schach"))["code"] == "unknown_game"
    assert (await get_json(leaderboard, "/players/p-x/badges", 404, game="schach"))["code"] == "unknown_game"


async def test_a_game_without_a_mode_stays_out_of_the_mode_lists(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna = human("Anna")
    event = ended(game, [anna, bot()], scores=[4, 2], at=datetime(2026, 3, 14, 23, 30, tzinfo=UTC))
    await publish_and_wait(nc, event)

    assert (await get_json(leaderboard, f"/modes/{game}/frei"))["entries"] == []
    [item] = (await get_json(leaderboard, f"/players/{anna['player_id']}/history", game=game))["games"]
    # 23:30 UTC in March is 00:30 the next day in Berlin.
    assert (item["mode"], item["practice"], item["stage"], item["date"]) == (None, False, None, "2026-03-15")
    table = await get_json(leaderboard, f"/games/{event.game_id}")
    assert (table["mode"], table["campaign"]) == (None, None)
