"""The wall clock as a port: the one edge a test shifts (by subclassing) instead of waiting.

The lobby's rematch waits and stale tables, and the ledger's hold expiry, read the time through it; a
service's app is built with a clock (`runtime.extras["clock"]`), the wall clock unless a test gives another.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from libs.platform.service import Runtime


class Clock:
    """The wall clock."""

    def now(self) -> datetime:
        """Return the current time in UTC."""
        return datetime.now(UTC)


def installing(clock: Clock | None) -> Callable[[Runtime], Awaitable[None]]:
    """Return the startup step that makes `clock` the service's clock (None: the wall clock stays)."""

    async def install(runtime: Runtime) -> None:
        if clock is not None:
            runtime.extras["clock"] = clock

    return install


def clock_of(runtime: Runtime) -> Clock:
    """Return the clock the service's app was built with (the wall clock if none was given)."""
    clock: Clock = runtime.extras.get("clock") or Clock()
    return clock
