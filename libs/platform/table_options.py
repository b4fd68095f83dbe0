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

# ---- validation: the one place a table's platform settings are checked (lobby and table alike) --------


class InvalidTableOption(ValueError):
    """A platform setting the platform refuses; ``reason`` is the German sentence the player reads."""

    def __init__(self, reason: str, code: str = "invalid_settings") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


TEXTS: dict[str, str] = {
    "tempo": "Für „Tempo“ gibt es nur „normal“ oder „schnell“.",
    "think_time": "Die Bedenkzeit je Entscheidung ist 30, 60, 90 oder 120 Sekunden oder „ohne“ (keine Uhr).",
    "stake_type": "Der Einsatz ist eine Zahl von Talern.",
    "stake_solo": "Solo spielst du ohne Einsatz.",
    "stake": "Der Einsatz ist 10, 25, 50 oder 100 Taler oder 0 (ohne Einsatz).",
    "turbo": "„Turbo“ ist an (true) oder aus (false).",
    "turbo_solo": "Turbo gibt es nur im Solo-Spiel gegen Computer.",
    "bot_level": "Computergegner gibt es als „easy“ (leicht), „normal“ oder „strong“ (stark).",
}
"""One German text per refusal, whichever service refuses."""


def tempo(value: object) -> str:
    """Return a valid tempo or refuse."""
    if value not in TEMPOS:
        raise InvalidTableOption(TEXTS["tempo"])
    return str(value)


def think_time(value: object) -> int | None:
    """Return seconds per decision (None for "ohne" / no clock) or refuse."""
    if value == NO_CLOCK or value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value not in THINK_TIMES:
        raise InvalidTableOption(TEXTS["think_time"])
    return value


def stake(value: object, *, is_solo: bool = False) -> int:
    """Return the stake in Taler (0: none) or refuse; a solo game has none."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTableOption(TEXTS["stake_type"])
    if value == 0:
        return 0
    if is_solo:
        raise InvalidTableOption(TEXTS["stake_solo"])
    if value not in OFFERED_STAKES:
        raise InvalidTableOption(TEXTS["stake"])
    return value


def turbo(value: object, *, is_solo: bool = True) -> bool:
    """Return whether computers move without pause, or refuse (only solo games may)."""
    if not isinstance(value, bool):
        raise InvalidTableOption(TEXTS["turbo"])
    if value and not is_solo:
        raise InvalidTableOption(TEXTS["turbo_solo"])
    return value


def bot_level(value: object) -> str:
    """Return a computer level or refuse."""
    if value not in BOT_LEVELS:
        raise InvalidTableOption(TEXTS["bot_level"], "invalid_bot_level")
    return str(value)
