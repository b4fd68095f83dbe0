"""PostgreSQL access: the async engine and running a service's own Alembic migrations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Table
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from libs.platform.settings import Settings, sqlalchemy_url

REPO_ROOT = Path(__file__).resolve().parents[2]

# Services that own tables in PostgreSQL; each has services/<name>/migrations and its own schema.
MIGRATED_SERVICES = ("lobby", "ledger", "leaderboard", "table")


def create_engine(settings: Settings) -> AsyncEngine:
    """Return an async engine (psycopg 3) for the configured database."""
    return create_async_engine(settings.sqlalchemy_url, pool_size=10, max_overflow=10, pool_pre_ping=True)


def table_of(model: Any) -> Table:
    """Return the Core table of a declarative model class, for statements built once and executed with
    parameter lists (an ORM-enabled `insert(Model)` takes SQLAlchemy's much slower bulk-ORM path)."""
    table = model.__table__
    if not isinstance(table, Table):
        raise TypeError(f"{model!r} is not mapped to a table")
    return table


def session_factory(engine: AsyncEngine) -> async_sessionmaker:  # type: ignore[type-arg]
    """Return a session factory whose sessions keep loaded objects usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False)


def upgrade_service(service: str, database_url: str, revision: str = "head") -> None:
    """Apply the Alembic migrations of `service` (its folder services/<service>/migrations) up to `revision`.

    Safe to run from several processes at once: the service's env.py holds an advisory lock throughout.
    """
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(REPO_ROOT / "services" / service / "migrations"))
    config.set_main_option("sqlalchemy.url", sqlalchemy_url(database_url))
    config.attributes["schema"] = service
    command.upgrade(config, revision)


def upgrade_all(database_url: str) -> None:
    """Apply the migrations of every service that owns tables."""
    for service in MIGRATED_SERVICES:
        if (REPO_ROOT / "services" / service / "migrations" / "env.py").is_file():
            upgrade_service(service, database_url)
