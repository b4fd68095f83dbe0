"""Alembic environment of the leaderboard: its own schema and version table."""

from libs.platform.alembic_env import run_migrations
from services.leaderboard.models import SCHEMA, metadata

run_migrations(metadata, SCHEMA)
