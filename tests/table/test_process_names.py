"""The table's two processes tell an operator apart: the API (`table`, TABLE_ROLES=api) and its follow-up and
deadlines (`table-followup`, TABLE_ROLES=followup,timers,archive) each connect to NATS and log under their own
name, as the Kubernetes Deployments are named.

What the operator looks at: the NATS server's monitoring endpoint `/connz` (the connections by name) and the
processes' JSON log lines (`service`). Both processes run against a nats-server of this module (its monitoring
port known), with the session's PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from libs.devservers import free_port
from libs.devservers.nats_server import NatsServer
from libs.devservers.processes import SPLIT_TABLE_ENV, TABLE_FOLLOWUP, ServiceProcess
from tests.conftest import Infrastructure


@pytest.fixture(scope="module")
def own_nats(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    """A nats-server whose monitoring port this module knows."""
    server = NatsServer(tmp_path_factory.mktemp("names-nats")).start()
    try:
        server.wait_healthy()
        yield server
    finally:
        server.stop()


def table_process(infra: Infrastructure, nats: NatsServer, logs: Path, name: str) -> ServiceProcess:
    env = {**infra.env(), "NATS_URL": nats.address, "NATS_CREDENTIALS": str(nats.credentials_file),
           "LOG_LEVEL": "info"}
    return ServiceProcess(name, env=env, port=free_port(), log_path=logs / f"{name}.log",
                          extra_env=dict(SPLIT_TABLE_ENV[name]), module="table")


def services_named(log: Path) -> set[str]:
    """The `service` of every JSON line in a process's log."""
    names = set()
    for line in log.read_text().splitlines():
        if line.startswith("{"):
            names.add(json.loads(line).get("service"))
    return names


def test_table_and_followup_connect_and_log_under_their_own_names(infra: Infrastructure, own_nats: NatsServer,
                                                                   tmp_path: Path) -> None:
    processes = [table_process(infra, own_nats, tmp_path, name).start() for name in ("table", TABLE_FOLLOWUP)]
    try:
        for process in processes:
            process.wait_ready(timeout=60)
        connz = httpx.get(f"http://127.0.0.1:{own_nats.monitor_port}/connz", params={"auth": "true"},
                          timeout=5.0).json()
        by_name: dict[str, list[str]] = {}
        for connection in connz["connections"]:
            by_name.setdefault(connection.get("name", ""), []).append(connection.get("authorized_user", ""))
        # One connection each under its own name (both as the NATS user `table`), and the archive's own.
        assert by_name.get("table") == ["table"], by_name
        assert by_name.get(TABLE_FOLLOWUP) == ["table"], by_name
        assert by_name.get("table-archive") == ["archive"], by_name
    finally:
        for process in processes:
            process.stop()
    assert services_named(tmp_path / "table.log") == {"table"}
    assert services_named(tmp_path / f"{TABLE_FOLLOWUP}.log") == {TABLE_FOLLOWUP}
