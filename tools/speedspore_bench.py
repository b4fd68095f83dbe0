"""`make bench`, Speedspore's speed beside catanatron: random 4-player games per second (issue 12, point 9).

The target: a random 4-player Speedspore game takes less time than a random 4-player game of the catanatron
package (PyPI, the `bench` dependency group; `make bench` installs it), measured in the same process and run.

- catanatron: ``Game([RandomPlayer(Color.RED), ...4], seed=...)`` and ``game.play()``: standard random map,
  random dice, 10 victory points, its own limit of 1000 turns (a game still running then has no winner).
- Speedspore: ``registry.engine("speedspore@2")`` (the version new games take), 4 seats, default settings (10
  victory points, random dice, random island). From the start, each step picks one seat uniformly among those
  that must act (else those that may) and a uniformly random move of its ``legal_moves`` (``SeededRng``),
  until the game is over. A game that reaches catanatron's limit (1000 rolls, i.e. turns) is stopped and
  counted as unfinished. Two variants: with player offers (every listed move, the canonical offers among them)
  and without (the active player never offers, so nobody answers), catanatron's random player trades with the
  supply and ports only. docs/benchmarks.md says which one the target is judged on and why.

Rounds are interleaved (every side plays N games, then the next side; the order rotates per round) and
every figure is the median over rounds. Prints a table and writes `.bench/speedspore.json`. Run on its own:
``python -m tools.speedspore_bench [--games 20 --rounds 5]``; ``python -m tools.bench`` runs it as one
section (``--speed-games 0`` skips it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from libs.rules import SeededRng, registry
from libs.rules.engine import Engine
from libs.rules.protocol import Json

RULES_ID = "speedspore@2"
CONFIG: Json = {"siegpunkte": 10, "wuerfel": "zufall", "insel": "zufall"}
SEATS = 4
LABEL = f"{RULES_ID} vs catanatron (random 4-player games)"
TURN_LIMIT = 1000
"""catanatron's ``TURNS_LIMIT`` (3.2.1): our random games stop after as many rolls."""
MOVE_LIMIT = 200_000
"""A safety net only: no random game of ours should get near it before the turn limit."""
OFFER_KEY = "angebot"
"""The move key of the active player's offer to the table (GameSpec.open_moves); answers only follow it."""
ANSWER_KEYS = frozenset({"antwort", "gegenangebot"})
"""The move keys of an answer to an open offer ("ja", "nein", a counter-offer)."""
ROLL_KEY = "wuerfeln"
"""The move key of a roll of the dice."""
OUTPUT = Path(__file__).resolve().parent.parent / ".bench" / "speedspore.json"
CATANATRON = "catanatron"
OURS = "speedspore"
OURS_NO_OFFERS = "speedspore_no_offers"
SIDES = (CATANATRON, OURS, OURS_NO_OFFERS)
TARGET_SIDE = OURS_NO_OFFERS
"""The variant the target (faster per game than catanatron) is judged on: like catanatron's random player,
it does not trade with players (docs/benchmarks.md)."""


@dataclass
class Run:
    """One side's games of one round."""

    side: str
    round: int
    games: int
    seconds: float
    cpu_seconds: float
    moves: int
    rolls: int
    unfinished: int
    offers: int = 0
    answers: int = 0
    engine_seconds: float = 0.0
    """Ours: time spent inside ``legal_moves`` and ``apply`` (the rest is the loop and the random choice)."""

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def catanatron_version() -> str | None:
    """Return the installed catanatron's version, None when it is missing."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("catanatron")
    except PackageNotFoundError:
        return None


def catanatron_round(games: int, round_number: int) -> Run:
    """Play ``games`` random 4-player catanatron games (seeded; catanatron seeds Python's ``random``)."""
    from catanatron import Color, Game, RandomPlayer
    from catanatron.models.enums import ActionType

    colors = (Color.RED, Color.BLUE, Color.ORANGE, Color.WHITE)
    moves = rolls = unfinished = 0
    cpu, started = time.process_time(), time.perf_counter()
    for number in range(games):
        game = Game([RandomPlayer(color) for color in colors], seed=1 + round_number * games + number)
        if game.play() is None:
            unfinished += 1
        moves += len(game.state.actions)
        rolls += sum(1 for action in game.state.actions if action.action_type == ActionType.ROLL)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    return Run(CATANATRON, round_number, games, seconds, cpu_seconds, moves, rolls, unfinished)


def _is_offer(move: Json) -> bool:
    return OFFER_KEY in move


def play_random_game(engine: Engine, config: Json, seed: bytes, offers: bool) -> tuple[int, int, int, int, bool,
                                                                                       float]:
    """Play one random game; return moves, rolls, offers, answers, whether it ended, engine seconds."""
    rng = SeededRng(seed, "bench-random")
    position = engine.start(config, SEATS, seed)
    moves = rolls = offers_made = answers = 0
    spent = 0.0
    clock = time.perf_counter
    while not engine.is_over(position):
        if rolls >= TURN_LIMIT or moves >= MOVE_LIMIT:
            return moves, rolls, offers_made, answers, False, spent
        seats = engine.must_act(position) or engine.may_act(position)
        seat = seats[rng.randbelow(len(seats))] if len(seats) > 1 else seats[0]
        began = clock()
        legal = engine.legal_moves(position, seat)
        spent += clock() - began
        if not offers:
            legal = [move for move in legal if not _is_offer(move)]
        move = legal[rng.randbelow(len(legal))]
        began = clock()
        position = engine.apply(position, seat, move).position
        spent += clock() - began
        moves += 1
        if _is_offer(move):
            offers_made += 1
        elif not ANSWER_KEYS.isdisjoint(move):
            answers += 1
        if ROLL_KEY in move:
            rolls += 1
    return moves, rolls, offers_made, answers, True, spent


def speedspore_round(games: int, round_number: int, offers: bool) -> Run:
    """Play ``games`` random 4-player Speedspore games through the Engine."""
    engine = registry.engine(RULES_ID)
    config = engine.normalize_config(CONFIG, SEATS)
    totals = [0, 0, 0, 0]
    unfinished = 0
    spent = 0.0
    cpu, started = time.process_time(), time.perf_counter()
    for number in range(games):
        seed = f"bench-spore-{round_number * games + number}".encode()
        moves, rolls, offers_made, answers, ended, engine_seconds = play_random_game(engine, config, seed, offers)
        for index, value in enumerate((moves, rolls, offers_made, answers)):
            totals[index] += value
        unfinished += not ended
        spent += engine_seconds
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    return Run(OURS if offers else OURS_NO_OFFERS, round_number, games, seconds, cpu_seconds, totals[0], totals[1],
               unfinished, offers=totals[2], answers=totals[3], engine_seconds=spent)


def play_round(side: str, games: int, round_number: int) -> Run:
    if side == CATANATRON:
        return catanatron_round(games, round_number)
    return speedspore_round(games, round_number, offers=side == OURS)


def summarize(runs: list[Run]) -> dict[str, Any]:
    """Return the medians over rounds of one side, with totals."""
    games = sum(run.games for run in runs)
    per_move = [run.engine_seconds / run.moves * 1e6 for run in runs if run.moves and run.engine_seconds]
    return {
        "rounds": len(runs), "games": games,
        "games_per_second": statistics.median(run.games_per_second for run in runs),
        "ms_per_game": statistics.median(run.seconds / run.games * 1000 for run in runs),
        "games_per_cpu_second": statistics.median(run.games / run.cpu_seconds for run in runs if run.cpu_seconds),
        "cpu_share": sum(run.cpu_seconds for run in runs) / sum(run.seconds for run in runs),
        "moves_per_game": sum(run.moves for run in runs) / games,
        "rolls_per_game": sum(run.rolls for run in runs) / games,
        "offers_per_game": sum(run.offers for run in runs) / games,
        "answers_per_game": sum(run.answers for run in runs) / games,
        "unfinished": sum(run.unfinished for run in runs),
        "engine_us_per_move": statistics.median(per_move) if per_move else None,
        "us_per_move": statistics.median(run.seconds / run.moves * 1e6 for run in runs if run.moves),
    }


def ratios(summary: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Time per game of each of our variants divided by catanatron's (below 1: ours is faster)."""
    theirs = summary[CATANATRON]
    result = {}
    for side in (OURS, OURS_NO_OFFERS):
        if side in summary:
            ours = summary[side]
            result[side] = {"time_per_game": ours["ms_per_game"] / theirs["ms_per_game"],
                            "cpu_time_per_game": theirs["games_per_cpu_second"] / ours["games_per_cpu_second"]}
    return result


def report(summary: dict[str, dict[str, Any]], ratio: dict[str, dict[str, float]], version: str | None) -> str:
    names = {CATANATRON: f"catanatron {version} RandomPlayer", OURS: "speedspore, with player offers",
             OURS_NO_OFFERS: "speedspore, without player offers"}
    lines = [f"{'side':<36} {'games/s':>8} {'ms/game':>8} {'moves':>7} {'rolls':>6} {'offers':>7} {'answers':>8}"
             f" {'stopped':>8} {'µs/move':>8} {'engine µs/move':>15} {'ours/theirs':>12}"]
    for side in SIDES:
        if side not in summary:
            continue
        row = summary[side]
        engine_us = f"{row['engine_us_per_move']:.1f}" if row["engine_us_per_move"] is not None else "–"
        share = f"{ratio[side]['time_per_game']:.2f}" if side in ratio else "–"
        lines.append(f"{names[side]:<36} {row['games_per_second']:>8.1f} {row['ms_per_game']:>8.1f}"
                     f" {row['moves_per_game']:>7.0f} {row['rolls_per_game']:>6.0f} {row['offers_per_game']:>7.1f}"
                     f" {row['answers_per_game']:>8.1f} {row['unfinished']:>4}/{row['games']:<3}"
                     f" {row['us_per_move']:>8.1f} {engine_us:>15} {share:>12}")
    return "\n".join(lines)


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=True,
                              cwd=OUTPUT.parent.parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def run(games: int, rounds: int, output: Path = OUTPUT,
        sides: tuple[str, ...] = SIDES) -> tuple[bool | None, dict[str, Any]]:
    """Measure, print the table, write the JSON; return whether the target was met (None: not measured: a side
    missing) and the document."""
    version = catanatron_version()
    meta: dict[str, Any] = {
        "commit": _git("rev-parse", "--short", "HEAD") or "unknown",
        "dirty": bool(_git("status", "--porcelain", "--", "libs/rules", "tools")),
        "cpus": os.cpu_count(), "python": sys.version.split()[0], "catanatron": version,
        "started_at": datetime.now().astimezone().isoformat(timespec="seconds"), "load_before": os.getloadavg(),
        "config": CONFIG, "seats": SEATS, "turn_limit": TURN_LIMIT, "target_side": TARGET_SIDE,
    }
    if version is None:
        sides = tuple(side for side in sides if side != CATANATRON)
        print("WARNING: catanatron is not installed (`make bench` installs the bench group: "
              "`.tools/bin/uv sync --frozen --group bench`)", flush=True)
    try:
        registry.engine(RULES_ID)
    except registry.UnknownRules:
        sides = tuple(side for side in sides if side == CATANATRON)
        print(f"WARNING: {RULES_ID} is not registered: only catanatron is measured", flush=True)
    began = time.perf_counter()
    runs: list[Run] = []
    for round_number in range(rounds):
        shift = round_number % len(sides) if sides else 0
        for side in sides[shift:] + sides[:shift]:
            measured = play_round(side, games, round_number)
            runs.append(measured)
            print(f"round {round_number + 1}/{rounds} {side}: {measured.games_per_second:.1f} games/s"
                  f" ({measured.moves / measured.games:.0f} moves/game, {measured.unfinished} stopped)", flush=True)
    summary = {side: summarize([r for r in runs if r.side == side]) for side in sides}
    ratio = ratios(summary) if CATANATRON in summary else {}
    met = ratio[TARGET_SIDE]["time_per_game"] < 1.0 if TARGET_SIDE in ratio else None
    meta.update(load_after=os.getloadavg(), duration_s=round(time.perf_counter() - began, 1))
    document = {"meta": meta, "options": {"games": games, "rounds": rounds, "sides": list(sides)},
                "summary": summary, "ratio_ours_over_theirs": ratio,
                "target": {"side": TARGET_SIDE, "what": "time per game ours/theirs < 1", "met": met},
                "runs": [{**asdict(r), "games_per_second": r.games_per_second} for r in runs]}
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(document, indent=2) + "\n")
    print(report(summary, ratio, version), flush=True)
    if TARGET_SIDE in ratio:
        for side, values in ratio.items():
            verdict = f" (target < 1) {'ok' if met else 'MISS'}" if side == TARGET_SIDE else ""
            print(f"time per game ours/theirs ({side}): {values['time_per_game']:.2f} wall,"
                  f" {values['cpu_time_per_game']:.2f} CPU{verdict}")
    print(f"load {meta['load_before'][0]:.1f} → {meta['load_after'][0]:.1f}; written to {output}", flush=True)
    return met, document


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20, help="games per side and round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (medians over them)")
    parser.add_argument("--sides", default=",".join(SIDES), help=f"comma-separated, of {','.join(SIDES)}")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    sides = tuple(side for side in SIDES if side in args.sides.split(","))
    met, _ = run(args.games, args.rounds, args.output, sides)
    return 1 if met is False else 0


if __name__ == "__main__":
    sys.exit(main())
