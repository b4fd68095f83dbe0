"""Speedmosaik: the Kachelwand workshop (fixed wall, no jokers) as rule module ``speedmosaik@1``."""

from libs.rules.speedmosaik.module import MODULE, Speedmosaik

__all__ = ["MODULE", "Speedmosaik"]
