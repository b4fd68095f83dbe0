"""A player's home through the whole platform (five processes, real NATS and PostgreSQL), with Speedmosaik.

Two players play the day's Tageswerkstatt: the same commitment, the same displays; the seed shows nowhere
before the day is over; a second attempt is practice; the day's list, "Meine Partien", badges and the end
table come from the game ends; a started game waits under "Weiterspielen"; two humans chat at a table.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import httpx
import psycopg

from libs.platform.days import berlin_day
from tests.conftest import Infrastructure, Platform
from tests.e2e.client import PlayerClient, wait_for
from tests.e2e.test_platform import play_to_the_end

GAME, DAILY = "speedmosaik", "tageswerkstatt"


def get(url: str, player: PlayerClient | None = None, status: int = 200, **params: Any) -> Any:
    answer = httpx.get(url, headers=player.auth if player else None, params=params, timeout=10)
    assert answer.status_code == status, answer.text
    return answer.json()


def post(url: str, player: PlayerClient, body: dict[str, Any], status: int = 201) -> Any:
    answer = httpx.post(url, headers=player.auth, json=body, timeout=15)
    assert answer.status_code == status, answer.text
    return answer.json()


def daily_game(platform: Platform, player: PlayerClient, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = post(f"{platform.url('lobby')}/solo", player, {"game": GAME, "mode": DAILY, **extra})
    return body


def stored_daily_seed(infra: Infrastructure, day: str) -> str:
    """The day's seed as only the lobby's database holds it (the test is the auditor here)."""
    url = infra.database_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url) as connection:
        row = connection.execute("SELECT seed FROM lobby.daily_seeds WHERE game = %s AND mode = %s AND day = %s",
                                 (GAME, DAILY, day)).fetchone()
    assert row is not None
    seed = row[0]
    return seed.hex() if isinstance(seed, bytes | memoryview) else str(seed)


def test_the_days_tageswerkstatt_is_the_same_for_everyone_and_lands_in_lists_history_and_badges(
        infra: Infrastructure, platform_processes: Platform) -> None:
    lobby, table, board = (platform_processes.url(name) for name in ("lobby", "table", "leaderboard"))
    anna = PlayerClient.guest(lobby, table, "Anna")
    bert = PlayerClient.guest(lobby, table, "Bert")
    today = berlin_day(datetime.now(UTC)).isoformat()

    commitments = get(f"{lobby}/daily")
    published = next(entry for entry in commitments
                     if (entry["game"], entry["mode"], entry["day"]) == (GAME, DAILY, today))
    assert published["seed"] is None
    assert len([entry for entry in commitments if (entry["game"], entry["mode"]) == (GAME, DAILY)]) == 2

    started = [daily_game(platform_processes, player) for player in (anna, bert)]
    views = [player.view(body["game_id"]) for player, body in zip((anna, bert), started, strict=True)]
    assert views[0]["board"]["schalen"] == views[1]["board"]["schalen"]  # the same tiles in the same displays
    assert views[0]["to_move"] == views[1]["to_move"] == [0]  # and the same start player: you
    assert {view["seed_commitment"] for view in views} == {published["commitment"]}
    assert all(view["mode"]["key"] == DAILY and view["mode"]["practice"] is False for view in views)

    # A second daily game while the first runs: refused, the first waits under "Weiterspielen".
    refused = httpx.post(f"{lobby}/solo", headers=anna.auth, json={"game": GAME, "mode": DAILY}, timeout=10)
    assert refused.status_code == 409 and refused.json()["code"] == "unfinished_game"
    unfinished = get(f"{lobby}/me/unfinished", anna)
    assert [entry["game_id"] for entry in unfinished] == [started[0]["game_id"]]

    finals = [play_to_the_end(player, body["game_id"], seed=index)
              for index, (player, body) in enumerate(zip((anna, bert), started, strict=True))]
    seed = stored_daily_seed(infra, today)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == published["commitment"]
    for player, body, final in zip((anna, bert), started, finals, strict=True):
        assert final["status"] == "ended" and "seed" not in final and final["seed_reveal_at"]
        game_id = body["game_id"]
        for url in (f"{table}/games/{game_id}/view", f"{table}/games/{game_id}/events",
                    f"{table}/games/{game_id}/audit", f"{lobby}/daily/{GAME}/{DAILY}/{today}", f"{lobby}/daily"):
            answer = httpx.get(url, headers=player.auth, timeout=10)
            assert answer.status_code == 200 and seed not in answer.text, url
    assert get(f"{lobby}/daily/{GAME}/{DAILY}/{today}")["seed"] is None
    assert get(f"{lobby}/me/unfinished", anna) == []

    # A second attempt today is practice, in the view and on the end table, and in no list.
    practice = daily_game(platform_processes, anna)
    assert practice["mode"]["practice"] is True and practice["mode"]["attempt"] == 2
    assert anna.view(practice["game_id"])["mode"]["practice"] is True
    play_to_the_end(anna, practice["game_id"], seed=7)

    end_table = wait_for(lambda: httpx.get(f"{board}/games/{practice['game_id']}", timeout=10).json()
                         if httpx.get(f"{board}/games/{practice['game_id']}", timeout=10).status_code == 200
                         else None, timeout=30)
    assert end_table["mode"]["practice"] is True and end_table["mode"]["key"] == DAILY
    # The day's list is shared with every other test of the session that plays today's Tageswerkstatt (the
    # demo's test does): judge it by these two players' entries, each first attempt once, the practice in none.
    ours = {anna.player_id, bert.player_id}
    day_list = wait_for(lambda: (lambda body: body if ours <= {e["player_id"] for e in body["entries"]} else None)(
        get(f"{board}/modes/{GAME}/{DAILY}/days/{today}")), timeout=30)
    entries = [entry for entry in day_list["entries"] if entry["player_id"] in ours]
    assert sorted(entry["player_id"] for entry in entries) == sorted(ours)
    scores = {entry["player_id"]: entry["score"] for entry in entries}
    assert scores == {anna.player_id: finals[0]["outcome"]["scores"][0],
                      bert.player_id: finals[1]["outcome"]["scores"][0]}

    history = get(f"{board}/players/{anna.player_id}/history", game=GAME)
    assert [(game["mode"]["key"] if game["mode"] else None, game["practice"]) for game in history["games"]] == [
        (DAILY, True), (DAILY, False)]
    assert len(history["curve"]["points"]) == 2
    streak = next(entry for entry in history["streaks"] if entry["mode"] == DAILY)
    assert (streak["current"], streak["longest"]) == (1, 1)

    badges = get(f"{board}/players/{anna.player_id}/badges", game=GAME)
    by_key = {badge["key"]: badge for badge in badges["badges"]}
    assert set(by_key) == {"meisterstueck", "werkstatt_serie"} and by_key["werkstatt_serie"]["earned"] is False
    anna_scores = [finals[0]["outcome"]["scores"][0], end_table["seats"][0]["score"]]
    assert by_key["meisterstueck"]["earned"] is (max(anna_scores) >= 50)


def test_two_humans_chat_at_their_table_and_a_third_may_not(platform_processes: Platform) -> None:
    lobby, table = platform_processes.url("lobby"), platform_processes.url("table")
    cleo, dora, emil = (PlayerClient.guest(lobby, table, name) for name in ("Cleo", "Dora", "Emil"))
    opened = post(f"{lobby}/tables", cleo, {"game": GAME, "player_count": 2, "fill_with_bots": False,
                                              "settings": {"workshop": "kachelwand", "think_time": "ohne"}})
    post(f"{lobby}/tables/{opened['table_id']}/join", dora, {}, status=200)
    game_id = post(f"{lobby}/tables/{opened['table_id']}/start", cleo, {}, status=200)["game_id"]

    post(f"{lobby}/games/{game_id}/chat", cleo, {"text": "Viel Glück!"})
    impersonating = httpx.post(f"{lobby}/games/{game_id}/chat", headers=dora.auth, timeout=10,
                               json={"text": "Ich gebe auf", "name": cleo.player_id})
    assert impersonating.status_code == 422
    stranger = httpx.post(f"{lobby}/games/{game_id}/chat", headers=emil.auth, json={"text": "Hallo"}, timeout=10)
    assert stranger.status_code == 403 and stranger.json()["code"] == "not_seated"

    messages = get(f"{lobby}/games/{game_id}/chat", dora)["messages"]
    assert [(message["name"], message["text"]) for message in messages] == [("Cleo", "Viel Glück!")]
