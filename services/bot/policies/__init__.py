"""Bot policies: pure functions from a seat's view to a move, per game (imports only libs.rules).

Each game's policy (for Speedmosaik: one module per workshop) offers
``decide(module, view, seat, level, rng) -> move`` for every level in ``LEVELS`` and every kind of
decision its game asks for (also the ones the computer makes for a player whose time ran out), and
``advise(module, view, seat, rng) -> (move, reason)``: the move the strong level would make and why, as a
German phrase ``{"key", "params", "text"}`` ("Rat des Meisters").
"""

from __future__ import annotations

from types import ModuleType

from libs.rules import registry
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from services.bot.policies import speedmosaik

LEVELS: tuple[str, ...] = ("easy", "normal", "strong")


def _policy(rules_id: str, view: Json) -> tuple[object, ModuleType]:
    module = registry.get(rules_id)
    if module.game == "speedmosaik":
        return module, speedmosaik.policy_for(view)
    raise ValueError(f"no bot policy for rules {rules_id!r}")


def decide(rules_id: str, view: Json, seat: int, level: str, rng: SeededRng) -> Json:
    """Return the move the bot of ``level`` makes for ``seat`` from that seat's view."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")
    module, policy = _policy(rules_id, view)
    move: Json = policy.decide(module, view, seat, level, rng)
    return move


def advise(rules_id: str, view: Json, seat: int, rng: SeededRng) -> tuple[Json, Json]:
    """Return the strong level's move for ``seat`` and the German reason for it."""
    module, policy = _policy(rules_id, view)
    move, reason = policy.advise(module, view, seat, rng)
    return move, reason


__all__ = ["LEVELS", "advise", "decide"]
