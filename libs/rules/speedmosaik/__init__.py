"""Speedmosaik as rule module ``speedmosaik@1``: the workshops Kachelwand, Kirchenfenster and Sternpavillon."""

from libs.rules.speedmosaik.module import MODULE, Speedmosaik

__all__ = ["MODULE", "Speedmosaik"]
