"""The lobby offers each game once, in its newest rules version (issue 24, point 5: ``speedspore@2`` beside ``@1``).

Older versions stay registered only so that their logs replay; the game list and the daily modes (whose seeds
are committed per game, mode and day) must not offer them again. Pure functions: no servers needed.
"""

from __future__ import annotations

import asyncio

from libs.rules import registry
from services.lobby.daily import daily_modes
from services.lobby.routers.games import list_games


def test_the_game_list_names_each_game_once_in_its_newest_version() -> None:
    listed = asyncio.run(list_games())
    games = [entry["game"] for entry in listed]
    assert len(games) == len(set(games))
    assert {entry["rules"] for entry in listed} == {registry.latest(game).rules_id for game in games}
    assert "speedspore@2" in {entry["rules"] for entry in listed}
    assert registry.get("speedspore@1").game == "speedspore"  # still registered, for its logs


def test_each_daily_mode_is_offered_once() -> None:
    modes = [(each.game, each.mode.key) for each in daily_modes()]
    assert len(modes) == len(set(modes))
    assert ("speedspore", "tagesinsel") in modes
