"""Alembic environment of the lobby: its own schema and version table."""

from libs.platform.alembic_env import run_migrations
from services.lobby.models import SCHEMA, metadata

run_migrations(metadata, SCHEMA)
