"""The ledger's clock: the one edge a test shifts (by subclassing) instead of waiting for a hold to expire."""

from __future__ import annotations

from datetime import UTC, datetime

from libs.platform.service import Runtime


class Clock:
    """The wall clock."""

    def now(self) -> datetime:
        """Return the current time in UTC."""
        return datetime.now(UTC)


def clock_of(runtime: Runtime) -> Clock:
    """Return the clock the app was built with (the wall clock unless a test gave another)."""
    clock: Clock = runtime.extras.get("clock") or Clock()
    return clock
