"""Migrations: two runs at once (two pods starting together) both succeed and leave one schema version."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory

from libs.platform.database import MIGRATED_SERVICES, REPO_ROOT
from tests.conftest import Infrastructure

RUNS = 3


def _admin_url(database_url: str) -> str:
    return database_url.rsplit("/", 1)[0] + "/postgres"


@pytest.fixture
def fresh_database(infra: Infrastructure) -> Iterator[str]:
    """A new, empty database on the test server (dropped afterwards); its URL."""
    name = f"migrate_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(_admin_url(infra.database_url), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield infra.database_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(_admin_url(infra.database_url), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def _head(service: str) -> str:
    config = Config()
    config.set_main_option("script_location", str(REPO_ROOT / "services" / service / "migrations"))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def test_concurrent_migration_runs_on_a_fresh_database_both_succeed(fresh_database: str) -> None:
    env = {**os.environ, "DATABASE_URL": fresh_database}
    runs = [subprocess.Popen([sys.executable, "-m", "libs.platform.migrate"], cwd=REPO_ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(RUNS)]
    results = [(run.wait(timeout=120), run.communicate()[1]) for run in runs]
    for code, stderr in results:
        assert code == 0, stderr[-2000:]
    with psycopg.connect(fresh_database) as connection:
        for service in MIGRATED_SERVICES:
            versions = connection.execute(f'SELECT version_num FROM "{service}".alembic_version').fetchall()
            assert versions == [(_head(service),)], service


def test_a_second_run_after_the_first_changes_nothing(fresh_database: str) -> None:
    # As the cluster's migration job runs: production, DATABASE_URL alone (no NATS user, no token secret).
    env = {key: value for key, value in os.environ.items() if not key.startswith(("NATS_", "AUTH_"))}
    env |= {"DATABASE_URL": fresh_database, "ENVIRONMENT": "production"}
    for _ in range(2):
        subprocess.run([sys.executable, "-m", "libs.platform.migrate"], cwd=REPO_ROOT, env=env, check=True,
                       capture_output=True, timeout=120)
    with psycopg.connect(fresh_database) as connection:
        for service in MIGRATED_SERVICES:
            versions = connection.execute(f'SELECT version_num FROM "{service}".alembic_version').fetchall()
            assert versions == [(_head(service),)], service
