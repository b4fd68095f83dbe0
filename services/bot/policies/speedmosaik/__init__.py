"""Speedmosaik bot policies, one module per workshop, chosen by the workshop the view names."""

from __future__ import annotations

from types import ModuleType

from libs.rules.protocol import Json
from services.bot.policies.speedmosaik import kachelwand, kirchenfenster, sternpavillon

WORKSHOP_POLICIES: dict[str, ModuleType] = {
    "kachelwand": kachelwand,
    "kirchenfenster": kirchenfenster,
    "sternpavillon": sternpavillon,
}


def policy_for(view: Json) -> ModuleType:
    """Return the policy module of the workshop this view belongs to."""
    workshop = str(view.get("einstellungen", {}).get("workshop"))
    if workshop not in WORKSHOP_POLICIES:
        raise ValueError(f"no bot policy for the Speedmosaik workshop {workshop!r}")
    return WORKSHOP_POLICIES[workshop]
