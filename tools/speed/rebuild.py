"""Rebuild a projection from the game log into fresh tables and compare it with the live one (docs/rebuild.md).

`speed rebuild leaderboard`: reads every `GameEnded` from the log (every month of the archive "table".events,
a detached one from its own table, and the GAMES stream for games not archived yet), feeds them through the
leaderboard's own projection code in the order its consumer read them into a fresh schema, and compares every
table with the live one; refuses (2) when a month of the archive is no longer in the database, naming it.
`speed rebuild ledger`: the ledger is a book, not a projection of the log; checks its derived figures
(balances) against its postings instead. Prints "gleich" or the first differences; exits 0 when equal,
1 when not, 2 when it cannot run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from urllib.parse import urlsplit

import nats
import nats.errors
from nats.aio.client import Client as NatsClient
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from libs.platform import nats_client
from libs.platform.settings import sqlalchemy_url
from libs.rules import registry
from tools.speed.local import operator_settings, quiet_nats_error

EQUAL = "gleich"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Which projection, the servers, and whether to keep the fresh schema."""
    parser.add_argument("projection", choices=("leaderboard", "ledger"), help="was neu aufgebaut/geprüft wird")
    parser.add_argument("--database-url", default=None, help="PostgreSQL (Vorgabe: DATABASE_URL)")
    parser.add_argument("--nats-url", default=None,
                        help="NATS, als Betreiber (admin) (Vorgabe: NATS_URL mit NATS_CREDENTIALS/NATS_USER)")
    parser.add_argument("--keep", action="store_true",
                        help="das neu aufgebaute Schema nach dem Vergleich behalten (zum Nachsehen)")


async def _connect_nats(url: str | None) -> NatsClient:
    """Connect as the operator (`admin`): reading GAMES and GAME_FACTS needs more than any service may."""
    user = password = None  # the URL names its user: as given
    if url is None or not urlsplit(url.split(",")[0]).username:
        settings = operator_settings()
        if url is not None:
            settings = settings.model_copy(update={"nats_url": url})
        url = settings.nats_url
        user, password = settings.nats_login("admin")
    return await nats_client.connect(url, user=user, password=password, connect_timeout=5, max_reconnect_attempts=2,
                              name="speed-rebuild", error_cb=quiet_nats_error)


def _engine(url: str | None) -> AsyncEngine:
    return create_async_engine(sqlalchemy_url(url or operator_settings().database_url), pool_size=2)


async def _rebuild_leaderboard(args: argparse.Namespace) -> int:
    from services.table.archive_months import partition_name
    from tools.speed.rebuild_leaderboard import live_schema_exists, rebuild_leaderboard
    from tools.speed.rebuild_log import MonthsMissing

    settings = operator_settings()
    if settings.rule_plugins:  # extra games the services load: their badges are known to the projection too
        registry.load_plugins(settings.rule_plugins)
    engine = _engine(args.database_url)
    try:
        if not await live_schema_exists(engine):
            print("Das Schema leaderboard fehlt (Migrationen nicht gelaufen).", file=sys.stderr)
            return 2
        nc = await _connect_nats(args.nats_url)
        try:
            rebuild = await rebuild_leaderboard(engine, nc.jetstream(), keep=args.keep)
        except MonthsMissing as missing:
            print("\n".join(missing.lines()), file=sys.stderr)
            return 2
        finally:
            await nc.close()
    finally:
        await engine.dispose()
    ends = rebuild.ends
    print(f"Neubau der Rangliste in {rebuild.schema}: {len(ends.events)} Spielenden aus dem Log "
          f"({ends.archived} im Archiv, {ends.streamed} nur im Strom GAMES), {rebuild.projected} eingetragen.")
    if ends.archive_missing:
        print('Hinweis: kein Archiv ("table".events); nur der Strom GAMES wurde gelesen.')
    for month in ends.detached_read:
        print(f'Hinweis: abgehängter Monat {month:%Y-%m} aus seiner Tabelle "table".{partition_name("events", month)} '
              "gelesen.")
    notes = (("ohne Kopie auf GAME_FACTS (noch nicht veröffentlicht oder dort schon gelöscht)", ends.not_on_facts),
             ("auf GAME_FACTS, aber nicht im Log", ends.facts_not_in_log),
             ("Kopie oder Archiv weicht vom Log ab", ends.copies_differing),
             ("unlesbares GameEnded (übersprungen wie live)", rebuild.malformed))
    for what, games in notes:
        if games:
            print(f"Hinweis: {len(games)} Spiele {what}: {', '.join(games[:5])}")
    if args.keep:
        print(f'Das Schema {rebuild.schema} bleibt stehen (entfernen: DROP SCHEMA "{rebuild.schema}" CASCADE).')
    if rebuild.equal:
        print(EQUAL)
        return 0
    print("verschieden:")
    for difference in rebuild.differences:
        print("\n".join(difference.lines()))
    return 1


async def _check_ledger(args: argparse.Namespace) -> int:
    from tools.speed.rebuild_ledger import check_ledger, ledger_schema_exists

    engine = _engine(args.database_url)
    try:
        if not await ledger_schema_exists(engine):
            print("Das Schema ledger fehlt (Migrationen nicht gelaufen).", file=sys.stderr)
            return 2
        check = await check_ledger(engine)
    finally:
        await engine.dispose()
    print("Das Hauptbuch ist keine Projektion des Spiel-Logs (docs/rebuild.md); geprüft werden die abgeleiteten "
          f"Zahlen gegen die Buchungen: {check.accounts} Konten, {check.transactions} Buchungssätze.")
    if check.equal:
        print(EQUAL)
        return 0
    print("verschieden:")
    print("\n".join(check.lines()))
    return 1


def run(args: argparse.Namespace) -> int:
    """Rebuild (leaderboard) or check (ledger); 0 equal, 1 different, 2 could not run."""
    job = _rebuild_leaderboard if args.projection == "leaderboard" else _check_ledger
    try:
        return asyncio.run(job(args))
    except nats.errors.NoServersError:
        print(f"Neubau nicht möglich: kein NATS-Server unter {args.nats_url or operator_settings().nats_url} "
              "erreichbar (NATS_URL, --nats-url).", file=sys.stderr)
        return 2
    except (OSError, nats.errors.Error, TimeoutError, SQLAlchemyError) as error:
        print(f"Neubau nicht möglich: {error!r}", file=sys.stderr)
        return 2
