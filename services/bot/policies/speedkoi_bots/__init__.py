"""Speedkoi's computer players (one policy for classic and Laternenfest); see ``policy.py``."""

from __future__ import annotations

from services.bot.policies.speedkoi_bots.policy import POLICY

GAME = "speedkoi"

__all__ = ["GAME", "POLICY"]
