"""The platform's table settings every game shares (the texts' "Am Tisch"), known to lobby and table alike."""

from __future__ import annotations

TEMPOS: tuple[str, ...] = ("normal", "schnell")
THINK_TIMES: tuple[int, ...] = (30, 60, 90, 120)
"""Seconds per decision; "ohne" (no clock) is stored as None."""
NO_CLOCK = "ohne"
DEFAULT_THINK_TIME = 120
GRACE_SECONDS = 10
"""After the think time, 10 s grace before the computer decides."""
OFFERED_STAKES: tuple[int, ...] = (10, 25, 50, 100)
"""Taler per game; 0 means no stake."""
BOT_LEVELS: tuple[str, ...] = ("easy", "normal", "strong")
