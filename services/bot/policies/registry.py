"""Which policy plays which game: a dedicated one where a game (or one of its variants) has it, else the fallback.

Keys are a game's name (``"speedmosaik"``) or a game and one of its variants (``("speedmosaik",
"kirchenfenster")``); the variant of a decision is read from the view's settings (``einstellungen``) under
the game's ``GameSpec.variant_key``. A game registered under neither is played by the generic Monte-Carlo
policy, so a new rule module has computer players on the day it is registered.
"""

from __future__ import annotations

from libs.rules import registry as rules
from libs.rules.protocol import Json
from services.bot.policies import montecarlo, speedkoi_bots, speedmosaik, speednova_bots, speedspore_bots
from services.bot.policies.contract import Policy

FALLBACK = montecarlo.POLICY
"""The generic computer player (determinized Monte-Carlo over the protocol)."""

_POLICIES: dict[str | tuple[str, str], Policy] = {}


def register(game: str, policy: Policy, variant: str | None = None) -> Policy:
    """Make ``policy`` play ``game`` (only its ``variant`` if given); registering a key again replaces it."""
    _POLICIES[game if variant is None else (game, variant)] = policy
    return policy


def variant_of(rules_id: str, view: Json) -> str | None:
    """Return the variant the view's settings name (None for a game without variants)."""
    key = rules.engine(rules_id).spec.variant_key
    settings = view.get("einstellungen")
    if key is None or not isinstance(settings, dict) or settings.get(key) is None:
        return None
    return str(settings[key])


def dedicated(rules_id: str, view: Json) -> Policy | None:
    """Return the game's (or its variant's) own policy, or None if the fallback plays it."""
    game = rules.engine(rules_id).spec.game
    variant = variant_of(rules_id, view)
    if variant is not None and (game, variant) in _POLICIES:
        return _POLICIES[(game, variant)]
    return _POLICIES.get(game)


def policy_for(rules_id: str, view: Json) -> Policy:
    """Return the policy that decides for this view: the dedicated one, else the generic fallback."""
    return dedicated(rules_id, view) or FALLBACK


for _workshop, _policy in speedmosaik.WORKSHOP_POLICIES.items():
    register(speedmosaik.GAME, _policy, variant=_workshop)
register(speednova_bots.GAME, speednova_bots.POLICY)
register(speedkoi_bots.GAME, speedkoi_bots.POLICY)
register(speedspore_bots.GAME, speedspore_bots.POLICY)

__all__ = ["FALLBACK", "dedicated", "policy_for", "register", "variant_of"]
