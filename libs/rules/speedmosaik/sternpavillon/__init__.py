"""Sternpavillon: six colours, six rounds, a new joker colour each round, seven stars and bonus places."""

from libs.rules.speedmosaik.sternpavillon.workshop import WORKSHOP, Sternpavillon

__all__ = ["WORKSHOP", "Sternpavillon"]
