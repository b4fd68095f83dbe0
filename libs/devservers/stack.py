"""`make run`: the whole platform on this machine, data kept under .data/, stopped cleanly with Ctrl-C."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from libs.devservers.processes import REPO_ROOT, ServiceProcess, platform_processes, web_process
from libs.devservers.servers import start_servers


def main() -> None:
    """Start NATS, PostgreSQL, migrations and the five services (the table as two processes: its API, and its
    follow-up and deadlines as `table-followup`), then the web front end; print its URL first, then every
    other; wait for Ctrl-C."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=REPO_ROOT / ".data")
    parser.add_argument("--cluster", type=int, default=int(os.environ.get("CLUSTER") or 1), metavar="NODES",
                        help="NATS as a JetStream cluster of this many nodes on loopback ports, every stream with "
                             "that many replicas (make run CLUSTER=3); 1: a single server")
    args = parser.parse_args()
    data: Path = args.data.resolve()
    (data / "logs").mkdir(parents=True, exist_ok=True)

    # Each service connects as its own NATS user; the passwords stay in .data/nats/credentials.json.
    servers = start_servers(data, throwaway=False, nats_port=4222, postgres_port=5432, use_environment=True,
                            nats_nodes=args.cluster)
    nats_server, nats_url, database_url = servers.nats, servers.nats_url, servers.database_url
    services: list[ServiceProcess] = []
    stopping = False

    def request_stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    try:
        env = {**servers.env(), "BOT_MOVE_DELAY": os.environ.get("BOT_MOVE_DELAY", "0.8")}
        for process in platform_processes(env, logs=data / "logs"):
            services.append(process.start())
        for service in services:
            service.wait_ready()
        # The web front end last: it builds its pages from the others' HTTP APIs.
        web = web_process(env, {service.name: service.url for service in services}, logs=data / "logs").start()
        services.append(web)
        web.wait_ready()
        print(f"\nIm Browser spielen: {web.url}", flush=True)
        print("\nSpeed platform is running (Ctrl-C stops everything; data stays in "
              f"{data}):\n", flush=True)
        if nats_server is not None:
            print(f"  NATS           {nats_server.address}   (users and passwords: {nats_server.credentials_file})")
            if servers.stream_replicas > 1:
                print(f"                 a JetStream cluster of {servers.stream_replicas} nodes, every stream "
                      f"with {servers.stream_replicas} replicas")
        else:
            print(f"  NATS           {nats_url.split('@')[-1]}")
        print(f"  PostgreSQL     {database_url}")
        for service in services:
            if service is web:
                continue
            if service.module:  # the table's follow-up: no API of its own
                print(f"  {service.name:<14} {service.url}   (metrics {service.url}/metrics)")
            else:
                print(f"  {service.name:<14} {service.url}   (API docs {service.url}/docs, metrics "
                      f"{service.url}/metrics)")
        print(f"  {web.name:<14} {web.url}   (the pages; metrics {web.url}/metrics)")
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
        servers.stop()
        print("stopped.", flush=True)


if __name__ == "__main__":
    main()
