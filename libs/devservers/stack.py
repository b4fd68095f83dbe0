"""`make run`: the whole platform on this machine, data kept under .data/, stopped cleanly with Ctrl-C."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from libs.devservers.nats_server import NatsServer, create_platform_streams
from libs.devservers.postgres_server import PostgresServer
from libs.devservers.processes import REPO_ROOT, ServiceProcess, platform_processes
from libs.platform.database import upgrade_all


def main() -> None:
    """Start NATS, PostgreSQL, migrations and the five services (the table as two processes: its API, and its
    follow-up and deadlines as `table-followup`); print every URL; wait for Ctrl-C."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=REPO_ROOT / ".data")
    args = parser.parse_args()
    data: Path = args.data.resolve()
    (data / "logs").mkdir(parents=True, exist_ok=True)

    nats_server: NatsServer | None = None
    postgres: PostgresServer | None = None
    nats_url = os.environ.get("NATS_URL")
    nats_credentials = os.environ.get("NATS_CREDENTIALS", "")
    database_url = os.environ.get("DATABASE_URL")
    if not nats_url:
        # Each service connects as its own NATS user; the passwords stay in .data/nats/credentials.json.
        nats_server = NatsServer(data / "nats", port=4222).start()
        nats_url, nats_credentials = nats_server.url, str(nats_server.credentials_file)
        create_platform_streams(nats_url)
    if not database_url:
        postgres = PostgresServer(data / "postgres", port=5432).start()
        database_url = postgres.url
    services: list[ServiceProcess] = []
    stopping = False

    def request_stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    try:
        upgrade_all(database_url)
        env = {"NATS_URL": nats_url, "NATS_CREDENTIALS": nats_credentials, "DATABASE_URL": database_url,
               "BOT_MOVE_DELAY": os.environ.get("BOT_MOVE_DELAY", "0.8")}
        for process in platform_processes(env, logs=data / "logs"):
            services.append(process.start())
        for service in services:
            service.wait_ready()
        print("\nSpeed platform is running (Ctrl-C stops everything; data stays in "
              f"{data}):\n", flush=True)
        if nats_server is not None:
            print(f"  NATS           {nats_server.address}   (users and passwords: {nats_server.credentials_file})")
        else:
            print(f"  NATS           {nats_url.split('@')[-1]}")
        print(f"  PostgreSQL     {database_url}")
        for service in services:
            if service.module:  # the table's follow-up: no API of its own
                print(f"  {service.name:<14} {service.url}   (metrics {service.url}/metrics)")
            else:
                print(f"  {service.name:<14} {service.url}   (API docs {service.url}/docs, metrics "
                      f"{service.url}/metrics)")
        print(f"\n  logs           {data / 'logs'}\n", flush=True)
        while not stopping:
            for service in services:
                if not service.is_running():
                    print(f"service {service.name} stopped unexpectedly; see its log", file=sys.stderr)
                    stopping = True
            time.sleep(0.5)
    finally:
        print("stopping ...", flush=True)
        for service in reversed(services):
            service.stop()
        if postgres is not None:
            postgres.stop()
        if nats_server is not None:
            nats_server.stop()
        print("stopped.", flush=True)


if __name__ == "__main__":
    main()
