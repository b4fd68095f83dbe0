"""Daily seeds: one per (game, daily mode, Berlin day), drawn from the OS, committed before the day, revealed after.

The commitment sha256(seed) of today and tomorrow is published (`GET /daily`), so a player can check after
the day that everybody's game of the day used the seed committed before it began. Seeds are made lazily on
request and by a periodic worker; every replica inserts with ON CONFLICT DO NOTHING and reads back what is
stored, so all replicas hand out the same seed whichever drew first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import select, tuple_
from sqlalchemy.dialects.postgresql import insert

from libs.platform.clock import clock_of
from libs.platform.days import berlin_day, day_end, day_start, iso_z, parse_day
from libs.platform.http_errors import shown
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused
from libs.platform.service import Runtime
from libs.rules import registry
from libs.rules.home import SoloMode
from libs.rules.registry import UnknownRules
from services.lobby.daily_seed_source import seed_source_of
from services.lobby.database import sessions_of
from services.lobby.errors import invalid
from services.lobby.models import DailySeed
from services.lobby.table_settings import game_title

SEED_WORKER_INTERVAL = 600.0
"""The seed worker's period: ten minutes, so tomorrow's commitment is out long before tomorrow begins."""


@dataclass(frozen=True)
class DailyMode:
    """A daily solo mode of a registered game."""

    game: str
    mode: SoloMode


def daily_modes() -> list[DailyMode]:
    """Every daily mode of every registered game (newest rule module of each), in the registry's order."""
    return [DailyMode(module.game, mode) for module in registry.latest_modules()
            for mode in module.spec.home.modes if mode.daily]


def today_and_tomorrow(now: datetime) -> tuple[date, date]:
    """The Berlin day of `now` and the day after it."""
    today = berlin_day(now)
    return today, today + timedelta(days=1)


def commitment_of(seed: bytes) -> str:
    """The public commitment of a seed: hex of sha256 over its bytes."""
    return hashlib.sha256(seed).hexdigest()


SeedKey = tuple[str, str, date]
"""(game, mode, Berlin day)."""


async def ensure_seeds(runtime: Runtime, keys: Iterable[SeedKey]) -> dict[SeedKey, DailySeed]:
    """Make sure a seed exists for every (game, mode, day) in `keys`; return the stored ones (the first drawn wins)."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    stored = await _read(runtime, wanted)
    missing = [key for key in wanted if key not in stored]
    if missing:
        source = seed_source_of(runtime)
        rows = []
        for game, mode, day in missing:
            seed = source.draw()
            rows.append({"game": game, "mode": mode, "day": day, "seed": seed.hex(), "commitment": commitment_of(seed)})
        async with sessions_of(runtime).begin() as session:
            await session.execute(insert(DailySeed).values(rows).on_conflict_do_nothing())
        stored = await _read(runtime, wanted)  # read back: another replica may have drawn first
    return stored


async def ensure_upcoming_seeds(runtime: Runtime) -> dict[SeedKey, DailySeed]:
    """Make sure today's and tomorrow's seeds exist for every daily mode; return them."""
    days = today_and_tomorrow(clock_of(runtime).now())
    return await ensure_seeds(runtime, [(each.game, each.mode.key, day) for each in daily_modes() for day in days])


async def seed_of_today(runtime: Runtime, game: str, mode: str) -> tuple[date, DailySeed]:
    """Return today's Berlin day and its seed for a daily mode (made now if nobody asked for it yet)."""
    today = berlin_day(clock_of(runtime).now())
    stored = await ensure_seeds(runtime, [(game, mode, today)])
    return today, stored[(game, mode, today)]


async def upcoming_commitments(runtime: Runtime) -> list[dict[str, Any]]:
    """`GET /daily`: today's and tomorrow's commitment of every daily mode (seeds are never shown here)."""
    now = clock_of(runtime).now()
    stored = await ensure_upcoming_seeds(runtime)
    days = today_and_tomorrow(now)
    return [describe_seed(stored[(each.game, each.mode.key, day)], each.mode, now)
            for each in daily_modes() for day in days]


async def commitment_of_day(runtime: Runtime, game: str, mode: str, day_text: str) -> dict[str, Any]:
    """`GET /daily/{game}/{mode}/{day}`: one day's commitment, its seed once the day is over.

    422 for a malformed day; 404 for an unknown game or daily mode, a day after tomorrow, or a past day
    without a seed.
    """
    try:
        day = parse_day(day_text)
    except ValueError as error:
        raise invalid(f"„{shown(day_text)}“ ist kein Tag der Form JJJJ-MM-TT.", "invalid_day") from error
    solo_mode = daily_mode(game, mode)
    now = clock_of(runtime).now()
    today, tomorrow = today_and_tomorrow(now)
    if day > tomorrow:
        raise CommandRefused(404, f"Den Tagessamen für den {day.isoformat()} gibt es noch nicht: veröffentlicht "
                                  "wird er am Tag davor.", "seed_not_found")
    if day >= today:
        stored = await ensure_seeds(runtime, [(game, mode, day)])
    else:
        stored = await _read(runtime, [(game, mode, day)])
    seed = stored.get((game, mode, day))
    if seed is None:
        raise CommandRefused(404, f"Für den {day.isoformat()} gibt es keinen Tagessamen von „{solo_mode.title}“.",
                             "seed_not_found")
    return describe_seed(seed, solo_mode, now)


def daily_mode(game: str, mode: str) -> SoloMode:
    """Return the daily mode `mode` of `game`, or 404 with a German reason."""
    try:
        module = registry.latest(game)
    except UnknownRules as error:
        raise CommandRefused(404, f"Das Spiel „{shown(game)}“ gibt es hier nicht.", "unknown_game") from error
    found = module.spec.home.mode(mode)
    if found is None or not found.daily:
        raise CommandRefused(404, f"Einen Tagesmodus „{shown(mode)}“ gibt es bei {game_title(module)} nicht.",
                             "unknown_mode")
    return found


def describe_seed(seed: DailySeed, mode: SoloMode, now: datetime) -> dict[str, Any]:
    """A day's seed as players see it: the commitment always, the seed (hex) only once the day is over."""
    reveal_at = day_end(seed.day)
    return {"game": seed.game, "mode": seed.mode, "title": mode.title, "day": seed.day.isoformat(),
            "starts_at": iso_z(day_start(seed.day)), "commitment": seed.commitment, "reveal_at": iso_z(reveal_at),
            "seed": seed.seed if reveal_at <= now else None}


async def publish_daily_seeds(runtime: Runtime) -> None:
    """Worker: every ten minutes make today's and tomorrow's seeds, so each commitment is out before its day."""
    log = get_logger(worker="daily_seeds")
    while True:
        try:
            await ensure_upcoming_seeds(runtime)
        except Exception:
            log.warning("daily_seeds_failed", exc_info=True)
        if not await runtime.pause(SEED_WORKER_INTERVAL):
            return


async def _read(runtime: Runtime, keys: Sequence[SeedKey]) -> dict[SeedKey, DailySeed]:
    async with sessions_of(runtime)() as session:
        rows = (await session.execute(select(DailySeed).where(
            tuple_(DailySeed.game, DailySeed.mode, DailySeed.day).in_(list(keys))))).scalars().all()
    return {(row.game, row.mode, row.day): row for row in rows}
