"""`make bench`: the skill rating (issue 28, point 4): does it find the strong players, and is it fast enough.

1. **Accuracy.** 1,000 simulated players with a known hidden strength (normal, mean 0, spread 1) and the three
   computer levels (hidden strength −1, 0, +1 for easy, normal, strong) play 20,000 games per game and seat count
   (Speedmosaik, Speednova, Speedkoi, Speedspore at 2, 3 and 4 seats, Speednova also 2 v 2), each table drawn at
   random, a computer at one seat in 30 % of the games. A seat's result is its hidden strength plus luck (a normal
   draw of the game's `LUCK`, see below); the order of results is the game's places (equal results share one).
   The ratings come from the service's own update (`rating_model.replay`, the same code the projection runs);
   the figure is Kendall's τ-b (scipy) between the players' final μ and their hidden strength, beside the τ of each
   player's mean normalised place (the naive estimate, blind to whom they met). Targets: τ ≥ 0.6 and no more than
   0.05 below the naive estimate's.
2. **Speed.** 100,000 games (one list, 1,000 players, 2–4 seats, computers as above) projected by the live
   projection's own code, `projection.read_finished_game` → `projection.rated_game_of` →
   `rating_projection.rate_games`, into a real PostgreSQL (throwaway, started here, migrated), 1,000 games per
   transaction, each batch's events decoded from their bytes inside the timed part. Target: under 60 s. Also
   measured, not gated: the live consumer's whole projection (results, standings, badges, ratings) one game per
   transaction (as before the consumer took batches) and PROJECTION_BATCH games per transaction, rated together
   (as it does),
   4 alternating rounds of 320 games each: wall time, this process's CPU and PostgreSQL's per game; and a game
   that arrives 1,000 games late (the list is rewound and those games rated again).

The luck per game is an assumption, not a measurement: Speedmosaik and Speednova little (0.5: open
information, deterministic after the draw), Speedkoi more (0.8: hidden hands), Speedspore most (1.5: dice
decide much; the bot bench's 46 % for strong against three normal at a fair share of 25 % says luck dominates).
The τ therefore shows how well the rating orders players under that much luck, with 40–80 games each.

Prints a table and writes `.bench/ratings.json`; exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from scipy.stats import kendalltau
from sqlalchemy import text

from libs.devservers.postgres_server import PostgresServer
from libs.platform.contracts.events import EndedSeat, GameEnded, Outcome
from libs.platform.database import create_engine, session_factory, upgrade_all
from libs.platform.envelope import Event, EventType, new_event
from libs.platform.settings import Settings
from services.leaderboard.projection import (
    project_finished_game,
    project_finished_games,
    rated_game_of,
    read_finished_game,
)
from services.leaderboard.rating_model import KeyState, RatedGame, computer_key, rated_seats, replay
from services.leaderboard.rating_projection import rate_games
from services.leaderboard.workers import PROJECTION_BATCH
from tools.archive_bench import cpu_seconds, server_pids

REPO_ROOT = Path(__file__).resolve().parent.parent
OUTPUT = REPO_ROOT / ".bench" / "ratings.json"
PLAYERS = 1000
GAMES = 20_000
PROJECTED = 100_000
BATCH = 1000
COMPUTER_SHARE = 0.3
LEVELS = {"easy": -1.0, "normal": 0.0, "strong": 1.0}
LUCK = {"speedmosaik": 0.5, "speednova": 0.5, "speedkoi": 0.8, "speedspore": 1.5}
TAU_FLOOR = 0.6
TAU_MARGIN = -0.05
"""Targets: τ ≥ 0.6, and at most 0.05 below the τ of the naive estimate (each player's mean normalised place).
With tables drawn at random the naive estimate is at its best (everyone meets the same mix of opponents); the
rating's use of the opponents' strength pays where tables are not random (a matchmaker seats like with like, the
mean place then says nothing), so here it only must not fall clearly behind counting."""
PROJECTION_TARGET_S = 60.0
START = datetime(2026, 12, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Table:
    """One simulated table: its seats (player index, or a computer level) and their places."""

    seats: tuple[int | str, ...]
    places: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...] = ()


def draw_table(rng: random.Random, strengths: list[float], seats: int, luck: float, teams: bool) -> Table:
    """A random table of `seats` and its places: hidden strength plus luck, higher is better."""
    players: list[int | str] = list(rng.sample(range(len(strengths)), seats))
    if rng.random() < COMPUTER_SHARE:
        players[rng.randrange(seats)] = rng.choice(tuple(LEVELS))
    results = [(strengths[player] if isinstance(player, int) else LEVELS[player]) + rng.gauss(0.0, luck)
               for player in players]
    if teams:  # partners share one result: their team's (the sum of both)
        team_results = (results[0] + results[2], results[1] + results[3])
        results = [team_results[seat % 2] for seat in range(4)]
    places = tuple(1 + sum(other > result for other in results) for result in results)
    return Table(seats=tuple(players), places=places, teams=((0, 2), (1, 3)) if teams else ())


def end_table(table: Table) -> list[dict[str, Any]]:
    """The table as the end table the projection stores (`finished_games.seats`)."""
    return [{"seat": index, "kind": "human" if isinstance(player, int) else "bot",
             "level": None if isinstance(player, int) else player,
             "player_id": f"p{player:04d}" if isinstance(player, int) else None, "place": table.places[index],
             "has_left": False} for index, player in enumerate(table.seats)]


def accuracy(game: str, seats: int, teams: bool, seed: int, games: int) -> dict[str, Any]:
    """Kendall's τ between the ratings after `games` simulated games and the hidden strengths."""
    rng = random.Random(f"{seed}:{game}:{seats}:{teams}")
    strengths = [rng.gauss(0.0, 1.0) for _ in range(PLAYERS)]
    rated: list[RatedGame] = []
    standing: list[list[float]] = [[] for _ in range(PLAYERS)]  # the baseline's normalised places
    for number in range(games):
        table = draw_table(rng, strengths, seats, LUCK[game], teams)
        for player, place in zip(table.seats, table.places, strict=True):
            if isinstance(player, int):
                standing[player].append((len(table.seats) - place) / (len(table.seats) - 1))
        rated.append(RatedGame(game_id=f"g{number:06d}", game=game, variant=game,
                               ended_at=START + timedelta(seconds=number),
                               seats=rated_seats(end_table(table), table.teams, frozenset())))
    states: dict[str, KeyState] = {}
    started = time.process_time()
    replay(rated, states)
    cpu = time.process_time() - started
    mus = [states[f"p{player:04d}"].rating.mu if f"p{player:04d}" in states else 25.0 for player in range(PLAYERS)]
    tau = kendalltau(mus, strengths).statistic
    baseline = kendalltau([sum(places) / len(places) if places else 0.5 for places in standing], strengths).statistic
    computers = {level: round(states[computer_key(level)].rating.shown) for level in LEVELS
                 if computer_key(level) in states}
    played = [states[f"p{player:04d}"].games for player in range(PLAYERS) if f"p{player:04d}" in states]
    return {"game": game, "seats": "2 v 2" if teams else seats, "games": games, "tau": round(float(tau), 4),
            "tau_mean_place": round(float(baseline), 4),
            "games_per_player_min": min(played), "games_per_player_median": sorted(played)[len(played) // 2],
            "computers_shown": computers, "update_cpu_us": round(cpu / games * 1e6, 1),
            "met": bool(tau >= TAU_FLOOR and tau >= baseline + TAU_MARGIN)}


def game_ended_event(number: int, table: Table, variant: str) -> bytes:
    """A `GameEnded` event of the simulated table, as the log stores it (encoded)."""
    seats = [EndedSeat(seat=index, name=f"Spieler {player}" if isinstance(player, int) else "Computer",
                       kind="human" if isinstance(player, int) else "bot",
                       player_id=f"p{player:04d}" if isinstance(player, int) else None,
                       level=None if isinstance(player, int) else player,
                       account="guest" if isinstance(player, int) else None)
             for index, player in enumerate(table.seats)]
    count = len(table.seats)
    data = GameEnded(game="speedmosaik", variant=variant, rules="speedmosaik@1", seats=seats,
                     outcome=Outcome(places=list(table.places), scores=[10 * (5 - place) for place in table.places],
                                     tie_break=[0] * count, lines=[[] for _ in range(count)],
                                     leaderboard_points=[0] * count, summary={"key": "", "params": {}, "text": ""}),
                     seed="ab" * 32).to_data()
    event = new_event(game_id=f"{variant}-{number:07d}", n=40, type=EventType.GAME_ENDED, actor="system",
                      rules="speedmosaik@1", data=data, prev="cd" * 32,
                      at=START + timedelta(milliseconds=10 * number))
    return event.encode()


def simulated_events(count: int, seed: int, variant: str) -> list[bytes]:
    """`count` encoded game ends of one list among `PLAYERS` players, 2–4 seats."""
    rng = random.Random(f"{seed}:projection")
    strengths = [rng.gauss(0.0, 1.0) for _ in range(PLAYERS)]
    return [game_ended_event(number, draw_table(rng, strengths, rng.choice((2, 3, 4)), 0.5, False), variant)
            for number in range(count)]


LIVE_ROUNDS = 4
LIVE_GAMES = 320
"""Games per round of the live path (a multiple of PROJECTION_BATCH)."""


async def live_path(sessions: Any, seed: int, pids: list[int]) -> dict[str, dict[str, float]]:
    """Time the live consumer's whole projection one game per transaction and PROJECTION_BATCH games per transaction
    (alternating rounds of LIVE_GAMES): wall time, this process's CPU and the PostgreSQL server's, per game."""
    totals = {size: [0.0, 0.0, 0.0] for size in (1, PROJECTION_BATCH)}
    for round_number in range(LIVE_ROUNDS):
        for size in totals:
            events = simulated_events(LIVE_GAMES, seed + 100 + round_number, f"live-{size}-{round_number}")
            wall, own, server = time.perf_counter(), time.process_time(), cpu_seconds(pids)
            for start in range(0, LIVE_GAMES, size):
                async with sessions() as session, session.begin():
                    await project_finished_games(session, [read_finished_game(Event.decode(raw))
                                                           for raw in events[start:start + size]])
            spent = totals[size]
            spent[0] += time.perf_counter() - wall
            spent[1] += time.process_time() - own
            spent[2] += cpu_seconds(pids) - server
    games = LIVE_ROUNDS * LIVE_GAMES
    return {f"per_transaction_{size}": {"ms_per_game": round(wall / games * 1000, 3),
                                        "cpu_us_per_game": round(own / games * 1e6),
                                        "postgres_cpu_us_per_game": round(server / games * 1e6)}
            for size, (wall, own, server) in totals.items()}


async def projection_speed(database_url: str, count: int, seed: int, postmaster: int) -> dict[str, Any]:
    """Time the projection of `count` games in batches, the live path (one game, then PROJECTION_BATCH games per
    transaction), then one late game."""
    settings = Settings(database_url=database_url)
    engine = create_engine(settings)
    sessions = session_factory(engine)
    try:
        async with engine.connect() as connection:  # the pool's connection (and its server process) first
            await connection.execute(text("SELECT 1"))
        pids = server_pids(postmaster)
        events = simulated_events(count, seed, "bench")
        started = time.perf_counter()
        for start in range(0, count, BATCH):
            batch = [rated_game_of(read_finished_game(Event.decode(raw))) for raw in events[start:start + BATCH]]
            async with sessions() as session, session.begin():
                await rate_games(session, [game for game in batch if game is not None])
        batched = time.perf_counter() - started
        async with engine.connect() as connection:
            rated = (await connection.execute(text("SELECT games FROM leaderboard.rating_pools "
                                                   "WHERE game = 'speedmosaik' AND variant = 'bench'"))).scalar()
        # The live consumer's way: the whole projection (results, standings, badges, ratings), one game per
        # transaction as before the consumer took batches, and PROJECTION_BATCH per transaction as it does now;
        # alternating rounds, so the machine's drift touches both alike.
        live = await live_path(sessions, seed, pids)
        single_events = simulated_events(1000, seed + 1, "bench-single")
        for raw in single_events[:-1]:
            async with sessions() as session, session.begin():
                await project_finished_game(session, read_finished_game(Event.decode(raw)))
        # The last of them arrives now, 999 games late: the list is rewound and they are rated again.
        late_event = Event.decode(single_events[-1])
        late_event = new_event(game_id=late_event.game_id, n=late_event.n, type=late_event.type,
                               actor=late_event.actor, rules=late_event.rules, data=late_event.data,
                               prev=late_event.prev, at=START - timedelta(seconds=1))
        started = time.perf_counter()
        async with sessions() as session, session.begin():
            await project_finished_game(session, read_finished_game(late_event))
        rewound = time.perf_counter() - started
    finally:
        await engine.dispose()
    return {"games": count, "rated": rated, "batch": BATCH, "seconds": round(batched, 2),
            "games_per_second": round(count / batched), "met": batched < PROJECTION_TARGET_S,
            "live_path": live,
            "late_by_999_games_ms": round(rewound * 1000, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--games", type=int, default=GAMES, help="simulated games per game and seat count")
    parser.add_argument("--projected", type=int, default=PROJECTED, help="games projected into PostgreSQL")
    args = parser.parse_args()

    rows = [accuracy(game, seats, False, args.seed, args.games) for game in LUCK for seats in (2, 3, 4)]
    rows.append(accuracy("speednova", 4, True, args.seed, args.games))
    print(f"{'game':<12} {'seats':>5} {'τ':>7} {'τ mean place':>12} {'games/player (min, median)':>27} "
          f"{'computers':>32} {'µs/game':>8}")
    for row in rows:
        computers = " ".join(f"{level} {shown}" for level, shown in row["computers_shown"].items())
        print(f"{row['game']:<12} {row['seats']!s:>5} {row['tau']:>7.3f} {row['tau_mean_place']:>12.3f} "
              f"{row['games_per_player_min']:>20}, {row['games_per_player_median']:<5} {computers:>32} "
              f"{row['update_cpu_us']:>8}{'' if row['met'] else '  MISSED (τ ≥ 0.6 and ≥ mean place − 0.05)'}",
              flush=True)

    with tempfile.TemporaryDirectory(prefix="rating-bench-") as root:
        postgres = PostgresServer(Path(root) / "postgres", throwaway=True).start()
        try:
            upgrade_all(postgres.url)
            postmaster = int((postgres.data_dir / "postmaster.pid").read_text().splitlines()[0])
            speed = asyncio.run(projection_speed(postgres.url, args.projected, args.seed, postmaster))
        finally:
            postgres.stop()
    print(f"projection: {speed['games']:,} games in {speed['seconds']} s ({speed['games_per_second']:,}/s, "
          f"{speed['batch']} per transaction){'' if speed['met'] else '  MISSED (< 60 s)'}; "
          f"a game 999 games late {speed['late_by_999_games_ms']} ms")
    for name, figures in speed["live_path"].items():
        print(f"live path, {name.removeprefix('per_transaction_')} game(s) per transaction: "
              f"{figures['ms_per_game']} ms, {figures['cpu_us_per_game']} µs CPU here and "
              f"{figures['postgres_cpu_us_per_game']} µs in PostgreSQL per game")
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    result = {"measured_at": datetime.now(UTC).isoformat(timespec="seconds"), "seed": args.seed,
              "players": PLAYERS, "luck": LUCK, "tau_floor": TAU_FLOOR, "tau_margin": TAU_MARGIN, "accuracy": rows,
              "projection": speed, "projection_target_s": PROJECTION_TARGET_S}
    OUTPUT.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written to {OUTPUT.relative_to(REPO_ROOT)}")
    return 0 if speed["met"] and all(row["met"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
