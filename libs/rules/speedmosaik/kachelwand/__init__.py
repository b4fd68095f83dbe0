"""Kachelwand: the base form of Speedmosaik (pattern lines, a wall, a floor)."""

from libs.rules.speedmosaik.kachelwand.workshop import WORKSHOP, Kachelwand

__all__ = ["WORKSHOP", "Kachelwand"]
