"""A table's settings: the game's rule settings (checked by its rule module) and the platform's own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from libs.platform import table_options as options
from libs.platform.http_errors import shown
from libs.platform.table_options import DEFAULT_THINK_TIME, NO_CLOCK
from libs.rules import ConfigError, registry
from libs.rules.registry import UnknownRules
from services.lobby.errors import invalid

PLATFORM_KEYS = ("tempo", "think_time", "stake", "turbo")

T = TypeVar("T")


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
        tempo=_checked(options.tempo, platform.get("tempo", "normal")),
        think_time=_checked(options.think_time, platform.get("think_time", DEFAULT_THINK_TIME)),
        stake=_checked(options.stake, platform.get("stake", 0), is_solo=is_solo),
        turbo=_checked(options.turbo, platform.get("turbo", False), is_solo=is_solo),
    )


def normalize_game_settings(game: str, settings: dict[str, Any], seats: int) -> dict[str, Any]:
    """Return the rule module's full settings for `seats` players, or refuse with its German reason."""
    try:
        return dict(registry.engine(rule_module(game).rules_id).normalize_config(settings, seats))
    except ConfigError as error:
        raise invalid(error.reason, "invalid_settings") from error


def rule_module(game: str) -> Any:
    """Return the newest rule module of `game`, or refuse an unknown game."""
    try:
        return registry.latest(game)
    except UnknownRules as error:
        raise invalid(f"Das Spiel „{shown(game)}“ gibt es hier nicht.", "unknown_game") from error


def game_title(module: Any) -> str:
    """The game's name as players read it (the spec's title, else its key capitalised: "Speedmosaik")."""
    title: str = module.spec.title or module.game.capitalize()
    return title


def check_bot_level(level: str) -> str:
    """Return `level` if computers can play at it, else refuse."""
    return _checked(options.bot_level, level)


def _checked(check: Callable[..., T], value: object, **flags: bool) -> T:
    """Return what the platform's option check returns; its refusal becomes the lobby's 422."""
    try:
        return check(value, **flags)
    except options.InvalidTableOption as error:
        raise invalid(error.reason, error.code) from error
