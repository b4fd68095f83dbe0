"""The local servers of `make run` and the tests: durable data where it is promised, stable ports on restart."""

from __future__ import annotations

import json
import socket
import subprocess
import urllib.request
from pathlib import Path

import pytest

from libs.devservers import PostgresServer, free_port
from libs.devservers.nats_server import NatsServer, available_cpus, server_environment
from libs.devservers.postgres_server import _bin_dir


def _setting(server: PostgresServer, name: str) -> str:
    psql = str(_bin_dir() / "psql")
    return subprocess.run(
        [psql, "-h", "127.0.0.1", "-p", str(server.port), "-U", "postgres", "-d", server.database, "-tAc",
         f"SHOW {name}"], check=True, capture_output=True, text=True).stdout.strip()


def test_postgres_for_make_run_writes_durably(tmp_path: Path) -> None:
    server = PostgresServer(tmp_path / "postgres", database="durable").start()
    try:
        assert _setting(server, "fsync") == "on"
    finally:
        server.stop()


def test_only_a_throwaway_postgres_skips_syncing(tmp_path: Path) -> None:
    server = PostgresServer(tmp_path / "postgres", database="throwaway", throwaway=True).start()
    try:
        assert _setting(server, "fsync") == "off"
    finally:
        server.stop()


def test_nats_server_leaves_the_services_half_the_cores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOMAXPROCS", raising=False)
    server = NatsServer(tmp_path / "nats").start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.monitor_port}/varz", timeout=10) as answer:
            varz = json.load(answer)
    finally:
        server.stop()
    assert varz["gomaxprocs"] == max(1, available_cpus() // 2)


def test_an_operators_gomaxprocs_wins_over_the_development_default() -> None:
    environment = server_environment({"GOMAXPROCS": "4", "PATH": "/usr/bin"}, cpus=2)
    assert environment == {"GOMAXPROCS": "4", "PATH": "/usr/bin"}
    assert server_environment({}, cpus=1)["GOMAXPROCS"] == "1"
    assert server_environment({}, cpus=8)["GOMAXPROCS"] == "4"


def _port_in_time_wait() -> int:
    """Return a port whose last server-side connection is in TIME_WAIT (the server closed first) and that
    nobody listens on any more."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port: int = listener.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = listener.accept()
        accepted.close()  # the side that closes first keeps the port in TIME_WAIT
        client.recv(1)
        client.close()
    return port


def test_a_port_with_a_connection_in_time_wait_is_still_free_for_a_restart() -> None:
    port = _port_in_time_wait()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as plain:
        try:
            plain.bind(("127.0.0.1", port))
            in_time_wait = False
        except OSError:
            in_time_wait = True
    assert in_time_wait, "the setup should leave the port in TIME_WAIT"
    assert free_port(port) == port


def test_a_port_someone_listens_on_is_not_free() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert free_port(port) != port
