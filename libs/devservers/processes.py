"""Starting the platform's services as separate processes and waiting until they are ready."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from libs.devservers.ports import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]

# Default HTTP ports for `make run`; a taken port is replaced by a free one.
DEFAULT_PORTS = {"lobby": 8101, "table": 8102, "bot": 8103, "ledger": 8104, "leaderboard": 8105}
SERVICES = tuple(DEFAULT_PORTS)

TABLE_FOLLOWUP = "table-followup"
"""The table's background roles in a process of their own, beside the table's API (docs/architecture.md,
"Table roles"): the follow-up then never waits behind the commands for the CPU; the archive (docs/archive.md)
runs there too."""
TABLE_FOLLOWUP_PORT = 8106
WEB = "web"
"""The web front end (services/web): no NATS, no database; it reaches the others by their HTTP URLs."""
WEB_PORT = 8100
SPLIT_TABLE_ENV = {"table": {"TABLE_ROLES": "api"},
                   TABLE_FOLLOWUP: {"TABLE_ROLES": "followup,timers,archive", "OTEL_SERVICE_NAME": TABLE_FOLLOWUP}}
"""TABLE_ROLES of the two table processes `make run` and the bench start (and the follow-up's name on its spans,
where they are exported, as in the Kubernetes manifests)."""


@dataclass
class ServiceProcess:
    """One `python -m services.<module>` process (`module` defaults to `name`) on its own port."""

    name: str
    env: dict[str, str]
    port: int = 0
    log_path: Path | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    module: str = ""
    _process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServiceProcess:
        """Start the process (not waiting for readiness)."""
        if not self.port:
            self.port = free_port({**DEFAULT_PORTS, TABLE_FOLLOWUP: TABLE_FOLLOWUP_PORT, WEB: WEB_PORT}.get(self.name))
        env = {**os.environ, **self.env, **self.extra_env, "PORT": str(self.port)}
        output = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self._process = subprocess.Popen(
            [sys.executable, "-m", f"services.{self.module or self.name}"], cwd=REPO_ROOT, env=env,
            stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
        )
        return self

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Block until /readyz answers 200, or raise (with the process's fate) after `timeout`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise RuntimeError(f"service {self.name} exited with {self._process.returncode}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise TimeoutError(f"service {self.name} not ready after {timeout} s")

    @property
    def pid(self) -> int | None:
        """The process id while started, else None."""
        return None if self._process is None else self._process.pid

    def is_running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self, kill: bool = False) -> int | None:
        """Stop the process: SIGTERM for a graceful stop, SIGKILL when `kill` (a crash); return its exit code
        (None if it was not started; negative if a signal ended it, -9 when it had to be killed)."""
        if self._process is None:
            return None
        code = stop_process(self._process, timeout=15, kill=kill)
        self._process = None
        return code


def platform_processes(env: dict[str, str], logs: Path | None = None,
                       ports: dict[str, int] | None = None) -> list[ServiceProcess]:
    """The processes of the whole platform, not started: the five services, the table as its API, and the
    table's follow-up and deadlines as the process `table-followup` (log files `<name>.log` in `logs`)."""
    names = [*SERVICES, TABLE_FOLLOWUP]
    return [ServiceProcess(name, env=env, port=(ports or {}).get(name, 0),
                           log_path=logs / f"{name}.log" if logs is not None else None,
                           extra_env=dict(SPLIT_TABLE_ENV.get(name, {})),
                           module="table" if name == TABLE_FOLLOWUP else "")
            for name in names]


def web_process(env: dict[str, str], urls: dict[str, str], logs: Path | None = None,
                port: int = 0) -> ServiceProcess:
    """The web front end, not started, pointed at the running services' URLs (`urls`: lobby, table,
    leaderboard, bot)."""
    web_env = {f"{name.upper()}_URL": urls[name] for name in ("lobby", "table", "leaderboard", "bot") if name in urls}
    return ServiceProcess(WEB, env=env, port=port, log_path=logs / f"{WEB}.log" if logs is not None else None,
                          extra_env=web_env)


def stop_process(process: subprocess.Popen[bytes], timeout: float, kill: bool = False) -> int:
    """Stop a child and wait for it: SIGTERM (SIGKILL when `kill`), SIGKILL if it still runs after `timeout` s.

    Returns its exit code.
    """
    if kill:
        process.kill()
    else:
        process.terminate()
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()
