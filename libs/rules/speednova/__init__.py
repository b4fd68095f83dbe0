"""Speednova as rule module ``speednova@1``: hex star map, six colours, weakest colour wins; teams; solo."""

from libs.rules.speednova.module import MODULE, Speednova

__all__ = ["MODULE", "Speednova"]
