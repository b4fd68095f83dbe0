"""Alembic environment of the ledger: its own schema and version table."""

from libs.platform.alembic_env import run_migrations
from services.ledger.models import SCHEMA, metadata

run_migrations(metadata, SCHEMA)
