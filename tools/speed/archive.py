"""The archive's months in PostgreSQL: list them, detach one past the retention, attach one again (docs/archive.md).

`speed archive months` lists every month of the archive: attached or detached, its games, those not yet purged
from the stream, its size. `speed archive detach YYYY-MM` detaches a month's partitions (refused within
ARCHIVE_RETENTION_MONTHS or while a game of it is not purged); its tables stay beside the archive until the
operator has dumped and dropped them (docs/operations.md, "The archive's retention"). `speed archive attach
YYYY-MM` attaches them again (after restoring a dump), so its games answer as before. Exit status: 0 done,
1 refused, 2 cannot run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import date, datetime

from sqlalchemy.exc import SQLAlchemyError

from tools.speed.local import operator_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """What to do (months, detach, attach), the month, and the database."""
    parser.add_argument("action", choices=("months", "detach", "attach"),
                        help="Monate zeigen, einen Monat abhängen oder wieder anhängen")
    parser.add_argument("month", nargs="?", type=_month, help="der Monat (JJJJ-MM) für detach/attach")
    parser.add_argument("--database-url", default=None, help="PostgreSQL (Vorgabe: DATABASE_URL)")
    parser.add_argument("--retention-months", type=int, default=None,
                        help="Aufbewahrungsfrist in Monaten (Vorgabe: ARCHIVE_RETENTION_MONTHS)")


def _month(value: str) -> date:
    try:
        return datetime.strptime(value, "%Y-%m").date()
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"kein Monat (JJJJ-MM): {value}") from error


async def _run(args: argparse.Namespace) -> int:
    # Loaded on use, as every subcommand's own work: `speed audit` needs none of the table's code.
    from sqlalchemy.ext.asyncio import create_async_engine

    from libs.platform.clock import Clock
    from libs.platform.settings import sqlalchemy_url
    from services.table.archive_months import MonthRefused, attach_month, detach_month, month_summaries

    settings = operator_settings()
    engine = create_async_engine(sqlalchemy_url(args.database_url or settings.database_url), pool_size=2)
    try:
        if args.action == "months":
            print(f"{'Monat':<8} {'Zustand':<10} {'Partien':>9} {'im Strom':>9} {'MiB':>10}")
            for summary in await month_summaries(engine):
                state = "angehängt" if summary.attached else "abgehängt"
                print(f"{summary.month:%Y-%m}  {state:<10} {summary.games:>9} {summary.unpurged:>9} "
                      f"{summary.bytes / 2**20:>10.1f}")
            return 0
        if args.month is None:
            print(f"speed archive {args.action}: welcher Monat (JJJJ-MM)?", file=sys.stderr)
            return 2
        if args.action == "detach":
            retention = args.retention_months or settings.archive_retention_months
            names = await detach_month(engine, args.month, Clock().now(), retention)
            print(f"{args.month:%Y-%m} abgehängt: {', '.join(names)} stehen jetzt allein im Schema \"table\" "
                  "(sichern mit pg_dump, dann DROP TABLE; docs/operations.md).")
        else:
            names = await attach_month(engine, args.month)
            print(f"{args.month:%Y-%m} angehängt: {', '.join(names) or 'war schon angehängt'}.")
        return 0
    except MonthRefused as refused:
        print(f"Abgelehnt: {refused}", file=sys.stderr)
        return 1
    finally:
        await engine.dispose()


def run(args: argparse.Namespace) -> int:
    """Do the action; 0 done, 1 refused, 2 could not run."""
    try:
        return asyncio.run(_run(args))
    except (OSError, SQLAlchemyError) as error:
        print(f"Nicht möglich: {error!r}", file=sys.stderr)
        return 2
