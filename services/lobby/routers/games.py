"""The games a table can be opened for, and the settings each offers (what a "new table" screen shows)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from libs.platform.table_options import BOT_LEVELS, DEFAULT_THINK_TIME, NO_CLOCK, OFFERED_STAKES, TEMPOS, THINK_TIMES
from libs.rules import registry
from services.lobby.table_settings import rule_module

router = APIRouter(prefix="/games", tags=["games"])


def platform_options() -> dict[str, Any]:
    """Return the settings every table has besides the game's own rules."""
    return {
        "tempo": {"label": "Tempo", "default": "normal", "values": list(TEMPOS)},
        "think_time": {"label": "Bedenkzeit je Entscheidung", "default": DEFAULT_THINK_TIME,
                       "values": [*THINK_TIMES, NO_CLOCK], "unit": "s"},
        "stake": {"label": "Einsatz (Taler, nur an offenen Tischen)", "default": 0,
                  "values": [0, *OFFERED_STAKES]},
        "turbo": {"label": "Turbo (nur solo)", "default": False, "values": [False, True]},
        "bot_level": {"label": "Computergegner", "default": "normal", "values": list(BOT_LEVELS)},
    }


@router.get("")
async def list_games() -> list[dict[str, Any]]:
    """Every game with its rules version (the newest: what new tables are played with) and the settings a table
    for it can choose."""
    return [_described(module) for module in registry.latest_modules()]


@router.get("/{game}")
async def show_game(game: str) -> dict[str, Any]:
    """One game's settings (422 with a German reason for an unknown game)."""
    return _described(rule_module(game))


def _described(module: Any) -> dict[str, Any]:
    """A game as the "new table" screen shows it: its settings, the platform's, what kind of game it is
    (seat counts, teams, undo, hidden information: the rule module's spec), and whether it is a test game."""
    return {"game": module.game, "rules": module.rules_id, "settings": module.settings_options(),
            "platform": platform_options(), "spec": module.spec.to_json(), "test_game": is_test_game(module)}


def is_test_game(module: Any) -> bool:
    """A game made for the platform's own tests (its rule module lives in the repository's `tests` package, such
    as the conformance suite's tiny game loaded through RULE_PLUGINS): front ends offer it to developers only."""
    return type(module).__module__.split(".", 1)[0] == "tests"
