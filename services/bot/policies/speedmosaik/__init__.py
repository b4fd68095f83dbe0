"""Speedmosaik bot policies, one per workshop (the game's variant, named by the view's settings)."""

from __future__ import annotations

from services.bot.policies.contract import Policy
from services.bot.policies.speedmosaik import kachelwand, kirchenfenster, sternpavillon

GAME = "speedmosaik"

WORKSHOP_POLICIES: dict[str, Policy] = {
    "kachelwand": kachelwand.POLICY,
    "kirchenfenster": kirchenfenster.POLICY,
    "sternpavillon": sternpavillon.POLICY,
}
"""The dedicated policy of each workshop; a workshop without one is played by the generic fallback."""
