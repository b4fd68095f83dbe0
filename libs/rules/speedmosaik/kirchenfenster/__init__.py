"""Kirchenfenster: strips under a Glasermeister, windows below them, a palace scored at the end."""

from libs.rules.speedmosaik.kirchenfenster.workshop import WORKSHOP, Kirchenfenster

__all__ = ["WORKSHOP", "Kirchenfenster"]
