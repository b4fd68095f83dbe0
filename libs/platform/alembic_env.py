"""The body every service's Alembic env.py calls: one schema and one version table per service."""

from __future__ import annotations

import hashlib

from alembic import context
from sqlalchemy import MetaData, create_engine, text


def migration_lock_key(schema: str) -> int:
    """The PostgreSQL advisory lock key of `schema`'s migrations: fixed per service, a signed 64-bit int."""
    digest = hashlib.sha256(f"speed-migrations:{schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def run_migrations(target_metadata: MetaData, schema: str) -> None:
    """Run the pending migrations online, keeping `schema`'s version table inside that schema.

    Holds a session advisory lock on the service's key throughout, so two runs at once (two pods starting
    together) take turns: the second waits, then finds the schema at head and changes nothing.
    """
    config = context.config
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None
    engine = create_engine(url)
    key = migration_lock_key(schema)
    with engine.connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
        connection.commit()
        try:
            connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
            connection.commit()
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                version_table_schema=schema,
                include_schemas=True,
            )
            with context.begin_transaction():
                context.run_migrations()
        finally:
            connection.rollback()  # a failed migration leaves its transaction aborted; unlock needs a live one
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            connection.commit()
    engine.dispose()
