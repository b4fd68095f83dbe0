"""A table's settings: the game's rule settings (checked by its rule module) and the platform's own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.platform.table_options import BOT_LEVELS, DEFAULT_THINK_TIME, NO_CLOCK, OFFERED_STAKES, TEMPOS, THINK_TIMES
from libs.rules import ConfigError, registry
from libs.rules.registry import UnknownRules
from services.lobby.errors import invalid

PLATFORM_KEYS = ("tempo", "think_time", "stake", "turbo")


@dataclass(frozen=True)
class TableSettings:
    """Validated settings: `game_settings` go to the rule module, the rest is the platform's."""

    game: str
    rules_id: str
    game_settings: dict[str, Any]
    tempo: str = "normal"
    think_time: int | None = DEFAULT_THINK_TIME
    stake: int = 0
    turbo: bool = False

    def to_json(self) -> dict[str, Any]:
        """Return every setting in one object, as a client sends and reads them."""
        return {**self.game_settings, "tempo": self.tempo,
                "think_time": NO_CLOCK if self.think_time is None else self.think_time,
                "stake": self.stake, "turbo": self.turbo}


def validate_settings(game: str, raw: dict[str, Any] | None, seats: int, *, is_solo: bool) -> TableSettings:
    """Return the complete settings for `seats` players, or refuse (422) with a German reason."""
    raw = dict(raw or {})
    platform = {key: raw.pop(key) for key in PLATFORM_KEYS if key in raw}
    return TableSettings(
        game=game,
        rules_id=rule_module(game).rules_id,
        game_settings=normalize_game_settings(game, raw, seats),
        tempo=_tempo(platform.get("tempo", "normal")),
        think_time=_think_time(platform.get("think_time", DEFAULT_THINK_TIME)),
        stake=_stake(platform.get("stake", 0), is_solo=is_solo),
        turbo=_turbo(platform.get("turbo", False), is_solo=is_solo),
    )


def normalize_game_settings(game: str, settings: dict[str, Any], seats: int) -> dict[str, Any]:
    """Return the rule module's full settings for `seats` players, or refuse with its German reason."""
    try:
        return dict(rule_module(game).normalize_config(settings, seats))
    except ConfigError as error:
        raise invalid(error.reason, "invalid_settings") from error


def rule_module(game: str) -> Any:
    """Return the newest rule module of `game`, or refuse an unknown game."""
    try:
        return registry.latest(game)
    except UnknownRules as error:
        raise invalid(f"Das Spiel „{game}“ gibt es hier nicht.", "unknown_game") from error


def check_bot_level(level: str) -> str:
    """Return `level` if computers can play at it, else refuse."""
    if level not in BOT_LEVELS:
        raise invalid("Computergegner gibt es als „easy“ (leicht), „normal“ oder „strong“ (stark).",
                      "invalid_bot_level")
    return level


def _tempo(value: Any) -> str:
    if value not in TEMPOS:
        raise invalid("Für „Tempo“ gibt es nur „normal“ oder „schnell“.", "invalid_settings")
    return str(value)


def _think_time(value: Any) -> int | None:
    if value == NO_CLOCK:
        return None
    if isinstance(value, bool) or value not in THINK_TIMES:
        raise invalid("Die Bedenkzeit je Zug ist 30, 60, 90 oder 120 Sekunden oder „ohne“ (keine Uhr).",
                      "invalid_settings")
    return int(value)


def _stake(value: Any, *, is_solo: bool) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid("Der Einsatz ist eine Zahl von Talern.", "invalid_settings")
    if value == 0:
        return 0
    if is_solo:
        raise invalid("Solo spielst du ohne Einsatz.", "invalid_settings")
    if value not in OFFERED_STAKES:
        raise invalid("Der Einsatz ist 10, 25, 50 oder 100 Taler oder 0 (ohne Einsatz).", "invalid_settings")
    return int(value)


def _turbo(value: Any, *, is_solo: bool) -> bool:
    if not isinstance(value, bool):
        raise invalid("„Turbo“ ist an (true) oder aus (false).", "invalid_settings")
    if value and not is_solo:
        raise invalid("Turbo gibt es nur im Solo-Spiel gegen Computer.", "invalid_settings")
    return value
