"""`make run`: the whole platform on this machine, data kept under .data/, stopped cleanly with Ctrl-C."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from libs.devservers.monitoring import Monitoring
from libs.devservers.nats_server import NatsCluster, NatsServer
from libs.devservers.processes import REPO_ROOT, ServiceProcess, platform_processes, web_process
from libs.devservers.servers import start_servers


def main() -> None:
    """Start NATS, PostgreSQL, migrations and the five services (the table as two processes: its API, and its
    follow-up and deadlines as `table-followup`), then the web front end; print its URL first, then every
    other; wait for Ctrl-C."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=REPO_ROOT / ".data")
    parser.add_argument("--observe", action="store_true",
                        help="also start Prometheus (Debian's package) scraping every service and NATS, with the "
                             "cluster's alert rules (`make observe`)")
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
    monitoring: Monitoring | None = None
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
        if args.observe:
            monitoring = observe(data, servers.nats, services)
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
        if monitoring is not None:
            print(f"  prometheus     {monitoring.url}   (its pages: {monitoring.url}/classic/targets, "
                  f"{monitoring.url}/classic/alerts, {monitoring.url}/classic/graph)")
        print(f"\n  logs           {data / 'logs'}\n", flush=True)
        while not stopping:
            for service in services:
                if not service.is_running():
                    print(f"service {service.name} stopped unexpectedly; see its log", file=sys.stderr)
                    stopping = True
            time.sleep(0.5)
    finally:
        print("stopping ...", flush=True)
        if monitoring is not None:
            monitoring.stop()
        for service in reversed(services):
            service.stop()
        servers.stop()
        print("stopped.", flush=True)


def observe(data: Path, nats_server: NatsServer | NatsCluster | None,
            services: list[ServiceProcess]) -> Monitoring | None:
    """Start Prometheus on 9090 (or a free port) scraping `services` and the NATS server started here (of a local
    cluster its first node: the adapter reads one monitoring port), with the cluster's ServiceMonitors,
    relabelling and rules; None (and why, on stderr) if it cannot."""
    if nats_server is None:
        print("make observe: NATS_URL names an external server; its metrics are its operator's, so Prometheus "
              "is not started", file=sys.stderr)
        return None
    try:
        node = nats_server.nodes[0] if isinstance(nats_server, NatsCluster) else nats_server
        monitoring = Monitoring(data / "monitoring", node.monitor_port, prometheus_port=9090,
                                exporter_port=7777).start()
    except FileNotFoundError as missing:
        print(f"make observe: {missing}", file=sys.stderr)
        return None
    monitoring.watch(services)
    return monitoring


if __name__ == "__main__":
    main()
