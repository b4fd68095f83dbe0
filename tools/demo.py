"""`make demo`: a few complete games through the platform, then their results and the leaderboard.

Uses the running platform (`make run`, found on its default ports) or, if none answers, starts its own
throwaway one (servers and services) in a temporary folder. Each game seats a guest player, played by
this script as a casual client would (it reads the view and picks one of its legal moves), against
computer opponents; everything goes through the lobby's and the table's HTTP APIs.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

from libs.devservers.processes import DEFAULT_PORTS, SERVICES, ServiceProcess
from libs.devservers.servers import start_servers

NAMES = ("Anna", "Bert", "Clara", "Dora", "Emil", "Fritz")


def running_platform() -> dict[str, str] | None:
    """Return the URLs of a platform answering on the default ports, if there is one."""
    urls = {name: f"http://127.0.0.1:{port}" for name, port in DEFAULT_PORTS.items()}
    try:
        if all(httpx.get(f"{url}/readyz", timeout=1).status_code == 200 for url in urls.values()):
            return urls
    except httpx.HTTPError:
        pass
    return None


def start_platform(stack: ExitStack) -> dict[str, str]:
    """Start a throwaway platform (servers + the five services) that `stack` stops again."""
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="speed-demo-")))
    servers = start_servers(folder, throwaway=True)
    stack.callback(servers.stop)
    env = {**servers.env(), "LOG_LEVEL": "warning"}
    processes = []
    for name in SERVICES:
        process = ServiceProcess(name, env=env, port=0, log_path=folder / f"{name}.log")
        processes.append(process.start())
        stack.callback(process.stop)
    for process in processes:
        process.wait_ready(timeout=60)
    return {process.name: process.url for process in processes}


def play_game(urls: dict[str, str], name: str, opponents: int, level: str, rng: random.Random) -> dict[str, Any]:
    """Play one solo game as guest `name`; return the final view."""
    guest = httpx.post(f"{urls['lobby']}/guests", json={"name": name}, timeout=10).json()
    auth = {"Authorization": f"Bearer {guest['token']}"}
    table = httpx.post(f"{urls['lobby']}/tables/solo", headers=auth, timeout=10, json={
        "game": "speedmosaik", "settings": {"workshop": "kachelwand"}, "opponents": opponents,
        "bot_level": level}).json()
    game_id = table["game_id"]
    while True:
        view = httpx.get(f"{urls['table']}/games/{game_id}/view", headers=auth, timeout=10).json()
        if view["status"] == "ended":
            return dict(view)
        if view["you"] in view["to_move"]:
            moves = view["legal_moves"]
            move = rng.choice([m for m in moves if m.get("reihe") != 0] or moves)
            httpx.post(f"{urls['table']}/games/{game_id}/moves", headers=auth, json={"move": move}, timeout=10)
        else:
            time.sleep(0.05)


def print_result(view: dict[str, Any]) -> None:
    outcome = view["outcome"]
    print(f"\nPartie {view['game_id']}  ({view['game']} / {view['variant']}, {len(view['seats'])} Plätze)")
    for seat in sorted(view["seats"], key=lambda s: outcome["places"][s["seat"]]):
        index = seat["seat"]
        who = seat["name"] + (f" (Computer, {seat['level']})" if seat["kind"] == "bot" else "")
        print(f"  {outcome['places'][index]}. {who:<28} {outcome['scores'][index]:>4} Punkte   "
              f"Bestenliste +{outcome['leaderboard_points'][index]}")
        for line in outcome["lines"][index]:
            print(f"       {line['label']:<36} {line['points']:>+4}")
    print(f"  Seed (jetzt offen): {view['seed'][:16]}…  Commitment: {view['seed_commitment'][:16]}…")


def print_leaderboard(urls: dict[str, str]) -> None:
    time.sleep(0.5)  # the leaderboard is a projection: give it a moment to catch up
    board = httpx.get(f"{urls['leaderboard']}/leaderboards/speedmosaik/kachelwand", params={"limit": 10},
                      timeout=10).json()
    print("\nBestenliste Speedmosaik – Kachelwand")
    for entry in board["entries"]:
        print(f"  {entry['rank']:>2}. {entry['name']:<20} {entry['points']:>5} Punkte  "
              f"{entry['games']} Partien, {entry['wins']} Siege")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with ExitStack() as stack:
        urls = running_platform()
        if urls is None:
            print("No running platform found on the default ports: starting a throwaway one ...")
            urls = start_platform(stack)
        else:
            print("Using the running platform.")
        for number in range(args.games):
            view = play_game(urls, NAMES[number % len(NAMES)], opponents=1 + number % 3,
                             level=("normal", "easy")[number % 2], rng=rng)
            print_result(view)
        print_leaderboard(urls)


if __name__ == "__main__":
    main()
