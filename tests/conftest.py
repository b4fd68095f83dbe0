"""Test fixtures: real, throwaway NATS JetStream and PostgreSQL servers (or NATS_URL / DATABASE_URL)."""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from nats.aio.client import Client as NatsClient

from libs.devservers import free_port
from libs.devservers.nats_server import NatsCluster, create_platform_streams
from libs.devservers.processes import SERVICES, ServiceProcess
from libs.devservers.servers import Servers, start_servers
from libs.platform import nats_client
from libs.platform.settings import Settings, get_settings

warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")

TEST_AUTH_SECRET = "test-secret-0123456789abcdef0123456789abcdef"


@dataclass(frozen=True)
class Infrastructure:
    """The real servers this test session talks to."""

    nats_url: str
    """With the admin's credentials: tests that act as the operator or as "another service" connect with it."""
    database_url: str
    nats_credentials: str = ""
    """The throwaway server's user -> password file: each service (in-process or a process) connects as its
    own NATS user, with only its permissions (libs/platform/nats_permissions)."""
    signing_keys_file: str = ""
    """The table's Ed25519 signing keys, generated once per session (libs/platform/signing)."""
    stream_replicas: int = 1
    """Copies of every JetStream stream: 3 on the `nats_cluster` fixture's cluster."""

    def settings(self, **overrides: Any) -> Settings:
        """Settings pointing at these servers."""
        return Settings(nats_url=self.nats_url, database_url=self.database_url,
                        nats_credentials=self.nats_credentials, auth_secret=TEST_AUTH_SECRET,
                        **{"table_signing_keys_file": self.signing_keys_file,
                           "stream_replicas": self.stream_replicas, **overrides})

    def env(self) -> dict[str, str]:
        """Environment variables for a service process pointing at these servers."""
        return {"NATS_URL": self.nats_url, "DATABASE_URL": self.database_url,
                "STREAM_REPLICAS": str(self.stream_replicas), "NATS_CREDENTIALS": self.nats_credentials,
                "TABLE_SIGNING_KEYS_FILE": self.signing_keys_file,
                "AUTH_SECRET": TEST_AUTH_SECRET, "BOT_MOVE_DELAY": "0", "LOG_LEVEL": "warning",
                # Tests sign up hundreds of players and fire requests as fast as they can, all from one
                # address: no general or sign-up limit (tests of the limits set their own, tests/*/test_*limits*).
                "RATE_LIMIT_PER_SECOND": "0", "SIGNUPS_PER_HOUR": "0"}


@contextmanager
def new_database(infra: Infrastructure, prefix: str) -> Iterator[str]:
    """A new, empty database on the test server, named `prefix` and a random suffix; its URL (dropped afterwards,
    connections and all)."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin_url = infra.database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield infra.database_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def infra(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Infrastructure]:
    """Start throwaway NATS and PostgreSQL on free ports (unless NATS_URL / DATABASE_URL are set)."""
    servers = start_servers(tmp_path_factory.mktemp("servers"), throwaway=True, use_environment=True)
    if servers.nats is None:
        create_platform_streams(servers.nats_url)  # an external server: the tests' streams before any service
    infrastructure = Infrastructure(nats_url=servers.nats_url, database_url=servers.database_url,
                                    nats_credentials=servers.nats_credentials,
                                    signing_keys_file=servers.signing_keys_file)
    for key, value in infrastructure.env().items():
        os.environ[key] = value
    get_settings.cache_clear()
    try:
        yield infrastructure
    finally:
        servers.stop()


@dataclass(frozen=True)
class ClusterInfrastructure:
    """A JetStream cluster of three nodes (every stream with three replicas, as in production) and a PostgreSQL
    of its own: `infra` points services at them, `nats` kills and restarts nodes."""

    infra: Infrastructure
    nats: NatsCluster
    servers: Servers


CLUSTER_NODES = 3


@pytest.fixture(scope="module")
def nats_cluster(infra: Infrastructure, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterInfrastructure]:
    """Start a three-node NATS JetStream cluster on free loopback ports (`make run CLUSTER=3` does the same) and a
    throwaway PostgreSQL, migrated, with the platform's streams at three replicas; stop them after the module.

    Asks for `infra` only so the session's environment (AUTH_SECRET, signing keys) is set first; the cluster's own
    signing keys are the session's.
    """
    servers = start_servers(tmp_path_factory.mktemp("cluster"), throwaway=True, nats_nodes=CLUSTER_NODES)
    assert isinstance(servers.nats, NatsCluster)
    try:
        yield ClusterInfrastructure(
            infra=Infrastructure(nats_url=servers.nats_url, database_url=servers.database_url,
                                 nats_credentials=servers.nats_credentials, signing_keys_file=infra.signing_keys_file,
                                 stream_replicas=servers.stream_replicas),
            nats=servers.nats, servers=servers)
    finally:
        servers.stop()


@pytest.fixture(scope="session")
def settings(infra: Infrastructure) -> Settings:
    """Settings for in-process services under test."""
    return infra.settings()


@pytest.fixture(scope="session")
async def nc(infra: Infrastructure) -> AsyncIterator[NatsClient]:
    """A plain NATS connection (as admin) for tests that talk to services as another service would."""
    client = await nats_client.connect(infra.nats_url)
    yield client
    await client.drain()


@asynccontextmanager
async def running_app(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """Run `app`'s lifespan (its NATS workers included) and give an HTTP client talking to it in-process."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client


@dataclass
class Platform:
    """All five services running as separate processes, as `make run` starts them."""

    processes: dict[str, ServiceProcess]

    def url(self, service: str) -> str:
        return self.processes[service].url


@contextmanager
def running_platform(infra: Infrastructure, logs: Path,
                     extra_env: dict[str, dict[str, str]] | None = None) -> Iterator[Platform]:
    """Start the five services as processes against the test servers (`extra_env` per service); stop them after."""
    extra_env = extra_env or {}
    processes = {name: ServiceProcess(name, env=infra.env(), port=free_port(), log_path=logs / f"{name}.log",
                                      extra_env=extra_env.get(name, {})).start()
                 for name in SERVICES}
    try:
        for process in processes.values():
            process.wait_ready(timeout=60)
        yield Platform(processes)
    finally:
        for process in processes.values():
            process.stop()


@pytest.fixture(scope="module")
def platform_processes(infra: Infrastructure, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Platform]:
    """Start the five services as processes against the test servers; stop them after the module.

    Module scope: while they run they answer the table's NATS commands too, so they must not outlive
    the end-to-end tests into modules that run their own in-process services.
    """
    with running_platform(infra, tmp_path_factory.mktemp("service-logs")) as platform:
        yield platform


def pytest_report_header() -> list[str]:
    return [f"servers: NATS {'external' if os.environ.get('NATS_URL') else 'throwaway'}, "
            f"PostgreSQL {'external' if os.environ.get('DATABASE_URL') else 'throwaway'}"]

