"""A service refuses to start in production with the development's unsafe defaults."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from libs.platform.settings import DEV_AUTH_SECRET, Settings

SECRET = "production-secret-0123456789abcdef0123456789"


@pytest.fixture(autouse=True)
def _no_login_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NATS_USER", "NATS_PASSWORD", "CLOCK_LAG_SECONDS", "TABLE_ROLES"):
        monkeypatch.delenv(name, raising=False)


def test_production_refuses_to_start_without_its_own_nats_user() -> None:
    with pytest.raises(ValidationError, match="NATS_USER and NATS_PASSWORD must be set in production"):
        Settings(environment="production", auth_secret=SECRET)
    with pytest.raises(ValidationError, match="NATS_USER and NATS_PASSWORD"):
        Settings(environment="production", auth_secret=SECRET, nats_user="table")

    settings = Settings(environment="production", auth_secret=SECRET, nats_user="table", nats_password="geheim")
    assert settings.nats_login("table") == ("table", "geheim")


def test_production_refuses_the_development_secret_and_a_lagging_clock() -> None:
    login = {"nats_user": "table", "nats_password": "geheim"}
    with pytest.raises(ValidationError, match="AUTH_SECRET must be set in production"):
        Settings(environment="production", auth_secret=DEV_AUTH_SECRET, **login)
    with pytest.raises(ValidationError, match="CLOCK_LAG_SECONDS is for tests only"):
        Settings(environment="production", auth_secret=SECRET, clock_lag_seconds=30, **login)


def test_a_table_runs_every_role_unless_told_otherwise_and_refuses_a_role_it_does_not_know() -> None:
    assert Settings().table_role_set == {"api", "followup", "timers", "archive"}
    assert Settings(table_roles=" followup , timers ").table_role_set == {"followup", "timers"}
    with pytest.raises(ValidationError, match="TABLE_ROLES must name some of api, followup, timers, archive"):
        Settings(table_roles="api,follow-up")  # a typo would start a table that never follows up
    with pytest.raises(ValidationError, match="TABLE_ROLES"):
        Settings(table_roles=" , ")
