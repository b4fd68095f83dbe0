"""The archive partitioned by month: events and team_events move into one partition per calendar month
(docs/archive.md, "Months"); each game gets its month in archived_games, the catalog, which stays whole.

Existing rows are moved in this migration's one transaction (the archive role's writes wait for it): every
game gets the month of its earliest archived entry, partitions are created for every month present and for
the current month and the two after it, and the rows are copied into them and the old tables dropped. A team
log entry whose game had no catalog row yet (its log's events not archived yet) gets one.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from collections.abc import Sequence
from datetime import date

from alembic import op
from sqlalchemy import text

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = "table"
MONTHS_AHEAD = 2
"""As services/table/archive_months.MONTHS_AHEAD when written (a migration keeps its own copy)."""


def _next_month(month: date) -> date:
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def _moved(source: str, target: str, columns: str, selected: str) -> None:
    """Copy every row of `source` into the partitioned `target` (each with its game's month); fail unless all
    of them arrived."""
    bind = op.get_bind()
    before = bind.execute(text(f'SELECT count(*) FROM "{SCHEMA}".{source}')).scalar_one()
    moved = bind.execute(text(
        f'INSERT INTO "{SCHEMA}".{target} ({columns}) SELECT {selected} FROM "{SCHEMA}".{source} e '
        f'JOIN "{SCHEMA}".archived_games g ON g.game_id = e.game_id')).rowcount
    if moved != before:
        raise RuntimeError(f'"{SCHEMA}".{source}: {before} rows, {moved} moved into {target}')


def upgrade() -> None:
    bind = op.get_bind()
    # Every game archived gets a catalog row: a team-log entry may have come in before its log's first event,
    # and (never seen, but cheap to be sure of) an event without its game's row.
    op.execute(f"""
        INSERT INTO "{SCHEMA}".archived_games (game_id, rules, started_at, ended_at, last_n)
        SELECT game_id, min(body::jsonb ->> 'rules'), min(at),
               max(at) FILTER (WHERE type = 'GameEnded'), coalesce(max(n) FILTER (WHERE type <> 'TeamEntry'), 0)
        FROM (SELECT game_id, n, type, at, body FROM "{SCHEMA}".events
              UNION ALL SELECT game_id, 0, 'TeamEntry', at, body FROM "{SCHEMA}".team_events) entries
        WHERE NOT EXISTS (SELECT 1 FROM "{SCHEMA}".archived_games g WHERE g.game_id = entries.game_id)
        GROUP BY game_id""")
    op.execute(f'ALTER TABLE "{SCHEMA}".archived_games ADD COLUMN month date')
    op.execute(f'UPDATE "{SCHEMA}".archived_games '
               "SET month = date_trunc('month', started_at AT TIME ZONE 'UTC')::date")
    op.execute(f'ALTER TABLE "{SCHEMA}".archived_games ALTER COLUMN month SET NOT NULL')

    for table in ("events", "team_events"):
        op.execute(f'ALTER TABLE "{SCHEMA}".{table} RENAME TO {table}_unpartitioned')
        op.execute(f'ALTER INDEX "{SCHEMA}".{table}_pkey RENAME TO {table}_unpartitioned_pkey')
    op.execute(f"""
        CREATE TABLE "{SCHEMA}".events (
            game_id text NOT NULL, n integer NOT NULL, month date NOT NULL, stream_seq bigint NOT NULL,
            type text NOT NULL, at timestamptz NOT NULL, body text NOT NULL,
            PRIMARY KEY (game_id, n, month)
        ) PARTITION BY RANGE (month)""")
    op.execute(f"""
        CREATE TABLE "{SCHEMA}".team_events (
            game_id text NOT NULL, team integer NOT NULL, n integer NOT NULL, month date NOT NULL,
            stream_seq bigint NOT NULL, at timestamptz NOT NULL, body text NOT NULL,
            PRIMARY KEY (game_id, team, n, month)
        ) PARTITION BY RANGE (month)""")

    current = bind.execute(text("SELECT date_trunc('month', now() AT TIME ZONE 'UTC')::date")).scalar_one()
    months = set(bind.execute(text(f'SELECT DISTINCT month FROM "{SCHEMA}".archived_games')).scalars())
    month = current
    for _ in range(MONTHS_AHEAD + 1):
        months.add(month)
        month = _next_month(month)
    for month in sorted(months):
        for table in ("events", "team_events"):
            op.execute(f'CREATE TABLE "{SCHEMA}".{table}_{month:%Y_%m} PARTITION OF "{SCHEMA}".{table} '
                       f"FOR VALUES FROM ('{month.isoformat()}') TO ('{_next_month(month).isoformat()}')")

    _moved("events_unpartitioned", "events", "game_id, n, month, stream_seq, type, at, body",
           "e.game_id, e.n, g.month, e.stream_seq, e.type, e.at, e.body")
    _moved("team_events_unpartitioned", "team_events", "game_id, team, n, month, stream_seq, at, body",
           "e.game_id, e.team, e.n, g.month, e.stream_seq, e.at, e.body")
    for table in ("events", "team_events"):
        op.execute(f'DROP TABLE "{SCHEMA}".{table}_unpartitioned')


def downgrade() -> None:
    # Back to one table each, with the rows of the attached months (a detached month's tables stay as they are).
    op.execute(f"""
        CREATE TABLE "{SCHEMA}".events_whole (
            game_id text NOT NULL, n integer NOT NULL, stream_seq bigint NOT NULL, type text NOT NULL,
            at timestamptz NOT NULL, body text NOT NULL, CONSTRAINT events_whole_pkey PRIMARY KEY (game_id, n))""")
    op.execute(f"""
        CREATE TABLE "{SCHEMA}".team_events_whole (
            game_id text NOT NULL, team integer NOT NULL, n integer NOT NULL, stream_seq bigint NOT NULL,
            at timestamptz NOT NULL, body text NOT NULL,
            CONSTRAINT team_events_whole_pkey PRIMARY KEY (game_id, team, n))""")
    op.execute(f'INSERT INTO "{SCHEMA}".events_whole SELECT game_id, n, stream_seq, type, at, body '
               f'FROM "{SCHEMA}".events')
    op.execute(f'INSERT INTO "{SCHEMA}".team_events_whole SELECT game_id, team, n, stream_seq, at, body '
               f'FROM "{SCHEMA}".team_events')
    for table in ("events", "team_events"):
        op.execute(f'DROP TABLE "{SCHEMA}".{table}')
        op.execute(f'ALTER TABLE "{SCHEMA}".{table}_whole RENAME TO {table}')
        op.execute(f'ALTER INDEX "{SCHEMA}".{table}_whole_pkey RENAME TO {table}_pkey')
    op.execute(f'ALTER TABLE "{SCHEMA}".archived_games DROP COLUMN month')
