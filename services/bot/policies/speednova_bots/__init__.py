"""Speednova's computer players: easy, normal, strong, team partners' signals and advice (see ``policy.py``)."""

from __future__ import annotations

from services.bot.policies.speednova_bots.policy import POLICY, SpeednovaPolicy

GAME = "speednova"

__all__ = ["GAME", "POLICY", "SpeednovaPolicy"]
