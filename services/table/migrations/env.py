"""Alembic environment of the table: its own schema (the archive) and version table."""

from libs.platform.alembic_env import run_migrations
from services.table.archive_models import SCHEMA, metadata

run_migrations(metadata, SCHEMA)
