"""`make bench`: step-through replay speed (issue 13, point 4), per game module, in-process.

For each module (Speedmosaik's three workshops, Speednova, Speedspore, Speedkoi) the longest of a few 4-seat
games (`--tries`) is played through the table's own `Games` (start, every move validated and sealed as the
table seals it, GameEnded) with a casual seeded player at every seat (`tools.demo.choose`: a random legal
move, no trade offers), on an in-memory log that stores each event's encoded bytes and decodes them on read
as JetStream would; the game seeds come from `--seed` too, so every run measures the same games. Then:

- full replay: `records.replay` of the whole log (what the audit and a cold cache do), events per second;
- the replay endpoint's per-step work (`replay_routes.replay_step`, the JSON encoded) when scrubbing forward
  n = 1..N from a fresh cache, for a seat (its own view) and for an operator (the whole game), and jumping to
  random n (a scrub backwards), per-step mean and p95.

Times are the process's CPU time (`time.process_time`), so other work on the machine counts less. Prints a
table and writes `.bench/replay.json`. Measured, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from libs.platform.contracts.commands import StartGame, StartSeat
from libs.platform.envelope import Event
from services.table.event_store import AppendConflict, GameLog, StoredEvent
from services.table.games import Games
from services.table.records import replay
from services.table.replay_routes import replay_step
from services.table.replay_views import Sight
from services.table.replays import Replays
from services.table.seeds import SeedSource
from tools.bench import percentile
from tools.demo import choose

REPO_ROOT = Path(__file__).resolve().parent.parent
OUTPUT = REPO_ROOT / ".bench" / "replay.json"
SEATS = 4
MAX_MOVES = 6000
GAMES: list[tuple[str, str, dict[str, Any]]] = [
    ("speedmosaik/kachelwand", "speedmosaik", {"workshop": "kachelwand"}),
    ("speedmosaik/kirchenfenster", "speedmosaik", {"workshop": "kirchenfenster"}),
    ("speedmosaik/sternpavillon", "speedmosaik", {"workshop": "sternpavillon"}),
    ("speednova", "speednova", {}),
    ("speedspore", "speedspore", {}),
    ("speedkoi", "speedkoi", {}),
]


class BenchSeeds(SeedSource):
    """Game seeds drawn from the bench's seed, so every run replays the same games."""

    def __init__(self, seed: int) -> None:
        self._seed = seed

    def draw(self) -> bytes:
        return hashlib.sha256(f"replay-bench-{self._seed}".encode()).digest()


class MemoryLog(GameLog):
    """A game log in memory with JetStream's contract: per-subject appends guarded by the last sequence, events
    kept as their encoded bytes and decoded on every read."""

    def __init__(self) -> None:
        self._subjects: dict[str, list[tuple[int, bytes]]] = {}
        self._seq = 0

    async def last_sequence(self, game_id: str) -> int:
        stored = self._subjects.get(game_id)
        return stored[-1][0] if stored else 0

    async def read(self, game_id: str, after_seq: int = 0) -> list[StoredEvent]:
        return [StoredEvent(seq=seq, event=Event.decode(body))
                for seq, body in self._subjects.get(game_id, []) if seq > after_seq]

    async def append(self, event: Event, expected_last_seq: int,
                     headers_for: Callable[[bytes], dict[str, str]] | None = None) -> int:
        if await self.last_sequence(event.game_id) != expected_last_seq:
            raise AppendConflict("wrong last sequence")
        self._seq += 1
        self._subjects.setdefault(event.game_id, []).append((self._seq, event.encode()))
        return self._seq


async def play_long_game(game: str, settings: dict[str, Any], seed: int, tries: int) -> list[StoredEvent]:
    """Play `tries` 4-seat games through `Games` to GameEnded; return the longest log as the table stores it."""
    logs = [await play_game(game, settings, seed + number) for number in range(tries)]
    return max(logs, key=len)


async def play_game(game: str, settings: dict[str, Any], seed: int) -> list[StoredEvent]:
    """Play one 4-seat game through `Games` to GameEnded; return its log as the table stores it."""
    games = Games(MemoryLog(), BenchSeeds(seed))
    players = [f"bench-{seat}" for seat in range(SEATS)]
    record = await games.start(StartGame(game=game, game_id=f"replay-bench-{game}-{seed}", settings=settings,
                                         seats=[StartSeat(kind="human", name=f"Spieler {seat + 1}", player_id=player)
                                                for seat, player in enumerate(players)]))
    rng = random.Random(seed)
    for _ in range(MAX_MOVES):
        if record.is_over:
            break
        must = record.engine.must_act(record.position)
        seat = must[-1]  # answers to an open offer are listed after the offering seat
        move = choose(game, record.engine.legal_moves(record.position, seat), rng)
        record = await games.move(record.game_id, seat, move, actor=players[seat], expected_n=record.n)
    else:
        raise RuntimeError(f"{game}: no end after {MAX_MOVES} moves")
    await games.finish(record.game_id)
    return await games.events(record.game_id)


def scrub(events: list[StoredEvent], game_id: str, sight: Sight, order: list[int]) -> list[float]:
    """Return the seconds of each replay step (body built and JSON-encoded) for the n in `order`, fresh cache."""
    kept = Replays().keep(game_id, events)
    spent = []
    for n in order:
        started = time.process_time()
        msgspec.json.encode(replay_step(kept, game_id, n, sight))
        spent.append(time.process_time() - started)
    return spent


def measure(label: str, events: list[StoredEvent], repeats: int) -> dict[str, Any]:
    """Return the figures of one game's log."""
    game_id = events[0].event.game_id
    replay(events)  # warm up (the module's tables, the interned words)
    folds = []
    for _ in range(repeats):
        started = time.process_time()
        replay(events)
        folds.append(time.process_time() - started)
    last = len(events)
    forward = list(range(1, last + 1))
    jumps = random.Random(7).sample(forward, min(last, 200))
    seat = scrub(events, game_id, Sight(seat=0), forward)
    whole = scrub(events, game_id, Sight(whole=True), forward)
    jumped = scrub(events, game_id, Sight(seat=0), jumps)
    return {
        "game": label, "rules": events[0].event.rules, "events": last,
        "full_replay_events_per_second": round(last / statistics.median(folds)),
        "full_replay_ms": round(statistics.median(folds) * 1000, 1),
        "step_seat_mean_ms": round(statistics.mean(seat) * 1000, 3),
        "step_seat_p95_ms": round(percentile(seat, 0.95) * 1000, 3),
        "scrub_seat_steps_per_second": round(last / sum(seat)),
        "step_all_mean_ms": round(statistics.mean(whole) * 1000, 3),
        "step_all_p95_ms": round(percentile(whole, 0.95) * 1000, 3),
        "jump_seat_mean_ms": round(statistics.mean(jumped) * 1000, 3),
        "jump_seat_p95_ms": round(percentile(jumped, 0.95) * 1000, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=5, help="full replays per game (median taken)")
    parser.add_argument("--seed", type=int, default=13, help="the players' seed (of the first game)")
    parser.add_argument("--tries", type=int, default=3, help="games played per module (the longest is measured)")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="JSON file (default .bench/replay.json)")
    args = parser.parse_args(argv)
    rows = []
    print(f"{'game':<28}{'events':>7}{'replay ev/s':>13}{'step seat ms':>14}{'p95':>8}"
          f"{'step all ms':>13}{'p95':>8}{'jump ms':>9}{'p95':>8}", flush=True)
    for label, game, settings in GAMES:
        events = asyncio.run(play_long_game(game, settings, args.seed, args.tries))
        row = measure(label, events, args.repeats)
        rows.append(row)
        print(f"{label:<28}{row['events']:>7}{row['full_replay_events_per_second']:>13,}"
              f"{row['step_seat_mean_ms']:>14.2f}{row['step_seat_p95_ms']:>8.2f}"
              f"{row['step_all_mean_ms']:>13.2f}{row['step_all_p95_ms']:>8.2f}"
              f"{row['jump_seat_mean_ms']:>9.2f}{row['jump_seat_p95_ms']:>8.2f}", flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    figures = {"seats": SEATS, "seed": args.seed, "tries": args.tries, "games": rows}
    args.output.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
