"""Badges (once per player: from GameEnded's badges and from daily streaks), the end table's mode, new
badges and campaign stage, and the rebuild that gives the same lists, badges and streaks."""

from __future__ import annotations

from datetime import date, timedelta

import httpx
from nats.aio.client import Client as NatsClient

from libs.platform.database import create_engine, session_factory
from libs.platform.settings import Settings
from services.leaderboard.projection import rebuild
from tests.leaderboard.conftest import publish_and_wait
from tests.leaderboard.home_facts import at_day, bot, ended, fresh_game, get_json, human

DAY = date(2026, 4, 6)


def day(offset: int) -> date:
    return DAY + timedelta(days=offset)


async def earned(leaderboard: httpx.AsyncClient, player: dict[str, str], game: str) -> dict[str, str]:
    """The player's earned badges of `game`: key -> the game that earned it."""
    body = await get_json(leaderboard, f"/players/{player['player_id']}/badges", game=game)
    return {badge["key"]: badge["game_id"] for badge in body["badges"] if badge["earned"]}


async def new_badges(leaderboard: httpx.AsyncClient, game_id: str) -> list[list[str]]:
    seats = (await get_json(leaderboard, f"/games/{game_id}"))["seats"]
    return [[badge["key"] for badge in seat["new_badges"]] for seat in seats]


async def test_a_badge_is_awarded_once_and_is_new_only_on_the_first_games_end_table(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna = human("Anna")
    first = ended(game, [anna, bot()], scores=[4, 2], mode="frei", badges=[["erster_stich"], []], at=at_day(DAY, 8))
    second = ended(game, [anna, bot()], scores=[6, 2], mode="frei", badges=[["erster_stich"], []], at=at_day(DAY, 9))
    await publish_and_wait(nc, first, second)

    assert await earned(leaderboard, anna, game) == {"erster_stich": first.game_id}
    assert await new_badges(leaderboard, first.game_id) == [["erster_stich"], []]
    assert await new_badges(leaderboard, second.game_id) == [[], []]
    [seat, _] = (await get_json(leaderboard, f"/games/{first.game_id}"))["seats"]
    assert seat["new_badges"] == [{"key": "erster_stich", "title": "Erster Stich", "book": "Abzeichen"}]


async def test_the_badge_list_shows_every_badge_of_the_home_grouped_by_book(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna, bert = human("Anna"), human("Bert")
    event = ended(game, [anna, bert], scores=[0, 4], badges=[["leer", "zauberstab"], ["erster_stich"]],
                  at=at_day(DAY, 8))
    await publish_and_wait(nc, event)

    body = await get_json(leaderboard, f"/players/{anna['player_id']}/badges", game=game)

    assert body["earned"] == 1
    assert [(badge["book"], badge["key"], badge["kind"], badge["earned"]) for badge in body["badges"]] == [
        ("Abzeichen", "erster_stich", "game", False), ("Abzeichen", "serie", "streak", False),
        ("Stempel", "leer", "game", True)]
    stamp = body["badges"][2]
    assert (stamp["title"], stamp["game_id"], stamp["awarded_at"] is not None) == (
        "Leer ausgegangen", event.game_id, True)
    # An unknown key ("zauberstab") is skipped; every game's badges when no game is named.
    everything = await get_json(leaderboard, f"/players/{anna['player_id']}/badges")
    assert {"speedmosaik", game} <= {badge["game"] for badge in everything["badges"]}
    assert await earned(leaderboard, bert, game) == {"erster_stich": event.game_id}


async def test_a_player_who_left_earns_no_badge(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna = human("Anna")
    await publish_and_wait(nc, ended(game, [anna, bot()], scores=[4, 2], mode="tagesstich", day=DAY,
                                     badges=[["erster_stich"], []], left=[0]))

    assert await earned(leaderboard, anna, game) == {}


async def test_a_streak_badge_comes_with_the_second_day_in_a_row(leaderboard: httpx.AsyncClient,
                                                                nc: NatsClient) -> None:
    game = fresh_game()
    anna = human("Anna")
    monday = ended(game, [anna, bot()], scores=[1, 2], mode="tagesstich", day=day(0))
    practice = ended(game, [anna, bot()], scores=[1, 2], mode="tagesstich", day=day(1), attempt=2)
    tuesday = ended(game, [anna, bot()], scores=[1, 2], mode="tagesstich", day=day(1), attempt=3,
                    at=at_day(day(1), 13))
    await publish_and_wait(nc, monday)
    assert await earned(leaderboard, anna, game) == {}

    await publish_and_wait(nc, practice, tuesday)

    # Practice games count for a streak: the first game of the second day completes it.
    assert await earned(leaderboard, anna, game) == {"serie": practice.game_id}
    assert await new_badges(leaderboard, practice.game_id) == [["serie"], []]
    assert await new_badges(leaderboard, tuesday.game_id) == [[], []]


async def test_no_streak_badge_with_a_gap_or_a_left_day(leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna = human("Anna")
    await publish_and_wait(
        nc,
        ended(game, [anna, bot()], scores=[1, 2], mode="tagesstich", day=day(0)),
        ended(game, [anna, bot()], scores=[1, 2], mode="tagesstich", day=day(1), left=[0]),
        ended(game, [anna, bot()], scores=[1, 2], mode="tagesstich", day=day(3)),
        ended(game, [anna, bot()], scores=[1, 2], mode="frei", at=at_day(day(4))),  # another mode
    )

    assert await earned(leaderboard, anna, game) == {}


async def test_the_end_table_names_the_mode_and_a_won_campaign_stage_opens_the_next(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna = human("Anna")
    won = ended(game, [anna, bot("easy")], scores=[6, 2], mode="reise", stage=1)
    lost = ended(game, [anna, bot("easy"), bot("easy")], scores=[1, 2, 4], mode="reise", stage=2)
    last = ended(game, [anna, bot("easy"), bot("easy")], scores=[5, 2, 4], mode="reise", stage=2)
    daily = ended(game, [anna, bot("easy")], scores=[5, 2], mode="tagesstich", day=DAY, attempt=2)
    await publish_and_wait(nc, won, lost, last, daily)

    table = await get_json(leaderboard, f"/games/{won.game_id}")
    assert table["mode"] == {"key": "reise", "title": "Stich-Reise", "day": None, "attempt": None, "practice": False,
                             "late": False, "stage": 1}
    assert table["campaign"] == {"mode": "reise", "stage": 1, "won": True,
                                 "next": {"number": 2, "title": "Zweiter Stich"}}
    assert (await get_json(leaderboard, f"/games/{lost.game_id}"))["campaign"] == {
        "mode": "reise", "stage": 2, "won": False, "next": None}
    assert (await get_json(leaderboard, f"/games/{last.game_id}"))["campaign"] == {
        "mode": "reise", "stage": 2, "won": True, "next": None}
    practice = await get_json(leaderboard, f"/games/{daily.game_id}")
    assert practice["mode"] == {"key": "tagesstich", "title": "Tagesstich", "day": DAY.isoformat(), "attempt": 2,
                                "practice": True, "late": False, "stage": None}
    assert practice["campaign"] is None
    recent = await get_json(leaderboard, "/games", limit=200)
    assert any(item["game_id"] == won.game_id and item["campaign"]["won"] for item in recent)


async def test_a_rebuild_gives_the_same_mode_lists_badges_and_streaks(
        leaderboard: httpx.AsyncClient, nc: NatsClient, settings: Settings) -> None:
    game = fresh_game()
    anna, bert = human("Anna"), human("Bert")
    await publish_and_wait(nc, *[
        ended(game, [player, bot()], scores=[score, 2], tie_break=[score % 2, 0], mode="tagesstich", day=day(offset),
              attempt=attempt, badges=[["erster_stich"] if score > 3 else [], []])
        for offset, player, score, attempt in [(0, anna, 3, 1), (0, bert, 5, 1), (1, anna, 6, 1), (1, anna, 9, 2),
                                               (3, bert, 4, 1), (4, bert, 2, 1)]
    ])
    paths = [f"/modes/{game}/tagesstich", f"/modes/{game}/tagesstich/days/{day(0).isoformat()}",
             *[f"/players/{player['player_id']}/{what}" for player in (anna, bert) for what in ("badges", "history")]]
    before = [await get_json(leaderboard, path, game=game) for path in paths]
    assert before[2]["earned"] == 2 and before[4]["earned"] == 2  # erster_stich and serie for both

    engine = create_engine(settings)
    async with session_factory(engine)() as session, session.begin():
        await rebuild(session)
    await engine.dispose()

    assert [await get_json(leaderboard, path, game=game) for path in paths] == before
