"""The body every service's Alembic env.py calls: one schema and one version table per service."""

from __future__ import annotations

from alembic import context
from sqlalchemy import MetaData, create_engine, text


def run_migrations(target_metadata: MetaData, schema: str) -> None:
    """Run the pending migrations online, keeping `schema`'s version table inside that schema."""
    config = context.config
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None
    engine = create_engine(url)
    with engine.connect() as connection:
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
    engine.dispose()
