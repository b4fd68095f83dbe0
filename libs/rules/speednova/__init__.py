"""Speednova as rule modules ``speednova@1`` and ``speednova@2``: hex star map, six colours, weakest colour wins;
teams (in version 2 their signals are side moves, kept in the team's log); solo."""

from libs.rules.speednova.module import MODULE, MODULE_V2, Speednova

__all__ = ["MODULE", "MODULE_V2", "Speednova"]
