"""The lobby offers Speednova once, as ``speednova@2``; ``speednova@1`` stays registered for its logs only."""

from __future__ import annotations

import asyncio

from libs.rules import registry
from services.lobby.daily import daily_modes
from services.lobby.routers.games import list_games


def test_speednova_is_offered_once_in_its_newest_version() -> None:
    listed = [entry for entry in asyncio.run(list_games()) if entry["game"] == "speednova"]
    assert [entry["rules"] for entry in listed] == ["speednova@2"]
    assert registry.get("speednova@1").game == "speednova"
    modes = [each.mode.key for each in daily_modes() if each.game == "speednova"]
    assert len(modes) == len(set(modes)) > 0
