"""The whole platform as separate processes on real servers, used as players and operators would."""

from __future__ import annotations

import asyncio
import random
import uuid
from typing import Any

import httpx
import nats

from libs.platform.contracts.subjects import TABLE_START
from libs.platform.envelope import EventType, verify_chain
from libs.platform.rpc import request
from tests.conftest import Infrastructure, Platform
from tests.e2e.client import PlayerClient, wait_for
from tests.e2e.client import read_log as read_nats_log


def read_log(infra: Infrastructure, game_id: str) -> list[Any]:
    return read_nats_log(infra.nats_url, game_id)


def leaderboard_entry(platform: Platform, player_id: str) -> dict[str, Any] | None:
    board = httpx.get(f"{platform.url('leaderboard')}/leaderboards/speedmosaik/kachelwand",
                      params={"limit": 200}, timeout=10).json()
    return next((entry for entry in board["entries"] if entry["player_id"] == player_id), None)


def play_to_the_end(player: PlayerClient, game_id: str, seed: int) -> dict[str, Any]:
    """Follow the live stream and move whenever it is this player's turn; return the final view."""
    rng = random.Random(seed)
    last: dict[str, Any] = {}
    for view in player.live(game_id):
        last = view
        if view["you"] in view["to_move"]:
            answer = player.move(game_id, player.choose(view, rng))
            assert answer.status_code == 200, answer.text
    return last


def test_a_human_plays_a_solo_game_over_http_and_the_leaderboard_shows_it(platform_processes: Platform) -> None:
    anna = PlayerClient.guest(platform_processes.url("lobby"), platform_processes.url("table"), "Anna")
    game_id = anna.solo(opponents=1)
    first = anna.view(game_id)
    assert len(first["seats"]) == 2 and first["seats"][1]["kind"] == "bot"
    assert len(first["board"]["schalen"]) == 5  # two players: five factories

    final = play_to_the_end(anna, game_id, seed=1)

    assert final["status"] == "ended"
    outcome = final["outcome"]
    me = final["you"]
    assert sum(line["points"] for line in outcome["lines"][me]) == outcome["scores"][me]
    entry = wait_for(lambda: leaderboard_entry(platform_processes, anna.player_id))
    assert entry["points"] == outcome["leaderboard_points"][me]
    assert entry["games"] == 1 and entry["name"] == "Anna"


def test_four_computers_play_a_game_from_start_command_to_leaderboard_through_nats(
        platform_processes: Platform, infra: Infrastructure) -> None:
    game_id = uuid.uuid4().hex

    async def start() -> dict[str, Any]:
        client = await nats.connect(infra.nats_url)
        try:
            return await request(client, TABLE_START, {
                "game_id": game_id, "table_id": None, "game": "speedmosaik", "settings": {},
                "seats": [{"kind": "bot", "level": level, "name": f"Computer {i + 1}"}
                          for i, level in enumerate(["normal", "easy", "normal", "easy"])]})
        finally:
            await client.close()

    assert asyncio.run(start())["rules"] == "speedmosaik@1"
    leaderboard = platform_processes.url("leaderboard")
    result = wait_for(lambda: (r := httpx.get(f"{leaderboard}/games/{game_id}", timeout=10)).status_code == 200
                      and r.json(), timeout=60)
    events = read_log(infra, game_id)
    verify_chain(events)
    ended = events[-1]
    assert ended.type == EventType.GAME_ENDED
    assert [seat["score"] for seat in result["seats"]] == ended.data["outcome"]["scores"]
    board = httpx.get(f"{leaderboard}/leaderboards/speedmosaik/kachelwand", params={"limit": 200}).json()
    assert all(entry["name"] not in {"Computer 1", "Computer 2", "Computer 3", "Computer 4"}
               for entry in board["entries"])  # computers are never listed


def test_killing_the_table_service_mid_game_loses_and_doubles_nothing(
        platform_processes: Platform, infra: Infrastructure) -> None:
    bert = PlayerClient.guest(platform_processes.url("lobby"), platform_processes.url("table"), "Bert")
    game_id = bert.solo(opponents=2, bot_level="easy")
    rng = random.Random(7)
    made = 0
    while made < 4:
        view = bert.view(game_id)
        if view["you"] in view["to_move"]:
            assert bert.move(game_id, bert.choose(view, rng)).status_code == 200
            made += 1
        else:
            wait_for(lambda: bert.view(game_id)["you"] in bert.view(game_id)["to_move"], timeout=30)
    before = read_log(infra, game_id)

    table = platform_processes.processes["table"]
    table.stop(kill=True)
    table.start()
    table.wait_ready(timeout=60)

    after_restart = bert.view(game_id)
    assert after_restart["n"] >= before[-1].n
    final = play_to_the_end(bert, game_id, seed=8)
    assert final["status"] == "ended"

    events = read_log(infra, game_id)
    verify_chain(events)  # numbered 1..k, nothing missing, nothing changed
    assert [event.hash for event in events[: len(before)]] == [event.hash for event in before]
    assert [event.type for event in events].count(EventType.GAME_ENDED) == 1
    audit = httpx.get(f"{platform_processes.url('table')}/games/{game_id}/audit", timeout=10).json()
    assert audit["chain_ok"] and audit["outcome_matches"]


def test_an_open_table_started_by_two_humans_without_computers_has_two_displays_less(
        platform_processes: Platform) -> None:
    lobby, table = platform_processes.url("lobby"), platform_processes.url("table")
    host = PlayerClient.guest(lobby, table, "Clara")
    guest = PlayerClient.guest(lobby, table, "Dora")
    created = httpx.post(f"{lobby}/tables", headers=host.auth, json={
        "game": "speedmosaik", "settings": {"workshop": "kachelwand"}, "player_count": 4,
        "fill_with_bots": False}).json()
    table_id = created["table_id"]
    assert httpx.post(f"{lobby}/tables/{table_id}/join", headers=guest.auth).status_code == 200
    started = httpx.post(f"{lobby}/tables/{table_id}/start", headers=host.auth)
    assert started.status_code == 200, started.text
    game_id = started.json()["game_id"]
    view = host.view(game_id)
    assert [seat["name"] for seat in view["seats"]] == ["Clara", "Dora"]
    assert len(view["board"]["schalen"]) == 5
    late = PlayerClient.guest(lobby, table, "Emil")
    refused = httpx.post(f"{lobby}/tables/{table_id}/join", headers=late.auth)
    assert refused.status_code == 409 and refused.json()["detail"]


def test_every_service_reports_health_readiness_and_metrics(platform_processes: Platform) -> None:
    for name in platform_processes.processes:
        url = platform_processes.url(name)
        assert httpx.get(f"{url}/healthz", timeout=5).json() == {"status": "ok", "service": name}
        assert httpx.get(f"{url}/readyz", timeout=5).status_code == 200
        metrics = httpx.get(f"{url}/metrics", timeout=5)
        assert metrics.status_code == 200 and "speed_http_requests_total" in metrics.text
