"""`make demo`: complete games of every game the platform offers, then their results and lists.

Uses the running platform (`make run`, found on its default ports) or, if none answers, starts its own
throwaway one (servers and services) in a temporary folder. For every registered game: a few games against
computers, and today's game of each daily mode (the day's seed, the same for everyone), each seating a
guest played by this script as a casual client would: it follows the game's live stream (server-sent
events) and, on its turn, picks one of the legal moves its view offers. Then the game's lists and day
lists. Everything goes through the lobby's, table's and leaderboard's public HTTP APIs, as the README
teaches them, over one keep-alive HTTP client.

By default the computers play without pause (the solo tables' "Turbo") and the guest moves at once: every
game and mode in one to one and a half minutes on a 2-core machine. `--slow` (`make demo SLOW=1`) plays at
human pace instead: computers pause as at a normal table, the guest thinks a moment, and every move's log
lines are printed.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import httpx

from libs.devservers.processes import DEFAULT_PORTS, SERVICES, WEB_PORT, ServiceProcess
from libs.devservers.servers import start_servers

GUESTS = ("Anna", "Bert", "Clara")
"""The guests one run signs up (the lobby lets an address sign up 10 at once, then 30 an hour)."""
HUMAN_PAUSE = 1.5
"""Seconds the guest thinks before each of its moves in the slow demo."""
SLOW_BOT_MOVE_DELAY = "0.8"
"""The computers' pause (BOT_MOVE_DELAY) of a throwaway platform in the slow demo: `make run`'s default."""
PROGRESS_EVERY = 5.0
"""Seconds between progress lines when the output is not a terminal (a terminal's line is redrawn instead)."""
TIMEOUT = httpx.Timeout(10.0, read=30.0)
"""Per request; a live stream sends at least a keep-alive every 15 s, so 30 s of silence means it is gone."""


class DemoError(Exception):
    """The platform refused what the demo needs; the message says what and why (the refusal's German reason)."""


def running_platform(client: httpx.Client) -> dict[str, str] | None:
    """Return the URLs of a platform answering ready on the default ports, if there is one."""
    urls = {name: f"http://127.0.0.1:{port}" for name, port in DEFAULT_PORTS.items()}
    try:
        if all(client.get(f"{url}/readyz", timeout=1).status_code == 200 for url in urls.values()):
            return urls
    except httpx.HTTPError:
        pass
    return None


def browser_hint(client: httpx.Client) -> str:
    """Return where a person plays the same games by clicking: the running platform's web front end when it
    answers on its default port, else how to start it."""
    url = f"http://127.0.0.1:{WEB_PORT}"
    try:
        if client.get(f"{url}/readyz", timeout=1).status_code == 200:
            return f"Im Browser spielen: {url}"
    except httpx.HTTPError:
        pass
    return f"Im Browser spielen: `make run` starten, dann {url} öffnen"


def start_platform(stack: ExitStack, slow: bool) -> dict[str, str]:
    """Start a throwaway platform (servers + the five services) that `stack` stops again; return its URLs.

    Its computers pause before moving only in the slow demo (as `make run`'s do); a turbo table skips the
    pause either way.
    """
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="speed-demo-")))
    servers = start_servers(folder, throwaway=True)
    stack.callback(servers.stop)
    env = {**servers.env(), "LOG_LEVEL": "warning", "BOT_MOVE_DELAY": SLOW_BOT_MOVE_DELAY if slow else "0"}
    processes = []
    for name in SERVICES:
        process = ServiceProcess(name, env=env, port=0, log_path=folder / f"{name}.log")
        processes.append(process.start())
        stack.callback(process.stop)
    for process in processes:
        process.wait_ready(timeout=60)
    return {process.name: process.url for process in processes}


def answered(response: httpx.Response, what: str) -> Any:
    """Return the JSON body of a 2xx answer; raise DemoError naming `what` and the platform's reason otherwise."""
    if response.is_success:
        return response.json()
    try:
        reason = response.json().get("detail", response.text)
    except ValueError:
        reason = response.text
    wait = response.headers.get("Retry-After")
    raise DemoError(f"{what}: {response.status_code} {reason}" + (f" (Retry-After: {wait} s)" if wait else ""))


def sign_in(client: httpx.Client, urls: dict[str, str], name: str) -> dict[str, str]:
    """Sign up a guest called `name` and return its bearer header."""
    guest = answered(client.post(f"{urls['lobby']}/guests", json={"name": name}), f"Gast „{name}“ anlegen")
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


def live_views(client: httpx.Client, url: str, auth: dict[str, str]) -> Iterator[dict[str, Any]]:
    """Yield the views a game's live stream (`GET /games/{id}/live`, server-sent events) carries: the view at
    once, then after every event (older ones skipped when several came at once), until the game has ended
    or the stream closes."""
    with client.stream("GET", url, headers=auth) as stream:
        if not stream.is_success:
            stream.read()  # the refusal's body, to show its reason
            answered(stream, "Live-Stream öffnen")
        data: list[str] = []
        for line in stream.iter_lines():
            if line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            elif not line and data:  # an event ends with an empty line; comments (keep-alives) carry no data
                view: dict[str, Any] = json.loads("\n".join(data))
                data = []
                yield view
                if view["status"] == "ended":
                    return


@dataclass
class Progress:
    """One line saying how a running game stands: redrawn in place on a terminal, else a line now and then."""

    out: TextIO = field(default_factory=lambda: sys.stdout)
    started: float = field(default_factory=time.monotonic)
    last_line: float = float("-inf")
    shown: bool = False

    def update(self, view: dict[str, Any]) -> None:
        """Show the game's state after its latest event."""
        now = time.monotonic()
        names = {seat["seat"]: seat["name"] for seat in view["seats"]}
        turn = ", ".join(names[seat] for seat in view["to_move"]) or "–"
        line = f"  … läuft seit {now - self.started:4.1f} s, Ereignis {view['n']:>3}, am Zug: {turn}"
        if self.out.isatty():
            self.out.write("\r\x1b[K" + line)
            self.out.flush()
            self.shown = True
        elif now - self.last_line >= PROGRESS_EVERY:
            print(line, file=self.out, flush=True)
            self.last_line = now

    def done(self) -> None:
        """Clear the redrawn line (a terminal), so the result starts on a fresh line."""
        if self.shown:
            self.out.write("\r\x1b[K")
            self.out.flush()


def play(client: httpx.Client, urls: dict[str, str], auth: dict[str, str], game_id: str, rng: random.Random,
         slow: bool) -> dict[str, Any]:
    """Play the game as the seated guest until it ends and return the final view.

    Follows the live stream; whenever the guest must decide on the newest position it moves (with
    `expected_n`, so a move on a position already gone is refused, not misplaced) and goes on from the view
    the move answers. Slow: waits HUMAN_PAUSE before each move and prints every event's log lines.
    """
    table = urls["table"]
    progress = Progress()
    handled = -1  # the newest event number whose view was acted on

    def act(view: dict[str, Any]) -> dict[str, Any]:
        """Make the guest's moves while the view says it must decide; return the last view seen."""
        nonlocal handled
        while view["n"] > handled and view["status"] == "running":
            if slow and handled < 0:  # who is who, for the log lines' "Platz 1", "Platz 2" …
                print("     " + ", ".join(f"Platz {seat['seat'] + 1}: {seat['name']}" for seat in view["seats"]))
            handled = view["n"]
            if slow:
                for effect in view["last_effects"]:
                    print(f"     {effect.get('text', effect)}", flush=True)
            else:
                progress.update(view)
            if view["you"] not in view["to_move"] or not view["legal_moves"]:
                break
            if slow:
                time.sleep(HUMAN_PAUSE)
            move = choose(view["game"], view["legal_moves"], rng)
            answer = client.post(f"{table}/games/{game_id}/moves", headers=auth,
                                 json={"move": move, "expected_n": view["n"]})
            if answer.status_code == 409:  # the game moved on meanwhile (e.g. a deadline): the stream shows how
                break
            view = answered(answer, "Zug")
        return view

    last: dict[str, Any] = {}
    try:
        while last.get("status") != "ended":
            for view in live_views(client, f"{table}/games/{game_id}/live", auth):
                last = act(view)
            if last.get("status") != "ended":  # the stream closed early (a table restarting): look, follow again
                last = answered(client.get(f"{table}/games/{game_id}/view", headers=auth), "Ansicht lesen")
    finally:
        progress.done()
    return last


@dataclass(frozen=True)
class Seating:
    """One game to play: against computers at a solo table, or a solo mode's (daily) game."""

    game: str
    opponents: int | None = None
    level: str | None = None
    mode: dict[str, Any] | None = None

    def describe(self) -> str:
        """The game in a few German words, for the line before it starts."""
        if self.mode is not None:
            return f"{self.game}, {self.mode['title']} (Tagesspiel)"
        return f"{self.game} gegen {self.opponents} Computer ({self.level})"


def start(client: httpx.Client, urls: dict[str, str], auth: dict[str, str], seating: Seating,
          slow: bool) -> str:
    """Open the seating's table for the guest behind `auth` (turbo unless slow) and return its game id."""
    platform = {"turbo": not slow}
    if seating.mode is not None:
        table = answered(client.post(f"{urls['lobby']}/solo", headers=auth, json={
            "game": seating.game, "mode": seating.mode["key"], "settings": platform}), "Tagesspiel starten")
    else:
        table = answered(client.post(f"{urls['lobby']}/tables/solo", headers=auth, json={
            "game": seating.game, "settings": platform, "opponents": seating.opponents,
            "bot_level": seating.level}), "Solo-Tisch öffnen")
    return str(table["game_id"])


def print_result(view: dict[str, Any], seconds: float) -> None:
    """Print a finished game's places, scores and computation lines, and its seed or the daily commitment."""
    outcome = view["outcome"]
    mode = view.get("mode")
    title = f"{view['game']} / {view['variant']}" + (f" / {mode['title']} {mode['day']}" if mode else "")
    print(f"Partie {view['game_id']}  ({title}, {len(view['seats'])} Plätze, {view['n']} Ereignisse, "
          f"{seconds:.1f} s)")
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


def wait_until_listed(client: httpx.Client, urls: dict[str, str], game_ids: list[str], timeout: float = 10.0) -> None:
    """Wait (at most `timeout` s) until the leaderboard, a projection of the games' ends, has taken in every
    game of `game_ids` (its end table answers): the lists printed next then include them."""
    deadline = time.monotonic() + timeout
    for game_id in game_ids:
        while client.get(f"{urls['leaderboard']}/games/{game_id}").status_code == 404 and time.monotonic() < deadline:
            time.sleep(0.1)


def print_lists(client: httpx.Client, urls: dict[str, str], game: str, daily: list[tuple[str, str]]) -> None:
    """Print the game's all-time lists (top 10 of each variant) and the day lists of its daily modes played."""
    board_url = urls["leaderboard"]
    lists = answered(client.get(f"{board_url}/leaderboards/{game}"), "Bestenlisten lesen")
    for variant in lists["variants"]:
        board = answered(client.get(f"{board_url}/leaderboards/{game}/{variant['variant']}", params={"limit": 10}),
                         "Bestenliste lesen")
        print(f"\nBestenliste {game} – {variant['variant']}")
        for entry in board["entries"]:
            print(f"  {entry['rank']:>2}. {entry['name']:<20} {entry['points']:>5} Punkte  "
                  f"{entry['games']} Partien, {entry['wins']} Siege")
    for mode, day in daily:
        board = answered(client.get(f"{board_url}/modes/{game}/{mode}/days/{day}"), "Tagesliste lesen")
        print(f"\nTagesliste {game} – {board.get('title', mode)} {day}")
        for entry in board.get("entries", []):
            print(f"  {entry['rank']:>2}. {entry['name']:<20} {entry['score']:>5} Punkte")


def seatings(described: dict[str, Any], games: int) -> list[Seating]:
    """The games to play of one described game: `games` against computers (1, 2, 3 of them; normal and
    easy by turns), then today's game of every daily mode."""
    game = described["game"]
    plan = [Seating(game, opponents=1 + number % 3, level=("normal", "easy")[number % 2]) for number in range(games)]
    plan += [Seating(game, mode=mode) for mode in described["spec"]["home"]["modes"] if mode["daily"]]
    return plan


def run(client: httpx.Client, urls: dict[str, str], games: int, rng: random.Random, slow: bool) -> int:
    """Play every game's seatings through the platform at `urls`, printing each result as it ends and each
    game's lists after its last; return how many games were played."""
    described_games = answered(client.get(f"{urls['lobby']}/games"), "Spiele lesen")
    plans = [(described["game"], seatings(described, games)) for described in described_games]
    total = sum(len(plan) for _, plan in plans)
    guests = [sign_in(client, urls, name) for name in GUESTS]
    played = 0
    for game, plan in plans:
        daily: list[tuple[str, str]] = []
        ended: list[str] = []
        for seating in plan:
            played += 1
            auth = guests[(played - 1) % len(guests)]
            print(f"\n[{played}/{total}] {seating.describe()}", flush=True)
            began = time.monotonic()
            game_id = start(client, urls, auth, seating, slow)
            view = play(client, urls, auth, game_id, rng, slow)
            print_result(view, time.monotonic() - began)
            ended.append(game_id)
            if seating.mode is not None:
                daily.append((seating.mode["key"], view["mode"]["day"]))
        wait_until_listed(client, urls, ended)
        print_lists(client, urls, game, daily)
    return played


def main() -> None:
    """Parse the options, find or start a platform, play, and say how long it took."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2, help="games per rule module against computers")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the guest's choices")
    parser.add_argument("--slow", action="store_true",
                        help="human pace: computers pause, the guest thinks, every move's log lines are printed")
    args = parser.parse_args()
    # Stopped from outside (SIGTERM, e.g. `timeout`): unwind like Ctrl-C, so a throwaway platform stops too
    # (its services run in sessions of their own and would outlive the demo).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    began = time.monotonic()
    with ExitStack() as stack, httpx.Client(timeout=TIMEOUT) as client:
        urls = running_platform(client)
        if urls is None:
            print("No running platform found on the default ports: starting a throwaway one ...", flush=True)
            urls = start_platform(stack, args.slow)
        else:
            print("Using the running platform.", flush=True)
        try:
            played = run(client, urls, args.games, random.Random(args.seed), args.slow)
        except DemoError as error:
            sys.exit(f"\nmake demo: {error}")
        hint = browser_hint(client)
    print(f"\n{played} games played in {time.monotonic() - began:.0f} s.")
    print(hint)


if __name__ == "__main__":
    main()
