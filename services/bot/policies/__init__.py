"""Bot policies: from a seat's view to a decision, through the game's Engine (imports only libs.rules).

The contract (``contract.py``): every policy offers ``decide(engine, view, seat, level, rng)`` for the
levels in ``LEVELS`` and ``advise(engine, view, seat, rng) -> (move, reason)`` ("Rat des Meisters": the
strong move and a German reason ``{"key", "params", "text"}``). ``registry.py`` names each game's policy;
a game without one is played by the generic Monte-Carlo fallback (``montecarlo.py``). See docs/services/bot.md.
"""

from __future__ import annotations

from libs.rules import registry as rules
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from services.bot.policies.contract import LEVELS, Advice, check_level
from services.bot.policies.registry import policy_for


def decide(rules_id: str, view: Json, seat: int, level: str, rng: SeededRng) -> Json | None:
    """Return the move the bot of ``level`` makes for ``seat`` from that seat's view.

    A must-act seat always gets a legal move; None means a may-act seat does not act now.
    """
    check_level(level)
    return policy_for(rules_id, view).decide(rules.engine(rules_id), view, seat, level, rng)


def advise(rules_id: str, view: Json, seat: int, rng: SeededRng) -> Advice:
    """Return the strong level's move for ``seat`` and the German reason for it."""
    return policy_for(rules_id, view).advise(rules.engine(rules_id), view, seat, rng)


__all__ = ["LEVELS", "advise", "decide"]
