"""`make bench`: game affinity, measured (issue 26, point 3): the platform's moves per second and turn times with 1, 2
and 4 table API replicas, each count with affinity (TABLE_AFFINITY on: a game's commands reach the replica holding
its partition) and without (off: the shared queue group hands each command to any replica, as before).

Run: `python -m tools.affinity_bench` (3 rounds, about 10 minutes), `--quick` (one round of short windows), or pick:
`--replicas 1,2 --games 200 --runs 3 --seconds 10`.

One stack for the whole run (tools.platform_bench.Stack: NATS, PostgreSQL, the five services with the table as its
API and `table-followup`), started in a temporary folder; for each configuration only the table's API processes are
replaced (stopped gracefully, so their leases go back at once), and the bench waits until the new ones hold every
partition evenly (or, without affinity, until none is held). Then G two-seat Speedmosaik games over NATS, both seats
played by this process as platform_bench's NATS scenario plays them (view, then a legal move with `expected_n`; a
game that ends is replaced), for a warm-up and a measured window. The configurations run in rounds, each round in
another order, so a machine that is busier at one moment does not favour one configuration (two shared cores: only
figures of the same run compare). Per configuration, the median over rounds of moves/s, CPU time per move summed
over the platform's processes (and the table API's alone: these do not drift with the machine's other load as
moves/s do), turn p50/p99, move p50, CPU per process (% of one core), the table replicas' catch-ups (a cached game
found behind the log and read up to it: `speed_table_replay_seconds`' count) and append conflicts (a move that lost
the log's race and was decided again), and the share of game commands that took the shared subject (a partition
without holder).

Prints a table and writes `.bench/affinity.json`. Exits 1 when affinity costs more CPU per move than no affinity at
the same replica count, or when a run with affinity saw append conflicts (`--no-check`: always 0). CPU per move, not
moves/s: on a machine shared with other work, more processes get a larger share of the cores from the scheduler, so
moves/s grow with the replica count for reasons of their own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import nats.errors
from nats.aio.client import Client as NatsClient

from libs.devservers.ports import free_port
from libs.devservers.processes import REPO_ROOT, ServiceProcess
from libs.platform import nats_client
from libs.platform.contracts.commands import PLAY_MOVE, Command, MakeMove, ViewGame
from libs.platform.contracts.subjects import TABLE_PARTITIONS, TABLE_QUEUE, TABLE_VIEW
from libs.platform.rpc import CommandRefused, call
from libs.rules import SeededRng
from services.table.partitions import read_leases
from tools.platform_bench import (
    FOREIGN_LIMIT,
    Stack,
    TurnView,
    Window,
    choose,
    cpu_percent,
    cpu_snapshot,
    machine_busy,
    percentile,
    run_async,
    start_human_game,
    wait_for_quiet,
)

OUTPUT = REPO_ROOT / ".bench" / "affinity.json"
VIEW_BY_GAME: Command[ViewGame, TurnView] = Command(TABLE_VIEW, TABLE_QUEUE, ViewGame, TurnView, by_game=True)
"""`table.cmd.view` by game (to the game's partition), read as the bench's players read it (`TurnView`)."""


@dataclass(frozen=True)
class Config:
    """Table API replicas and whether they hold partitions (affinity) or all share one queue group."""

    replicas: int
    affinity: bool

    @property
    def name(self) -> str:
        return f"{self.replicas}-{'affinity' if self.affinity else 'shared'}"


@dataclass(frozen=True)
class Options:
    replicas: tuple[int, ...]
    games: int
    runs: int
    seconds: float
    warmup: float
    quiet_wait: float
    output: Path
    check: bool

    def configs(self) -> list[Config]:
        return [Config(count, affinity) for count in self.replicas for affinity in (False, True)]


# ---- the table's API replicas, replaced per configuration ---------------------------------------------------
def api_names(count: int) -> list[str]:
    """The API processes' names as platform_bench's Stack names them (CPU is summed under `table`)."""
    return ["table", *(f"table-api-{number}" for number in range(2, count + 1))]


def use_replicas(stack: Stack, config: Config, logs: Path) -> list[ServiceProcess]:
    """Stop the table's API processes (gracefully: their leases go back) and start `config`'s."""
    first = stack.services["table"]
    for name in api_names(stack.table_api):
        stack.services.pop(name).stop()
    env = {**first.extra_env, "TABLE_AFFINITY": "true" if config.affinity else "false"}
    started = []
    for name in api_names(config.replicas):
        process = ServiceProcess(name, env=first.env, port=free_port(), log_path=logs / f"{name}.log",
                                 extra_env=env, module="table").start()
        stack.services[name] = process
        started.append(process)
    stack.table_api = config.replicas
    for process in started:
        process.wait_ready(timeout=90)
    return started


async def wait_for_leases(nc: NatsClient, config: Config, timeout: float = 60.0) -> float:
    """Wait until the replicas hold every partition evenly (without affinity: until none is held); return seconds."""
    began = time.monotonic()
    while True:
        leases = await read_leases(nc)
        held = Counter(value for key, value in leases.items() if key.startswith("partition."))
        if config.affinity:
            done = (sum(held.values()) == TABLE_PARTITIONS and len(held) == config.replicas
                    and max(held.values()) - min(held.values()) <= 1)
        else:
            done = not held
        if done:
            return round(time.monotonic() - began, 2)
        if time.monotonic() - began > timeout:
            raise RuntimeError(f"partitions not spread over {config.replicas} replicas: {dict(held)}")
        await asyncio.sleep(0.2)


# ---- metrics of the API replicas ----------------------------------------------------------------------------
_SAMPLE = re.compile(r"^(speed_table_append_conflicts_total|speed_table_game_commands_total|"
                     r"speed_table_replay_seconds_count)(\{[^}]*\})? (\S+)$", re.MULTILINE)


def replica_counts(replicas: list[ServiceProcess]) -> dict[str, float]:
    """Append conflicts, catch-ups (a cached game read up to the log: speed_table_replay_seconds' count) and game
    commands (shared subject vs. a partition's), summed over the API replicas."""
    totals: dict[str, float] = defaultdict(float)
    for replica in replicas:
        text = httpx.get(f"{replica.url}/metrics", timeout=10).text
        for name, labels, value in _SAMPLE.findall(text):
            if name == "speed_table_append_conflicts_total":
                totals["conflicts"] += float(value)
            elif name == "speed_table_replay_seconds_count":
                totals["catch_ups"] += float(value)
            else:
                totals["shared" if 'partition="shared"' in labels else "by_partition"] += float(value)
    return dict(totals)


# ---- players ------------------------------------------------------------------------------------------------
async def play(nc: NatsClient, window: Window) -> None:
    """Start a two-human game and play it over NATS by game (view, then a legal move) until it ends or the window
    stops, recording every turn inside the window."""
    game_id, players = await start_human_game(nc)
    rng = SeededRng(game_id.encode(), "bench")
    seat = 0
    while not window.stopping:
        began = time.perf_counter()
        view = await call(nc, VIEW_BY_GAME, ViewGame(game_id=game_id, seat=seat))
        if view.status != "running":
            return
        if seat not in view.to_move:
            seat = view.to_move[0]  # a new round begins with whoever took the first tile
            view = await call(nc, VIEW_BY_GAME, ViewGame(game_id=game_id, seat=seat))
        move = choose(view.legal_moves, rng)
        sent = time.perf_counter()
        await call(nc, PLAY_MOVE, MakeMove(game_id=game_id, seat=seat, move=move, actor=players[seat],
                                           chosen_by="player", expected_n=view.n))
        done = time.perf_counter()
        window.record(time.monotonic(), done - began, done - sent)
        seat = 1 - seat


async def measure(nc: NatsClient, stack: Stack, replicas: list[ServiceProcess], options: Options) -> dict[str, Any]:
    """G games in flight through a warm-up and a measured window; the window's figures."""
    window = Window(warmup=options.warmup, seconds=options.seconds)
    window.open()

    async def player() -> None:
        while not window.stopping:
            try:
                await play(nc, window)
            except (CommandRefused, nats.errors.Error) as error:
                window.error(error)
                await asyncio.sleep(0.05)

    tasks = [asyncio.create_task(player()) for _ in range(options.games)]
    await asyncio.sleep(max(0.0, window.start - time.monotonic()))
    counts_before, cpu_before = replica_counts(replicas), cpu_snapshot(stack)
    await asyncio.sleep(max(0.0, window.end - time.monotonic()))
    cpu_after, counts_after = cpu_snapshot(stack), replica_counts(replicas)
    window.stopping = True
    _, pending = await asyncio.wait(tasks, timeout=60)
    for task in pending:
        task.cancel()
    counts = {key: counts_after.get(key, 0.0) - counts_before.get(key, 0.0)
              for key in ("conflicts", "catch_ups", "shared", "by_partition")}
    commands = counts["shared"] + counts["by_partition"]
    cpu = cpu_percent(cpu_before, cpu_after)
    moves_per_s = window.count / window.seconds
    return {"moves_per_s": round(moves_per_s, 1),
            "cpu_us_per_move": cpu_per_move(cpu, moves_per_s), "table_cpu_us_per_move": cpu_per_move(cpu, moves_per_s,
                                                                                                   ("table",)),
            "turn_p50_ms": round(percentile(window.turns, 50) * 1000, 2),
            "turn_p99_ms": round(percentile(window.turns, 99) * 1000, 2),
            "move_p50_ms": round(percentile(window.moves, 50) * 1000, 2),
            "append_conflicts_per_1000_moves": round(1000 * counts["conflicts"] / max(window.count, 1), 1),
            "catch_ups_per_1000_moves": round(1000 * counts["catch_ups"] / max(window.count, 1), 1),
            "shared_commands_percent": round(100 * counts["shared"] / commands, 1) if commands else 0.0,
            "cpu_percent": cpu, "errors": dict(window.errors)}


NOT_PLATFORM = frozenset({"bench client", "bare responder", "machine busy", "foreign"})


def cpu_per_move(cpu: dict[str, float], moves_per_s: float, labels: tuple[str, ...] | None = None) -> float:
    """CPU time per move in µs, summed over the platform's processes (or `labels`): a figure that does not drift
    with the machine's other load as moves per second do."""
    chosen = [label for label in cpu if label not in NOT_PLATFORM] if labels is None else list(labels)
    return round(sum(cpu.get(label, 0.0) for label in chosen) / 100 * 1e6 / moves_per_s, 0) if moves_per_s else 0.0


async def run_all(options: Options, stack: Stack, logs: Path, runs: dict[str, list[dict[str, Any]]]) -> None:
    nc = await nats_client.connect(stack.nats.url)
    try:
        configs = options.configs()
        for round_number in range(options.runs):
            shift = round_number % len(configs)
            for config in configs[shift:] + configs[:shift]:  # another order each round
                replicas = use_replicas(stack, config, logs)
                spread = await wait_for_leases(nc, config)
                foreign = await wait_for_quiet(stack, options.quiet_wait)
                result = {"round": round_number + 1, "leases_spread_s": spread, "foreign_before": foreign,
                          **await measure(nc, stack, replicas, options)}
                runs.setdefault(config.name, []).append(result)
                print(line(round_number + 1, config, result), flush=True)
    finally:
        await nc.close()


def line(round_number: int, config: Config, result: dict[str, Any]) -> str:
    """One window's figures as a line of progress."""
    cpu = result["cpu_percent"]
    return (f"round {round_number} {config.name:>12}: {result['moves_per_s']:7.0f} moves/s, "
            f"{result['cpu_us_per_move']:5.0f} µs CPU per move, turn p50 "
            f"{result['turn_p50_ms']:6.1f} p99 {result['turn_p99_ms']:6.1f} ms, per 1000 moves "
            f"{result['catch_ups_per_1000_moves']:5.0f} catch-ups {result['append_conflicts_per_1000_moves']:4.1f} "
            f"conflicts, shared {result['shared_commands_percent']:4.1f} %, machine {cpu['machine busy']:.0f} %, "
            f"foreign {cpu['foreign']:.0f} %")


# ---- summary ------------------------------------------------------------------------------------------------
def summarize(options: Options, runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Medians per configuration and each replica count's change against one replica, with and without affinity."""
    summary: dict[str, Any] = {}
    for config in options.configs():
        results = runs.get(config.name, [])
        if not results:
            continue
        entry: dict[str, Any] = {"replicas": config.replicas, "affinity": config.affinity, "runs": len(results)}
        for key in ("moves_per_s", "cpu_us_per_move", "table_cpu_us_per_move", "turn_p50_ms", "turn_p99_ms",
                    "move_p50_ms", "append_conflicts_per_1000_moves", "catch_ups_per_1000_moves",
                    "shared_commands_percent"):
            entry[key] = round(statistics.median(result.get(key, 0.0) for result in results), 2)
        labels = {label for result in results for label in result["cpu_percent"]}
        entry["cpu_percent"] = {label: round(statistics.median(result["cpu_percent"].get(label, 0.0)
                                                               for result in results), 1) for label in sorted(labels)}
        entry["moves_per_s_runs"] = [result["moves_per_s"] for result in results]
        summary[config.name] = entry
    for config in options.configs():
        base = summary.get(Config(1, config.affinity).name)
        change = summary.get(config.name)
        if base and change and base["moves_per_s"]:
            ratio = change["moves_per_s"] / base["moves_per_s"]
            change["moves_per_s_vs_one_replica_percent"] = round(100 * (ratio - 1), 1)
    return summary


def check(summary: dict[str, Any]) -> list[str]:
    """What this run's figures say is wrong (affinity losing to the shared queue group, or racing itself)."""
    problems = []
    for name, entry in summary.items():
        if not entry["affinity"]:
            continue
        shared = summary.get(Config(entry["replicas"], False).name)
        if entry["replicas"] > 1 and shared and entry["cpu_us_per_move"] > shared["cpu_us_per_move"]:
            problems.append(f"{name}: {entry['cpu_us_per_move']:.0f} µs of CPU per move, more than without affinity "
                            f"({shared['cpu_us_per_move']:.0f})")
        if entry["append_conflicts_per_1000_moves"] > 0:
            problems.append(f"{name}: {entry['append_conflicts_per_1000_moves']} append conflicts per 1000 moves")
    return problems


def report(summary: dict[str, Any], meta: dict[str, Any]) -> str:
    lines = [f"\naffinity bench, commit {meta['commit']}{' (dirty)' if meta['dirty'] else ''}, {meta['games']} games "
             f"in flight, {meta['runs']} rounds of {meta['seconds']:.0f} s, {meta['cpus']} cores, load before "
             f"{meta['load_before'][0]:.1f}",
             "| replicas | affinity | moves/s (runs) | vs one replica | CPU µs per move: platform (table) | "
             "turn p50/p99 ms | move p50 ms | catch-ups / conflicts per 1000 moves | shared commands | "
             "CPU table / follow-up / nats-server / bench % |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for entry in summary.values():
        cpu = entry["cpu_percent"]
        runs = " · ".join(f"{value:,.0f}" for value in entry["moves_per_s_runs"])
        change = entry.get("moves_per_s_vs_one_replica_percent")
        lines.append(
            f"| {entry['replicas']} | {'yes' if entry['affinity'] else 'no'} | {entry['moves_per_s']:,.0f} ({runs}) | "
            f"{'–' if change is None or entry['replicas'] == 1 else f'{change:+.0f} %'} | "
            f"{entry['cpu_us_per_move']:,.0f} ({entry['table_cpu_us_per_move']:,.0f}) | "
            f"{entry['turn_p50_ms']:.1f}/{entry['turn_p99_ms']:.1f} | {entry['move_p50_ms']:.2f} | "
            f"{entry['catch_ups_per_1000_moves']:.0f} / {entry['append_conflicts_per_1000_moves']:.1f} | "
            f"{entry['shared_commands_percent']:.1f} % | "
            f"{cpu.get('table', 0):.0f} / {cpu.get('table-followup', 0):.0f} / {cpu.get('nats-server', 0):.0f} / "
            f"{cpu.get('bench client', 0):.0f} |")
    return "\n".join(lines)


def parse_options(argv: list[str]) -> Options:
    parser = argparse.ArgumentParser(prog="python -m tools.affinity_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", default="1,2,4", help="table API replica counts (default 1,2,4)")
    parser.add_argument("--games", type=int, default=200, help="games in flight (default 200)")
    parser.add_argument("--runs", type=int, default=3, help="rounds over every configuration (default 3)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per window (default 10)")
    parser.add_argument("--warmup", type=float, default=4.0, help="warm-up seconds per window (default 4)")
    parser.add_argument("--quiet-wait", type=float, default=30.0,
                        help="seconds to wait at most for other processes to calm down before a window")
    parser.add_argument("--quick", action="store_true", help="one round of 6 s windows")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--no-check", dest="check", action="store_false", help="exit 0 whatever the figures")
    args = parser.parse_args(argv)
    quick = args.quick
    return Options(replicas=tuple(int(count) for count in args.replicas.split(",")), games=args.games,
                   runs=1 if quick else args.runs, seconds=6.0 if quick else args.seconds,
                   warmup=3.0 if quick else args.warmup, quiet_wait=10.0 if quick else args.quiet_wait,
                   output=args.output, check=args.check)


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _stop_on_sigterm(*_: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    options = parse_options(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    root = Path(tempfile.mkdtemp(prefix="affinity-bench-"))
    logs = root / "logs"
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    meta: dict[str, Any] = {
        "commit": commit, "dirty": bool(_git("status", "--porcelain", "--", "services", "libs", "tools")),
        "cpus": os.cpu_count(), "games": options.games, "runs": options.runs, "seconds": options.seconds,
        "started_at": datetime.now().astimezone().isoformat(timespec="seconds"), "load_before": os.getloadavg(),
        "busy_before_percent": machine_busy()}
    if meta["busy_before_percent"] > FOREIGN_LIMIT:
        print(f"WARNING: the machine is busy before the bench starts ({meta['busy_before_percent']:.0f} % of a core)",
              flush=True)
    print(f"affinity bench: commit {commit}; starting NATS, PostgreSQL and the services in {root} ...", flush=True)
    runs: dict[str, list[dict[str, Any]]] = {}
    stack = Stack(root)
    try:
        stack.start()
        run_async(run_all(options, stack, logs, runs))
    except KeyboardInterrupt:
        meta["interrupted"] = True
        print("\ninterrupted: reporting what was measured so far", flush=True)
    finally:
        stack.stop()
        shutil.rmtree(root, ignore_errors=True)
    meta["load_after"] = os.getloadavg()
    summary = summarize(options, runs)
    problems = check(summary)
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps({"meta": meta, "options": {**options.__dict__, "output": str(options.output)},
                                          "summary": summary, "problems": problems, "runs": runs},
                                         indent=2, default=str) + "\n")
    print(report(summary, meta))
    for problem in problems:
        print(f"MISS: {problem}")
    print(f"\nwritten to {options.output}")
    if meta.get("interrupted"):
        return 130
    return 1 if options.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
