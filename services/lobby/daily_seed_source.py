"""Where the daily seeds come from: the operating system's randomness, a port tests replace by a subclass."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable

from libs.platform.service import Runtime

SEED_BYTES = 32


class DailySeedSource:
    """Draws a day's seed: 32 bytes from the OS (never `random`)."""

    def draw(self) -> bytes:
        """Return a fresh 32-byte seed."""
        return os.urandom(SEED_BYTES)


def installing_seed_source(source: DailySeedSource | None) -> Callable[[Runtime], Awaitable[None]]:
    """Return the startup step that makes `source` the lobby's seed source (None: the OS)."""

    async def install(runtime: Runtime) -> None:
        runtime.extras["daily_seed_source"] = source or DailySeedSource()

    return install


def seed_source_of(runtime: Runtime) -> DailySeedSource:
    """Return the lobby's seed source (the OS if none was installed)."""
    source: DailySeedSource = runtime.extras.get("daily_seed_source") or DailySeedSource()
    return source
