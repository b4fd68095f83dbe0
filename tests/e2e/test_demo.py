"""`make demo`'s client (tools/demo.py) against the whole platform (five processes, real NATS and PostgreSQL).

It is the client the README teaches: a guest's token, a turbo solo table and a daily game from the lobby, the
table's live stream and the guest's moves, the leaderboard's lists; every request over one keep-alive client,
no view polled.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import httpx

from tests.conftest import Platform
from tools import demo


def test_the_demo_plays_a_solo_and_a_daily_game_from_the_live_stream_without_polling(
        platform_processes: Platform) -> None:
    urls = {name: platform_processes.url(name) for name in ("lobby", "table", "leaderboard")}
    sent: list[httpx.Request] = []
    with httpx.Client(timeout=demo.TIMEOUT, event_hooks={"request": [sent.append]}) as client:
        described = next(game for game in demo.answered(client.get(f"{urls['lobby']}/games"), "Spiele lesen")
                         if game["game"] == "speedmosaik")
        plan = demo.seatings(described, games=1)
        assert [(seating.opponents, seating.level) for seating in plan[:1]] == [(1, "normal")]
        assert [seating.mode["key"] for seating in plan[1:] if seating.mode] == ["tageswerkstatt"]
        auth = demo.sign_in(client, urls, "Anna")
        finals: list[dict[str, Any]] = []
        for seating in plan:
            game_id = demo.start(client, urls, auth, seating, slow=False)
            sent.clear()
            finals.append(demo.play(client, urls, auth, game_id, random.Random(7), slow=False))
            # Playing is one live stream and the guest's moves: no view is polled.
            kinds = Counter((request.method, request.url.path.rsplit("/", 1)[-1]) for request in sent)
            assert set(kinds) == {("GET", "live"), ("POST", "moves")}, kinds
            assert kinds[("GET", "live")] == 1
            # Computers without pause: the table was opened with turbo. Every move the guest sent was logged.
            log = demo.answered(client.get(f"{urls['table']}/games/{game_id}/events", headers=auth), "Log")["events"]
            assert log[0]["type"] == "GameStarted" and log[0]["data"]["platform"]["turbo"] is True
            guest_moves = [event for event in log if event["type"] == "MoveMade"
                           and event["data"]["chosen_by"] == "player"]
            assert kinds[("POST", "moves")] == len(guest_moves) > 0
        demo.wait_until_listed(client, urls, [final["game_id"] for final in finals])
        day_list = demo.answered(client.get(
            f"{urls['leaderboard']}/modes/speedmosaik/tageswerkstatt/days/{finals[1]['mode']['day']}"), "Tagesliste")
    assert [final["status"] for final in finals] == ["ended", "ended"]
    assert finals[1]["mode"]["key"] == "tageswerkstatt"
    assert "Anna" in [entry["name"] for entry in day_list["entries"]]
