"""`make bench`: rules speed and computer-player strength, measured (never asserted in tests).

Reports per registered rule module and configuration: random 2-player games per second, and the strength
ladder over seeded 2-player games (seats alternate) with decision-time percentiles per level.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from libs.rules import SeededRng, registry
from services.bot.policies import LEVELS, decide


def random_games_per_second(module: Any, config: dict[str, Any], games: int) -> float:
    started = time.perf_counter()
    for number in range(games):
        rng = SeededRng(f"bench-random-{number}".encode())
        state = module.setup(config, 2, rng.derive("seed").next_u64().to_bytes(8, "big"))
        while not module.is_over(state):
            seat = module.to_move(state)[0]
            state, _ = module.apply(state, seat, rng.choice(module.legal_moves(state, seat)))
    return games / (time.perf_counter() - started)


def ladder(module: Any, config: dict[str, Any], strong: str, weak: str, games: int) -> tuple[float, list[float]]:
    wins = 0.0
    times: list[float] = []
    for number in range(games):
        levels = (strong, weak) if number % 2 == 0 else (weak, strong)
        state = module.setup(config, 2, f"ladder-{number}".encode())
        rng = SeededRng(f"ladder-bots-{number}".encode())
        turn = 0
        while not module.is_over(state):
            seat = module.to_move(state)[0]
            started = time.perf_counter()
            move = decide(module.rules_id, module.view(state, seat), seat, levels[seat], rng.derive(str(turn)))
            times.append(time.perf_counter() - started)
            state, _ = module.apply(state, seat, move)
            turn += 1
        places = module.outcome(state).places
        mine, theirs = places[levels.index(strong)], places[1 - levels.index(strong)]
        wins += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return wins / games, times


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--random-games", type=int, default=200)
    parser.add_argument("--ladder-games", type=int, default=200)
    args = parser.parse_args()
    for module in registry.all_modules():
        configs = getattr(module, "valid_configs", lambda: [{}])()
        for config in configs:
            label = f"{module.rules_id} {config}"
            print(f"\n== {label}")
            print(f"random 2-player games/s: {random_games_per_second(module, config, args.random_games):.1f}")
            pairs = list(zip(LEVELS[1:], LEVELS[:-1], strict=True))[::-1]
            for strong, weak in pairs:
                rate, times = ladder(module, config, strong, weak, args.ladder_games)
                print(f"{strong} vs {weak}: {strong} wins {rate:.1%} of {args.ladder_games} games "
                      f"(ties count half); decision p50 {statistics.median(times) * 1000:.1f} ms, "
                      f"p95 {percentile(times, 0.95) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
