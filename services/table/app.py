"""Composition root of the table service."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

from libs.platform.clock import Clock as PlatformClock
from libs.platform.service import Runtime, Startup, Worker, create_service_app
from libs.platform.settings import Settings, get_settings
from libs.platform.signing import configured_keyring
from services.table.archive import Archive, archive_and_purge
from services.table.commands import hold_partitions, serve_commands
from services.table.event_store import GameLog
from services.table.export_routes import router as export_router
from services.table.fast_routes import mount_hot_routes
from services.table.followup import follow_up_events
from services.table.games import Games
from services.table.live_limits import LiveLimits
from services.table.replay_routes import router as replay_router
from services.table.routes import router
from services.table.seeds import SeedSource
from services.table.signing_routes import router as keys_router
from services.table.snapshots import Snapshots
from services.table.timers import Clock, watch_deadlines

FOLLOWUP_PROCESS = "table-followup"
"""What a table process without the `api` role is called (its Deployment's name): in its log lines, its NATS
connection's name and its metrics, apart from the table's API process."""


def process_name(roles: frozenset[str]) -> str:
    """The name a table process with `roles` logs, connects to NATS and is measured under: `table` where it serves
    the API (alone or with every role), `table-followup` where it runs only background roles."""
    return "table" if "api" in roles else FOLLOWUP_PROCESS


def create_app(settings: Settings | None = None, seeds: SeedSource | None = None,
               clock: PlatformClock | None = None) -> FastAPI:
    """Build the table service with the roles TABLE_ROLES names (all by default); tests may replace the edges
    `seeds` and `clock` by subclasses.

    `api` serves the game routes and the NATS commands; `followup`, `timers` and `archive` are the background
    workers. A process without `api` answers only /healthz, /readyz and /metrics, and one without `followup`
    never joins the follow-up consumer, so each role can run (and scale) in its own process. Every role has
    the database: `archive` writes the archive, the others read purged games from it (docs/archive.md).
    """
    settings = settings or get_settings()
    roles = settings.table_role_set
    if "archive" in roles and settings.environment == "production" and not settings.archive_nats_password:
        # Else the archive would connect as the table's user, which may not purge GAMES (docs/archive.md).
        raise ValueError("ARCHIVE_NATS_PASSWORD must be set in production where TABLE_ROLES has archive")
    # Every role that appends signs: the API (starts, moves, leaving), the follow-up (GameEnded), the timers
    # (a timeout's move). Read once at startup, so a bad key file stops the process here.
    keyring = configured_keyring(settings.table_signing_keys, settings.table_signing_keys_file)
    if keyring is None and settings.environment == "production":
        raise ValueError("TABLE_SIGNING_KEYS (or TABLE_SIGNING_KEYS_FILE) must be set in production: "
                         "the table signs every event (docs/operations.md, \"Signing keys\")")

    async def wire(runtime: Runtime) -> None:
        runtime.extras["games"] = Games(GameLog(runtime.js, runtime.nc), seeds or SeedSource(),
                                        archive=Archive(runtime.engine), snapshots=Snapshots(runtime.js, runtime.nc),
                                        keyring=keyring,
                                        purge_grace=runtime.settings.archive_purge_grace_seconds)
        runtime.extras["clock"] = clock or Clock(runtime.settings.clock_lag_seconds)
        runtime.extras["live_limits"] = LiveLimits(runtime.settings)

    routers: list[APIRouter] = [router, export_router, replay_router, keys_router] if "api" in roles else []
    startup: list[Startup] = [wire, serve_commands] if "api" in roles else [wire]
    workers: list[Worker] = [hold_partitions] if "api" in roles and settings.table_affinity else []
    if "followup" in roles:
        workers.append(follow_up_events)
    if "timers" in roles:
        workers.append(watch_deadlines)
    if "archive" in roles:
        workers.append(archive_and_purge)
    app = create_service_app("table", routers=routers, workers=workers, on_startup=startup, uses_database=True,
                             settings=settings, process=process_name(roles))
    if "api" in roles and settings.table_hot_routes:
        mount_hot_routes(app)  # the view and move routes without FastAPI's per-request cost, same answers
    return app
