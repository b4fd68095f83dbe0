"""Calendar days as players live them: Europe/Berlin, whatever the server's time zone.

Daily games, day lists and streaks count Berlin days ("Jeden Tag ein neuer Garten"): a day starts at
midnight in Berlin (23:00 or 22:00 UTC, by season), and a day is written ``YYYY-MM-DD``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

BERLIN = ZoneInfo("Europe/Berlin")


def berlin_day(at: datetime) -> date:
    """Return the Berlin calendar day of an aware moment."""
    return at.astimezone(BERLIN).date()


def day_start(day: date) -> datetime:
    """Return the moment (UTC) the Berlin day begins."""
    return datetime.combine(day, time(0), tzinfo=BERLIN).astimezone(UTC)


def day_end(day: date) -> datetime:
    """Return the moment (UTC) the Berlin day is over (the next day's start)."""
    return day_start(day + timedelta(days=1))


def parse_day(text: str) -> date:
    """Return the day written ``YYYY-MM-DD``; raise ValueError for anything else."""
    if len(text) != 10:
        raise ValueError(f"not a day: {text!r}")
    return date.fromisoformat(text)


def iso_z(at: datetime) -> str:
    """Return an aware moment as ISO 8601 in UTC with a trailing Z (as the log writes times)."""
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")
