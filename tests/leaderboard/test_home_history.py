""""Meine Partien": a player's finished games newest first, the score curve of the last 30, and the streaks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.days import berlin_day
from libs.platform.settings import Settings
from services.leaderboard.app import create_app
from tests.clocks import ShiftedClock
from tests.conftest import running_app
from tests.leaderboard.conftest import publish_and_wait
from tests.leaderboard.home_facts import at_day, bot, ended, fresh_game, get_json, human


@pytest.fixture(scope="module")
def clock() -> ShiftedClock:
    """The leaderboard's clock: it decides which streaks are current."""
    return ShiftedClock()


@pytest.fixture(scope="module")
async def leaderboard(settings: Settings, clock: ShiftedClock) -> AsyncIterator[httpx.AsyncClient]:
    """The leaderboard running with the test's clock."""
    async with running_app(create_app(settings, clock=clock)) as client:
        yield client


async def test_the_history_lists_the_players_games_newest_first_with_their_mode(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game, other = fresh_game(), fresh_game()
    anna, bert = human("Anna"), human("Bert")
    start = datetime(2026, 5, 3, 9, 0, tzinfo=UTC)
    daily = ended(game, [anna, bot()], scores=[4, 6], mode="tagesstich", day=berlin_day(start), attempt=2,
                  at=start)
    campaign = ended(game, [bot(), anna], scores=[1, 5], mode="reise", stage=1, at=start + timedelta(hours=1))
    together = ended(game, [anna, bert], scores=[3, 3], left=[1], at=start + timedelta(hours=2))
    elsewhere = ended(other, [anna, bot()], scores=[2, 0], mode="frei", at=start + timedelta(hours=3))
    await publish_and_wait(nc, daily, campaign, together, elsewhere)

    body = await get_json(leaderboard, f"/players/{anna['player_id']}/history", game=game)

    assert body["total"] == 3 and body["game"] == game
    assert [item["game_id"] for item in body["games"]] == [together.game_id, campaign.game_id, daily.game_id]
    newest, middle, oldest = body["games"]
    assert newest | {"ended_at": None} == {
        "game_id": together.game_id, "game": game, "variant": "einzeln", "mode": None, "day": None,
        "practice": False, "stage": None, "date": "2026-05-03", "ended_at": None, "place": 1, "players": 2,
        "score": 3, "points": 3, "has_left": False}
    assert (middle["mode"], middle["stage"], middle["place"]) == ({"key": "reise", "title": "Stich-Reise"}, 1, 1)
    assert (oldest["mode"], oldest["practice"], oldest["day"], oldest["place"]) == (
        {"key": "tagesstich", "title": "Tagesstich"}, True, "2026-05-03", 2)
    page = await get_json(leaderboard, f"/players/{anna['player_id']}/history", game=game, limit=1, offset=1)
    assert [item["game_id"] for item in page["games"]] == [campaign.game_id]
    everything = await get_json(leaderboard, f"/players/{anna['player_id']}/history")
    assert [item["game_id"] for item in everything["games"]][:2] == [elsewhere.game_id, together.game_id]
    left = await get_json(leaderboard, f"/players/{bert['player_id']}/history", game=game)
    assert [(item["has_left"], item["points"]) for item in left["games"]] == [(True, 0)]
    unknown = await get_json(leaderboard, "/players/p-niemand/history", game=game)
    assert (unknown["total"], unknown["games"], unknown["curve"]["best"]) == (0, [], None)


async def test_the_curve_shows_the_last_30_scores_oldest_first_with_their_best_and_the_all_time_best(
        leaderboard: httpx.AsyncClient, nc: NatsClient) -> None:
    game = fresh_game()
    anna = human("Anna")
    start = datetime(2026, 5, 10, 8, 0, tzinfo=UTC)
    scores = [90, *[(index * 7) % 40 for index in range(1, 32)]]  # the all-time best is the oldest
    events = [ended(game, [anna, bot()], scores=[score, 1], at=start + timedelta(hours=index))
              for index, score in enumerate(scores)]
    given_up = ended(game, [anna, bot()], scores=[99, 1], left=[0], at=start + timedelta(hours=40))
    await publish_and_wait(nc, *events, given_up)

    body = await get_json(leaderboard, f"/players/{anna['player_id']}/history", game=game, limit=5)

    curve = body["curve"]
    assert [point["score"] for point in curve["points"]] == scores[-30:]
    assert [point["game_id"] for point in curve["points"]] == [event.game_id for event in events[-30:]]
    assert curve["points"][0]["date"] == berlin_day(start + timedelta(hours=2)).isoformat()
    assert (curve["best"], curve["best_all_time"]) == (max(scores[-30:]), 90)
    assert body["total"] == 33 and body["games"][0]["game_id"] == given_up.game_id  # listed, not in the curve


async def test_the_streaks_count_days_in_a_row_up_to_today_or_yesterday(
        leaderboard: httpx.AsyncClient, nc: NatsClient, clock: ShiftedClock) -> None:
    game = fresh_game()
    anna = human("Anna")
    today = berlin_day(clock.now())
    days = [today - timedelta(days=back) for back in (8, 7, 6, 5, 2, 1, 0)]
    await publish_and_wait(nc, *[ended(game, [anna, bot()], scores=[2, 1], mode="tagesstich", day=day,
                                       attempt=2 if day == today else 1, at=at_day(day)) for day in days],
                           ended(game, [anna, bot()], scores=[2, 1], mode="tagesstich", left=[0],
                                 day=today - timedelta(days=3), at=at_day(today - timedelta(days=3))))

    async def streak() -> tuple[int, int, str]:
        body = await get_json(leaderboard, f"/players/{anna['player_id']}/history", game=game)
        [only] = body["streaks"]
        assert (only["game"], only["mode"], only["title"]) == (game, "tagesstich", "Tagesstich")
        return only["current"], only["longest"], only["last_day"]

    try:
        # The left game on day -3 does not join the two runs.
        assert await streak() == (3, 4, today.isoformat())
        clock.advance(days=1)
        assert await streak() == (3, 4, today.isoformat())
        clock.advance(days=1)
        assert await streak() == (0, 4, today.isoformat())
    finally:
        clock.offset = timedelta()
    badges = await get_json(leaderboard, f"/players/{anna['player_id']}/badges", game=game)
    serie = next(badge for badge in badges["badges"] if badge["key"] == "serie")
    assert serie["earned"] and serie["game_id"] is not None
