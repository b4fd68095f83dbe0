"""The whole platform on servers of its own, scraped by a real Prometheus (libs/devservers/monitoring) every
second, and the ways the tests talk to it: Prometheus's HTTP API, the public game APIs, the web pages."""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from libs.devservers import free_port
from libs.devservers.monitoring import Monitoring
from libs.devservers.processes import SPLIT_TABLE_ENV, TABLE_FOLLOWUP, ServiceProcess, web_process
from libs.devservers.servers import start_servers
from tests.conftest import TEST_AUTH_SECRET

SCRAPE = "1s"
"""Scrape and rule evaluation interval: the cluster's 15 s would make every fault test wait minutes."""


class PrometheusError(Exception):
    """Prometheus refused a query (`error_type` "bad_data": it does not parse)."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(f"{error_type}: {message}")
        self.error_type = error_type


@dataclass
class ObservedPlatform:
    """Every service as its own process (two table API replicas), NATS, PostgreSQL and Prometheus."""

    processes: dict[str, list[ServiceProcess]]
    monitoring: Monitoring
    nats_url: str

    def url(self, name: str, replica: int = 0) -> str:
        return self.processes[name][replica].url

    def all(self) -> list[ServiceProcess]:
        return [process for replicas in self.processes.values() for process in replicas]

    def query(self, expr: str) -> list[dict[str, Any]]:
        """The instant vector (or scalar) Prometheus answers for `expr` now; raise PrometheusError if refused."""
        answer = httpx.get(f"{self.monitoring.url}/api/v1/query", params={"query": expr}, timeout=10).json()
        if answer["status"] != "success":
            raise PrometheusError(answer.get("errorType", ""), answer.get("error", ""))
        data = answer["data"]
        if data["resultType"] == "scalar":
            return [{"metric": {}, "value": data["result"]}]
        result: list[dict[str, Any]] = data["result"]
        return result

    def metric_names(self) -> set[str]:
        """Every metric name Prometheus has scraped so far."""
        answer = httpx.get(f"{self.monitoring.url}/api/v1/label/__name__/values", timeout=10).json()
        return set(answer["data"])

    def wait_for(self, expr: str, timeout: float, what: str) -> list[dict[str, Any]]:
        """Poll `expr` every second until it returns series; return them, or fail saying `what` after `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.query(expr)
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: `{expr}` returned nothing for {timeout:.0f} s")
            time.sleep(1.0)

    def rescrape(self) -> None:
        """Scrape the processes as they are now (after a stop or a restart: new pods)."""
        self.monitoring.watch(self.all())


@contextmanager
def observed_platform(root: Path) -> Iterator[ObservedPlatform]:
    """Start servers, every service (table API twice), the web front end and the monitoring; stop all after."""
    servers = start_servers(root / "servers", throwaway=True)
    assert servers.nats is not None
    env = {**servers.env(), "AUTH_SECRET": TEST_AUTH_SECRET, "BOT_MOVE_DELAY": "0", "LOG_LEVEL": "warning",
           "RATE_LIMIT_PER_SECOND": "0", "SIGNUPS_PER_HOUR": "0"}
    logs = root / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    replicas = {"lobby": 1, "table": 2, TABLE_FOLLOWUP: 1, "bot": 1, "ledger": 1, "leaderboard": 1}
    processes: dict[str, list[ServiceProcess]] = {}
    monitoring: Monitoring | None = None
    try:
        for name, count in replicas.items():
            processes[name] = [
                ServiceProcess(name, env=env, port=free_port(), log_path=logs / f"{name}-{index}.log",
                               extra_env=dict(SPLIT_TABLE_ENV.get(name, {})),
                               module="table" if name == TABLE_FOLLOWUP else "").start()
                for index in range(count)]
        for process in (process for replicas_ in processes.values() for process in replicas_):
            process.wait_ready(timeout=90)
        # The web front end reaches the first table replica (locally there is no Service to balance between).
        urls = {name: replicas_[0].url for name, replicas_ in processes.items()}
        processes["web"] = [web_process(env, urls, logs=logs, port=free_port()).start()]
        processes["web"][0].wait_ready(timeout=90)
        monitoring = Monitoring(root / "monitoring", servers.nats.monitor_port, scrape_interval=SCRAPE,
                                evaluation_interval=SCRAPE).start()
        platform = ObservedPlatform(processes, monitoring, servers.nats_url)
        platform.rescrape()
        platform.wait_for('count(up == 1) >= 9', timeout=60, what="every process scraped")
        yield platform
    finally:
        if monitoring is not None:
            monitoring.stop()
        for replicas_ in processes.values():
            for process in replicas_:
                process.stop()
        servers.stop()


# ---- the web pages, as a browser uses them (plain HTTP) ------------------------------------------------------

CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')
MOVE_BUTTON = re.compile(r"""hx-vals=(?:'([^']+)'|"([^"]+)")""")
"""A move button's values: the shell's list quotes them with ', a board's buttons (e.g. Speedmosaik's) with "."""


def web_guest(client: httpx.Client, name: str) -> str:
    """Sign up a guest in the web front end (the session cookie stays in `client`); return its CSRF token."""
    token = CSRF.search(client.get("/").text)
    assert token is not None
    answer = client.post("/gast", data={"name": name, "csrf": token.group(1)})
    assert answer.status_code == 303, answer.text
    return token.group(1)


def web_solo_game(client: httpx.Client, csrf: str) -> str:
    """Open a turbo Speedmosaik table against one easy computer from the web's form; return the game id."""
    answer = client.post("/solo", data={"csrf": csrf, "game": "speedmosaik", "s:workshop": "kachelwand",
                                        "opponents": "1", "bot_level": "easy", "p:turbo": "true"})
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"]).rsplit("/", 1)[1]


def web_move(client: httpx.Client, csrf: str, game_id: str, timeout: float = 30.0) -> None:
    """Click the first move the game page offers once it is the guest's turn."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = MOVE_BUTTON.search(client.get(f"/spiel/{game_id}").text)
        if found:
            values: dict[str, Any] = json.loads(html.unescape(found.group(1) or found.group(2)))
            answer = client.post(f"/spiel/{game_id}/zug", data={"move": values["move"], "n": str(values["n"])},
                                 headers={"HX-Request": "true", "X-CSRF-Token": csrf})
            assert answer.status_code == 200, answer.text
            return
        time.sleep(0.2)
    raise AssertionError("never the guest's turn on the game page")


def web_live_events(client: httpx.Client, game_id: str, count: int) -> list[str]:
    """The names of the first `count` server-sent events of the game page's live stream."""
    names: list[str] = []
    with client.stream("GET", f"/spiel/{game_id}/live", timeout=httpx.Timeout(10.0, read=20.0)) as stream:
        for line in stream.iter_lines():
            if line.startswith("event: "):
                names.append(line[7:])
                if len(names) >= count:
                    break
    return names
