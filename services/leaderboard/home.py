"""What the rule modules declare about a game's home (modes, badges), as the leaderboard reads it."""

from __future__ import annotations

from libs.platform.http_errors import shown
from libs.platform.rpc import CommandRefused
from libs.rules import registry
from libs.rules.home import Home, SoloMode


class UnknownGame(CommandRefused):
    """No game of this name is known to the platform."""

    def __init__(self, game: str) -> None:
        super().__init__(404, f"Ein Spiel „{shown(game)}“ gibt es hier nicht.", "unknown_game")


class UnknownMode(CommandRefused):
    """The game has no solo mode of this name."""

    def __init__(self, game: str, mode: str) -> None:
        super().__init__(404, f"Einen Spielmodus „{shown(mode)}“ gibt es bei „{shown(game)}“ nicht.",
                         "unknown_mode")


class NotDaily(CommandRefused):
    """A day's list was asked of a mode that has no days."""

    def __init__(self, mode: SoloMode) -> None:
        super().__init__(404, f"„{mode.title}“ ist kein Tagesmodus und hat keine Tageslisten.", "not_daily")


class BadDay(CommandRefused):
    """A day that is not written YYYY-MM-DD."""

    def __init__(self, day: str) -> None:
        super().__init__(422, f"„{shown(day)}“ ist kein Tag; erwartet wird JJJJ-MM-TT, z. B. 2026-12-01.",
                         "bad_day")


def home_of(game: str) -> Home | None:
    """Return the home the game's newest registered rules declare, or None for an unregistered game."""
    try:
        return registry.latest(game).spec.home
    except registry.UnknownRules:
        return None


def registered_games() -> list[str]:
    """Return every registered game's name, sorted."""
    return sorted({module.game for module in registry.all_modules()})


def known_home(game: str) -> Home:
    """Return the registered game's home; refuse with 404 for an unknown game."""
    home = home_of(game)
    if home is None:
        raise UnknownGame(game)
    return home


def known_mode(game: str, key: str) -> SoloMode:
    """Return the game's solo mode `key`; refuse with 404 for an unknown game or mode."""
    mode = known_home(game).mode(key)
    if mode is None:
        raise UnknownMode(game, key)
    return mode


def mode_title(game: str, key: str) -> str:
    """Return the mode's title as players read it (its key if the rules no longer declare it)."""
    home = home_of(game)
    mode = home.mode(key) if home is not None else None
    return mode.title if mode is not None else key
