"""Comparing the tables of two schemas made from the same metadata: row sets, paired by primary key."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import MetaData, Table, text
from sqlalchemy.ext.asyncio import AsyncConnection

SHOWN = 10
"""How many differing rows per table the report names at most."""


@dataclass
class TableDifference:
    """How one table differs: rows only live, rows only rebuilt, rows under the same key with other values."""

    table: str
    only_live: list[dict[str, Any]] = field(default_factory=list)
    only_rebuilt: list[dict[str, Any]] = field(default_factory=list)
    changed: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    """(live row, rebuilt row) pairs with the same primary key."""
    live_extra_columns: list[str] = field(default_factory=list)
    """Columns the live table has and the metadata lacks (a migration the models do not know)."""
    key_columns: Sequence[str] = ()

    @property
    def count(self) -> int:
        return len(self.only_live) + len(self.only_rebuilt) + len(self.changed) + len(self.live_extra_columns)

    def lines(self) -> list[str]:
        """The difference as German lines for the operator (at most SHOWN rows of each kind)."""
        lines = [f"{self.table}: {len(self.changed)} Zeilen anders, {len(self.only_live)} nur live, "
                 f"{len(self.only_rebuilt)} nur im Neubau"]
        if self.live_extra_columns:
            lines.append(f"  Spalten nur live: {', '.join(self.live_extra_columns)}")
        for live, rebuilt in self.changed[:SHOWN]:
            changes = ", ".join(f"{name} live {_text(live[name])}, neu {_text(rebuilt.get(name))}"
                                for name in live if live[name] != rebuilt.get(name))
            lines.append(f"  anders ({row_text(live, self.key_columns)}): {changes}")
        lines.extend(f"  nur live: {row_text(row)}" for row in self.only_live[:SHOWN])
        lines.extend(f"  nur im Neubau: {row_text(row)}" for row in self.only_rebuilt[:SHOWN])
        return lines


def _text(value: Any) -> str:
    """A value as the report shows it: times and days in ISO form, JSON as JSON, the rest as it prints."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def row_text(row: Mapping[str, Any], columns: Sequence[str] | None = None) -> str:
    """A row as `name=value, ...` over `columns` (all of them when None)."""
    return ", ".join(f"{name}={_text(row[name])}" for name in (row if columns is None else columns))


async def table_exists(connection: AsyncConnection, name: str) -> bool:
    """Whether the table `name` (schema-qualified, quoted where SQL needs it) exists."""
    return bool((await connection.execute(text("SELECT to_regclass(:name) IS NOT NULL"), {"name": name})).scalar())


async def _columns_of(connection: AsyncConnection, schema: str, table: str) -> list[str]:
    rows = await connection.execute(text(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = :schema AND table_name = :table "
        "ORDER BY ordinal_position"), {"schema": schema, "table": table})
    return [row[0] for row in rows]


async def _rows_missing(connection: AsyncConnection, columns: Sequence[str], left: str, right: str,
                        limit: int) -> list[dict[str, Any]]:
    """Rows of table `left` (schema-qualified) that `right` lacks, compared over `columns` (as multisets)."""
    listed = ", ".join(f'"{name}"' for name in columns)
    query = text(f"SELECT {listed} FROM {left} EXCEPT ALL SELECT {listed} FROM {right} LIMIT {int(limit)}")
    return [dict(row._mapping) for row in await connection.execute(query)]


async def compare_table(connection: AsyncConnection, table: Table, live: str, rebuilt: str,
                        ignored: Sequence[str] = (), limit: int = 1000) -> TableDifference:
    """Compare `table` in schema `live` with the same table in schema `rebuilt`, over every column not `ignored`.

    Rows are compared as multisets of their values; differing rows that share a primary key are paired.
    """
    columns = [column.name for column in table.columns if column.name not in ignored]
    key = [column.name for column in table.primary_key.columns]
    difference = TableDifference(table=table.name, key_columns=key)
    live_columns = await _columns_of(connection, live, table.name)
    difference.live_extra_columns = [name for name in live_columns
                                     if name not in {column.name for column in table.columns}]
    live_name, rebuilt_name = f'"{live}"."{table.name}"', f'"{rebuilt}"."{table.name}"'
    only_live = await _rows_missing(connection, columns, live_name, rebuilt_name, limit)
    only_rebuilt = await _rows_missing(connection, columns, rebuilt_name, live_name, limit)
    rebuilt_by_key = {tuple(row[name] for name in key): row for row in only_rebuilt}
    for row in only_live:
        partner = rebuilt_by_key.pop(tuple(row[name] for name in key), None)
        if partner is None:
            difference.only_live.append(row)
        else:
            difference.changed.append((row, partner))
    difference.only_rebuilt = list(rebuilt_by_key.values())
    return difference


async def compare_schemas(connection: AsyncConnection, metadata: MetaData, live: str, rebuilt: str,
                          ignored: Mapping[str, Sequence[str]]) -> list[TableDifference]:
    """Compare every table of `metadata` between the two schemas; return the tables that differ."""
    differences = []
    for table in metadata.sorted_tables:
        difference = await compare_table(connection, table, live, rebuilt, ignored.get(table.name, ()))
        if difference.count:
            differences.append(difference)
    return differences
