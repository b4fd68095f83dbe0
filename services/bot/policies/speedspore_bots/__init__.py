"""Speedspore's computer players (easy, normal, strong) and its advice; see ``policy.py``."""

from __future__ import annotations

from services.bot.policies.speedspore_bots.policy import POLICY

GAME = "speedspore"

__all__ = ["GAME", "POLICY"]
