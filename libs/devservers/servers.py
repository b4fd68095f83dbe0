"""NATS and PostgreSQL ready for the platform: started here (or external ones named in the environment),
migrated, with the platform's streams. One way for `make run`, the tests, the chaos test, the demo and the bench."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from libs.devservers.nats_server import NatsServer, create_platform_streams
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
    nats: NatsServer | None = None
    postgres: PostgresServer | None = None

    def env(self) -> dict[str, str]:
        """The environment a service process needs to reach these servers (each as its own NATS user)."""
        return {"NATS_URL": self.nats_url, "NATS_CREDENTIALS": self.nats_credentials,
                "DATABASE_URL": self.database_url, "TABLE_SIGNING_KEYS_FILE": self.signing_keys_file}

    def stop(self) -> None:
        """Stop the servers started here (external ones keep running)."""
        if self.postgres is not None:
            self.postgres.stop()
        if self.nats is not None:
            self.nats.stop()


def start_servers(root: Path, *, throwaway: bool, nats_port: int | None = None, postgres_port: int | None = None,
                  use_environment: bool = False) -> Servers:
    """Start NATS and PostgreSQL with their data under `root` (on the preferred ports if free), apply every
    service's migrations and create the platform's streams (on a NATS server started here).

    `throwaway`: PostgreSQL without fsync (tests, demo, bench); `make run` keeps its data durably. With
    `use_environment`, NATS_URL / DATABASE_URL (and NATS_CREDENTIALS) name external servers to use instead.
    The table's signing keys are generated once into `root`/keys/table-signing.json and kept (or, with
    `use_environment`, TABLE_SIGNING_KEYS_FILE names them).
    """
    servers = Servers(nats_url=os.environ.get("NATS_URL", "") if use_environment else "",
                      nats_credentials=os.environ.get("NATS_CREDENTIALS", "") if use_environment else "",
                      database_url=os.environ.get("DATABASE_URL", "") if use_environment else "",
                      signing_keys_file=os.environ.get("TABLE_SIGNING_KEYS_FILE", "") if use_environment else "")
    if not servers.signing_keys_file:
        servers.signing_keys_file = str(ensure_key_file(root / SIGNING_KEYS))
    try:
        if not servers.nats_url:
            servers.nats = NatsServer(root / "nats", port=nats_port).start()
            servers.nats_url, servers.nats_credentials = servers.nats.url, str(servers.nats.credentials_file)
        if not servers.database_url:
            servers.postgres = PostgresServer(root / "postgres", port=postgres_port, throwaway=throwaway).start()
            servers.database_url = servers.postgres.url
        upgrade_all(servers.database_url)
        if servers.nats is not None:  # an external server's streams are its operator's (or its services') work
            create_platform_streams(servers.nats_url)
    except BaseException:
        servers.stop()
        raise
    return servers
