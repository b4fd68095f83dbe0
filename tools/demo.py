"""`make demo`: complete games of every game the platform offers, then their results and lists.

Uses the running platform (`make run`, found on its default ports) or, if none answers, starts its own
throwaway one (servers and services) in a temporary folder. For every registered game: a few games against
computers, and today's game of each daily mode (the day's seed, the same for everyone), each seating a
guest played by this script as a casual client would (it reads the view and picks one of its legal moves);
then the game's lists and day lists. Everything goes through the lobby's, table's and leaderboard's HTTP APIs.
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


def sign_in(urls: dict[str, str], name: str) -> dict[str, str]:
    """Sign up a guest and return its bearer header."""
    guest = httpx.post(f"{urls['lobby']}/guests", json={"name": name}, timeout=10).json()
    return {"Authorization": f"Bearer {guest['token']}"}


def choose(game: str, moves: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A casual player's move: any legal move (in Speedmosaik, a pattern line rather than the floor; in
    Speedspore, no trade offers, and building before ending the turn)."""
    if game == "speedmosaik":
        moves = [m for m in moves if m.get("reihe") != 0] or moves
    if game == "speedspore":
        moves = [m for m in moves if "angebot" not in m] or moves
        moves = [m for m in moves if {"faden", "fruchtkoerper", "turm", "mutation"} & set(m)] or moves
    return rng.choice(moves)


def play(urls: dict[str, str], auth: dict[str, str], game_id: str, rng: random.Random) -> dict[str, Any]:
    """Play the game as the seated guest until it ends; return the final view."""
    while True:
        view = httpx.get(f"{urls['table']}/games/{game_id}/view", headers=auth, timeout=10).json()
        if view["status"] == "ended":
            return dict(view)
        if view["you"] in view["to_move"] and view["legal_moves"]:
            move = choose(view["game"], view["legal_moves"], rng)
            httpx.post(f"{urls['table']}/games/{game_id}/moves", headers=auth, json={"move": move}, timeout=10)
        else:
            time.sleep(0.05)


def play_solo(urls: dict[str, str], game: str, name: str, opponents: int, level: str,
              rng: random.Random) -> dict[str, Any]:
    """Play one game of `game` (its default settings) as guest `name` against computers."""
    auth = sign_in(urls, name)
    table = httpx.post(f"{urls['lobby']}/tables/solo", headers=auth, timeout=10, json={
        "game": game, "opponents": opponents, "bot_level": level}).json()
    return play(urls, auth, table["game_id"], rng)


def play_daily(urls: dict[str, str], game: str, mode: dict[str, Any], name: str,
               rng: random.Random) -> dict[str, Any]:
    """Play today's game of a daily mode (the day's seed, the same for everyone) as guest `name`."""
    auth = sign_in(urls, name)
    table = httpx.post(f"{urls['lobby']}/solo", headers=auth, timeout=10,
                       json={"game": game, "mode": mode["key"]}).json()
    return play(urls, auth, table["game_id"], rng)


def print_result(view: dict[str, Any]) -> None:
    outcome = view["outcome"]
    mode = view.get("mode")
    title = f"{view['game']} / {view['variant']}" + (f" / {mode['title']} {mode['day']}" if mode else "")
    print(f"\nPartie {view['game_id']}  ({title}, {len(view['seats'])} Plätze)")
    for seat in sorted(view["seats"], key=lambda s: outcome["places"][s["seat"]]):
        index = seat["seat"]
        who = seat["name"] + (f" (Computer, {seat['level']})" if seat["kind"] == "bot" else "")
        print(f"  {outcome['places'][index]}. {who:<28} {outcome['scores'][index]:>4} Punkte   "
              f"Bestenliste +{outcome['leaderboard_points'][index]}")
        for line in outcome["lines"][index]:
            print(f"       {line['label']:<36} {line['points']:>+4}")
    if "seed" in view:
        print(f"  Seed (jetzt offen): {view['seed'][:16]}…  Commitment: {view['seed_commitment'][:16]}…")
    else:
        print(f"  Tagesseed: Commitment {view['seed_commitment'][:16]}…, offen ab {view['seed_reveal_at']}")


def print_lists(urls: dict[str, str], game: str, daily: list[tuple[str, str]]) -> None:
    time.sleep(0.5)  # the leaderboard is a projection: give it a moment to catch up
    lists = httpx.get(f"{urls['leaderboard']}/leaderboards/{game}", timeout=10).json()
    for variant in lists["variants"]:
        board = httpx.get(f"{urls['leaderboard']}/leaderboards/{game}/{variant['variant']}", params={"limit": 10},
                          timeout=10).json()
        print(f"\nBestenliste {game} – {variant['variant']}")
        for entry in board["entries"]:
            print(f"  {entry['rank']:>2}. {entry['name']:<20} {entry['points']:>5} Punkte  "
                  f"{entry['games']} Partien, {entry['wins']} Siege")
    for mode, day in daily:
        board = httpx.get(f"{urls['leaderboard']}/modes/{game}/{mode}/days/{day}", timeout=10).json()
        print(f"\nTagesliste {game} – {board.get('title', mode)} {day}")
        for entry in board.get("entries", []):
            print(f"  {entry['rank']:>2}. {entry['name']:<20} {entry['score']:>5} Punkte")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2, help="games per rule module against computers")
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
        names = iter(NAMES * 20)
        for described in httpx.get(f"{urls['lobby']}/games", timeout=10).json():
            game = described["game"]
            for number in range(args.games):
                view = play_solo(urls, game, next(names), opponents=1 + number % 3,
                                 level=("normal", "easy")[number % 2], rng=rng)
                print_result(view)
            daily = []
            for mode in described["spec"]["home"]["modes"]:
                if mode["daily"]:
                    view = play_daily(urls, game, mode, next(names), rng)
                    print_result(view)
                    daily.append((mode["key"], view["mode"]["day"]))
            print_lists(urls, game, daily)


if __name__ == "__main__":
    main()
