"""`make bench`: rules speed and computer-player strength, measured (never asserted in tests).

For every rule module and workshop: random 2-player games per second, and the strength ladder over
seeded 2-player games with alternating seats (strong vs normal, normal vs easy), with decision-time
percentiles per level. Targets (issue "Speedmosaik complete"): strong wins >= 65 % against normal,
normal >= 80 % against easy, a normal decision p95 <= 50 ms, a strong one <= 1 s. Exits 1 on a miss.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from libs.rules import SeededRng, registry
from services.bot.policies import decide

TARGET_WIN_RATE = {("strong", "normal"): 0.65, ("normal", "easy"): 0.80}
TARGET_P95_SECONDS = {"easy": 0.05, "normal": 0.05, "strong": 1.0}


@dataclass
class LadderResult:
    """Outcome of one ladder game: the first level's score (1, ½, 0) and every decision's time per level."""

    score: float
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))


def random_games_per_second(rules_id: str, config: dict[str, Any], games: int) -> float:
    module = registry.get(rules_id)
    started = time.perf_counter()
    for number in range(games):
        rng = SeededRng(f"bench-random-{number}".encode())
        state = module.setup(config, 2, f"bench-seed-{number}".encode())
        while not module.is_over(state):
            seat = module.to_move(state)[0]
            state, _ = module.apply(state, seat, rng.choice(module.legal_moves(state, seat)))
    return games / (time.perf_counter() - started)


def ladder_game(rules_id: str, config: dict[str, Any], first: str, second: str, number: int) -> LadderResult:
    """Play one seeded 2-player game between two levels (seats alternate with the game number)."""
    module = registry.get(rules_id)
    levels = (first, second) if number % 2 == 0 else (second, first)
    state = module.setup(config, 2, f"ladder-{number}".encode())
    rng = SeededRng(f"ladder-bots-{number}".encode())
    result = LadderResult(score=0.0)
    turn = 0
    while not module.is_over(state):
        seat = module.to_move(state)[0]
        started = time.perf_counter()
        move = decide(rules_id, module.view(state, seat), seat, levels[seat], rng.derive(str(turn)))
        result.times[levels[seat]].append(time.perf_counter() - started)
        state, _ = module.apply(state, seat, move)
        turn += 1
    places = module.outcome(state).places
    mine, theirs = places[levels.index(first)], places[1 - levels.index(first)]
    result.score = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    result.times = dict(result.times)
    return result


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


def configs_to_measure(module: Any, all_configs: bool) -> list[dict[str, Any]]:
    configs: list[dict[str, Any]] = list(getattr(module, "valid_configs", lambda: [{}])())
    if all_configs:
        return configs
    seen: set[str] = set()
    first_per_workshop = []
    for config in configs:
        workshop = str(config.get("workshop", ""))
        if workshop not in seen:
            seen.add(workshop)
            first_per_workshop.append(config)
    return first_per_workshop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--random-games", type=int, default=100)
    parser.add_argument("--ladder-games", type=int, default=200)
    parser.add_argument("--all-configs", action="store_true", help="every option combination, not one per workshop")
    parser.add_argument("--only", default="", help="measure only configs whose text contains this")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    misses: list[str] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for module in registry.all_modules():
            for config in configs_to_measure(module, args.all_configs):
                label = f"{module.rules_id} {config}"
                if args.only and args.only not in label:
                    continue
                print(f"\n== {label}", flush=True)
                speed = random_games_per_second(module.rules_id, config, args.random_games)
                print(f"random 2-player games/s: {speed:.1f}", flush=True)
                times: dict[str, list[float]] = defaultdict(list)
                for first, second in TARGET_WIN_RATE:
                    results = list(pool.map(ladder_game, [module.rules_id] * args.ladder_games,
                                            [config] * args.ladder_games, [first] * args.ladder_games,
                                            [second] * args.ladder_games, range(args.ladder_games)))
                    rate = sum(r.score for r in results) / len(results)
                    for result in results:
                        for level, spent in result.times.items():
                            times[level].extend(spent)
                    target = TARGET_WIN_RATE[(first, second)]
                    verdict = "ok" if rate >= target else "MISS"
                    if rate < target:
                        misses.append(f"{label}: {first} vs {second} {rate:.1%} < {target:.0%}")
                    print(f"{first} vs {second}: {first} wins {rate:.1%} of {len(results)} games "
                          f"(ties count half; target >= {target:.0%}) {verdict}", flush=True)
                for level in ("easy", "normal", "strong"):
                    p95 = percentile(times[level], 0.95)
                    verdict = "ok" if p95 <= TARGET_P95_SECONDS[level] else "MISS"
                    if p95 > TARGET_P95_SECONDS[level]:
                        misses.append(f"{label}: {level} p95 {p95 * 1000:.0f} ms")
                    p50 = percentile(times[level], 0.5)
                    print(f"{level:>6} decisions: {len(times[level])}, p50 {p50 * 1000:.1f} ms,"
                          f" p95 {p95 * 1000:.1f} ms (target <= {TARGET_P95_SECONDS[level] * 1000:.0f} ms) {verdict}",
                          flush=True)
    print("\nall targets met" if not misses else "\nmissed:\n  " + "\n  ".join(misses))
    sys.exit(1 if misses else 0)


if __name__ == "__main__":
    main()
