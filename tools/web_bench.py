"""`make bench`, web part: how fast the web front end builds its pages (issue 25 "Speed"); never asserted in tests.

Run: `python -m tools.web_bench` (`--pages 200`). Starts everything here, throwaway (NATS, PostgreSQL, the five
services as processes as `make run` does, the web front end), then:

- page build: a guest's solo Speedmosaik Kachelwand game against three computers; `GET /spiel/{id}` repeated
  (`--pages` times, one keep-alive connection). The server time is the web's own request histogram
  (`speed_http_request_seconds`, route `/spiel/{game_id}`), its p95 estimated from the buckets; beside it the
  client's wall time (p50/p95, with the network).
- live update: the time the web spends turning one live view into its HTML fragments
  (`speed_web_live_update_seconds`, mean over a game's stream), and, in this process, the same rendering
  from a view (p95 over `--pages` renders) without any I/O.
- largest page: the game page of a four-player Speedspore game (a solo table against three computers), bytes
  uncompressed.

Targets (issue 25): page build p95 <= 30 ms server time, a live update <= 10 ms, the largest page <= 150 KB.
Prints a table and writes `.bench/web.json`; exits 1 when a target is missed (`--no-check`: always 0).
"""

from __future__ import annotations

import argparse
import contextlib
import html
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from libs.devservers.processes import REPO_ROOT, ServiceProcess, platform_processes, web_process
from libs.devservers.servers import start_servers

TARGETS = {"page_p95_ms": 30.0, "live_update_ms": 10.0, "largest_page_kb": 150.0}
CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')


def _guest_with_game(web: str, name: str, game: str, form: dict[str, str]) -> tuple[httpx.Client, str, str]:
    client = httpx.Client(base_url=web, timeout=30)
    found = CSRF.search(client.get("/").text)
    assert found, "no CSRF token on the start page"
    csrf = found.group(1)
    assert client.post("/gast", data={"name": name, "csrf": csrf}).status_code == 303
    answer = client.post("/solo", data={"csrf": csrf, "game": game, "opponents": "3", "bot_level": "easy", **form})
    assert answer.status_code == 303, answer.text[:500]
    return client, str(answer.headers["location"]).rsplit("/", 1)[1], csrf


def _histogram(metrics: str, name: str, route: str | None = None) -> tuple[list[tuple[float, float]], float, float]:
    """(le, cumulative count) buckets, sum and count of one histogram series from /metrics text."""
    selector = f'route="{route}"' if route else ""
    buckets, total, count = [], 0.0, 0.0
    for line in metrics.splitlines():
        if not line.startswith(name) or (selector and selector not in line):
            continue
        value = float(line.rsplit(" ", 1)[1])
        if line.startswith(f"{name}_bucket"):
            le = re.search(r'le="([^"]+)"', line)
            if le:
                buckets.append((float(le.group(1)), value))
        elif line.startswith(f"{name}_sum"):
            total += value
        elif line.startswith(f"{name}_count"):
            count += value
    return sorted(buckets), total, count


def _quantile(buckets: list[tuple[float, float]], q: float) -> float:
    """Prometheus' histogram_quantile: linear within the bucket holding the q-th observation."""
    if not buckets or buckets[-1][1] == 0:
        return float("nan")
    rank, previous_le, previous_count = q * buckets[-1][1], 0.0, 0.0
    for le, count in buckets:
        if count >= rank:
            if le == float("inf"):
                return previous_le
            return previous_le + (le - previous_le) * ((rank - previous_count) / max(count - previous_count, 1e-9))
        previous_le, previous_count = le, count
    return buckets[-1][0]


def _render_in_process(view: dict[str, Any], renders: int) -> float:
    """p95 of rendering a live update's fragments from a view, in ms (no I/O)."""
    from services.web.pages import TEMPLATES, game_context

    template = TEMPLATES.get_template("_game.html")
    times = []
    for _ in range(renders):
        started = time.perf_counter()
        context = game_context(view)
        template.render({"game_id": view.get("game_id"), "csrf": "x" * 64, **context})
        str(context["board"])
        times.append((time.perf_counter() - started) * 1000)
    return statistics.quantiles(times, n=20)[18]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--no-check", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="speed-web-bench-"))
    servers = start_servers(root, throwaway=True)
    processes: list[ServiceProcess] = []
    try:
        env = {**servers.env(), "BOT_MOVE_DELAY": "0", "LOG_LEVEL": "warning", "RATE_LIMIT_PER_SECOND": "0",
               "SIGNUPS_PER_HOUR": "0"}
        processes = [process.start() for process in platform_processes(env, logs=root)]
        for process in processes:
            process.wait_ready(timeout=90)
        web = web_process(env, {process.name: process.url for process in processes}, logs=root).start()
        processes.append(web)
        web.wait_ready(timeout=60)

        client, game_id, csrf = _guest_with_game(web.url, "Messung", "speedmosaik", {"s:workshop": "kachelwand"})
        client.get(f"/spiel/{game_id}").raise_for_status()
        wall = []
        for _ in range(args.pages):
            started = time.perf_counter()
            client.get(f"/spiel/{game_id}").raise_for_status()
            wall.append((time.perf_counter() - started) * 1000)
        metrics = httpx.get(f"{web.url}/metrics", timeout=10).text
        buckets, _, _ = _histogram(metrics, "speed_http_request_seconds", "/spiel/{game_id}")
        page_p95 = _quantile(buckets, 0.95) * 1000

        # A live stream of a game against computers: the web's own time per update.
        token = client.cookies.get("speed_session")
        table = next(p.url for p in processes if p.name == "table")
        view = httpx.get(f"{table}/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"},
                         timeout=10).json()
        page = client.get(f"/spiel/{game_id}").text
        # the first move button: a board button (Speedmosaik's moves are all on its board) or a listed one
        move = re.search(r"""hx-vals=(?:'([^']+)'|"([^"]+)")""", page)
        assert move, "no move on the game page"
        values = json.loads(html.unescape(move.group(1) or move.group(2)))
        updates = 0
        with (contextlib.suppress(httpx.ReadTimeout),
              client.stream("GET", f"/spiel/{game_id}/live", timeout=httpx.Timeout(10, read=5)) as stream):
            for line in stream.iter_lines():
                if line == "event: update":
                    updates += 1
                    if updates == 1:  # our move; the three computers answer it, each an update
                        client.post(f"/spiel/{game_id}/zug", data={"move": values["move"], "n": str(values["n"])},
                                    headers={"HX-Request": "true", "X-CSRF-Token": csrf})
                    if updates >= 5:
                        break
        live = _histogram(httpx.get(f"{web.url}/metrics", timeout=10).text, "speed_web_live_update_seconds")
        live_mean = (live[1] / live[2] * 1000) if live[2] else float("nan")
        live_render_p95 = _render_in_process(view, args.pages)

        spore_client, spore_game, _ = _guest_with_game(web.url, "Messung4", "speedspore", {})
        largest = len(spore_client.get(f"/spiel/{spore_game}").content) / 1024
        mosaik_size = len(client.get(f"/spiel/{game_id}").content) / 1024

        figures = {
            "page_p95_ms": round(page_p95, 2), "page_wall_p50_ms": round(statistics.median(wall), 2),
            "page_wall_p95_ms": round(statistics.quantiles(wall, n=20)[18], 2),
            "live_update_ms": round(live_mean, 2), "live_render_p95_ms_in_process": round(live_render_p95, 2),
            "largest_page_kb": round(largest, 1), "mosaik_4_players_page_kb": round(mosaik_size, 1),
        }
    finally:
        for process in reversed(processes):
            process.stop()
        servers.stop()
    print("web front end (issue 25 targets: page p95 <= 30 ms server time, live update <= 10 ms, page <= 150 KB)")
    for key, value in figures.items():
        target = TARGETS.get(key)
        mark = "" if target is None else ("  ok" if value <= target else f"  MISSED (target {target})")
        print(f"  {key:<32} {value}{mark}")
    out = REPO_ROOT / ".bench"
    out.mkdir(exist_ok=True)
    (out / "web.json").write_text(json.dumps(figures, indent=2) + "\n")
    missed = [key for key, target in TARGETS.items() if not figures[key] <= target]
    return 0 if args.no_check or not missed else 1


if __name__ == "__main__":
    sys.exit(main())
