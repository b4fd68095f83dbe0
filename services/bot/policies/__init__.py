"""Bot policies: one pure ``decide`` per game, chosen by the rules id (imports only libs.rules)."""

from __future__ import annotations

from libs.rules import registry
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from services.bot.policies import kachelwand

LEVELS: tuple[str, ...] = ("easy", "normal")


def decide(rules_id: str, view: Json, seat: int, level: str, rng: SeededRng) -> Json:
    """Return the move the bot of ``level`` makes for ``seat`` from that seat's view."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")
    module = registry.get(rules_id)
    if module.game == "speedmosaik":
        return kachelwand.decide(module, view, seat, level, rng)
    raise ValueError(f"no bot policy for rules {rules_id!r}")


__all__ = ["LEVELS", "decide"]
