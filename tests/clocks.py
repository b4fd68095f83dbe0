"""A clock for tests: the real wall clock (it subclasses the port) plus an offset a test moves forward."""

from __future__ import annotations

from datetime import datetime, timedelta

from libs.platform.clock import Clock


class ShiftedClock(Clock):
    """The wall clock plus an offset a test moves forward instead of waiting (minutes or hours)."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def now(self) -> datetime:
        return super().now() + self.offset

    def advance(self, **delta: float) -> None:
        """Move the service's time forward, e.g. `advance(minutes=2)`."""
        self.offset += timedelta(**delta)
