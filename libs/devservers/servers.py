"""NATS and PostgreSQL ready for the platform: started here (or external ones named in the environment),
migrated, with the platform's streams. One way for `make run`, the tests, the chaos test, the demo and the bench."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from libs.devservers.nats_server import NatsCluster, NatsServer, create_platform_streams
from libs.devservers.postgres_server import PostgresServer
from libs.platform.database import upgrade_all
from libs.platform.signing import ensure_key_file

SIGNING_KEYS = "keys/table-signing.json"
"""Where, under the data folder, the table's signing keys are generated once and kept (mode 0600)."""


@dataclass
class Servers:
    """Where the platform's servers are, and the ones started here (None: an external server is used)."""

    nats_url: str
    nats_credentials: str
    database_url: str
    signing_keys_file: str = ""
    """The table's signing keys (`TABLE_SIGNING_KEYS_FILE`): generated once under the data folder."""
    stream_replicas: int = 1
    """Copies of every JetStream stream (`STREAM_REPLICAS`): the cluster's node count, 1 on a single server."""
    nats: NatsServer | NatsCluster | None = None
    postgres: PostgresServer | None = None

    def env(self) -> dict[str, str]:
        """The environment a service process needs to reach these servers (each as its own NATS user; NATS_URL
        names every node of a cluster)."""
        return {"NATS_URL": self.nats_url, "NATS_CREDENTIALS": self.nats_credentials,
                "DATABASE_URL": self.database_url, "TABLE_SIGNING_KEYS_FILE": self.signing_keys_file,
                "STREAM_REPLICAS": str(self.stream_replicas)}

    def stop(self) -> None:
        """Stop the servers started here (external ones keep running)."""
        if self.postgres is not None:
            self.postgres.stop()
        if self.nats is not None:
            self.nats.stop()


def start_servers(root: Path, *, throwaway: bool, nats_port: int | None = None, postgres_port: int | None = None,
                  use_environment: bool = False, nats_nodes: int = 1) -> Servers:
    """Start NATS and PostgreSQL with their data under `root` (on the preferred ports if free), apply every
    service's migrations and create the platform's streams (on a NATS server started here).

    `nats_nodes` above 1: NATS is a JetStream cluster of that many nodes on loopback ports (`NatsCluster`, data
    under `root`/nats-cluster) and every stream has that many replicas, as in production.

    `throwaway`: PostgreSQL without fsync (tests, demo, bench); `make run` keeps its data durably. With
    `use_environment`, NATS_URL / DATABASE_URL (and NATS_CREDENTIALS) name external servers to use instead.
    The table's signing keys are generated once into `root`/keys/table-signing.json and kept (or, with
    `use_environment`, TABLE_SIGNING_KEYS_FILE names them).
    """
    if nats_nodes < 1:
        raise ValueError("NATS needs at least one node")
    servers = Servers(nats_url=os.environ.get("NATS_URL", "") if use_environment else "",
                      nats_credentials=os.environ.get("NATS_CREDENTIALS", "") if use_environment else "",
                      database_url=os.environ.get("DATABASE_URL", "") if use_environment else "",
                      signing_keys_file=os.environ.get("TABLE_SIGNING_KEYS_FILE", "") if use_environment else "")
    if not servers.signing_keys_file:
        servers.signing_keys_file = str(ensure_key_file(root / SIGNING_KEYS))
    try:
        if not servers.nats_url:
            if nats_nodes > 1:
                # The same users and passwords as a single server's (`make run` with and without CLUSTER).
                servers.nats = NatsCluster(root / "nats-cluster", nodes=nats_nodes, port=nats_port,
                                           credentials=root / "nats" / "credentials.json").start()
                servers.stream_replicas = nats_nodes
            else:
                servers.nats = NatsServer(root / "nats", port=nats_port).start()
            servers.nats_url, servers.nats_credentials = servers.nats.url, str(servers.nats.credentials_file)
        elif use_environment:
            servers.stream_replicas = int(os.environ.get("STREAM_REPLICAS", "1"))
        if not servers.database_url:
            servers.postgres = PostgresServer(root / "postgres", port=postgres_port, throwaway=throwaway).start()
            servers.database_url = servers.postgres.url
        upgrade_all(servers.database_url)
        if servers.nats is not None:  # an external server's streams are its operator's (or its services') work
            create_platform_streams(servers.nats_url, servers.stream_replicas)
    except BaseException:
        servers.stop()
        raise
    return servers
