"""Bot policies: pure functions from a seat's view to a move, per game (imports only libs.rules).

Every game's policy module offers ``decide(module, view, seat, level, rng) -> move`` for the levels it
supports; ``advise`` adds the reason a player reads ("Rat des Meisters").
"""

from __future__ import annotations

from libs.rules import registry
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from services.bot.policies import speedmosaik

LEVELS: tuple[str, ...] = ("easy", "normal")


def decide(rules_id: str, view: Json, seat: int, level: str, rng: SeededRng) -> Json:
    """Return the move the bot of ``level`` makes for ``seat`` from that seat's view."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")
    module = registry.get(rules_id)
    if module.game == "speedmosaik":
        move: Json = speedmosaik.policy_for(view).decide(module, view, seat, level, rng)
        return move
    raise ValueError(f"no bot policy for rules {rules_id!r}")


__all__ = ["LEVELS", "decide"]
