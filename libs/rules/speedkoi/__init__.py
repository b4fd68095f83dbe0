"""Speedkoi: lanterns, five paths, pilgrims and a master (``speedkoi@1``; docs/rules/speedkoi.md)."""

from libs.rules.speedkoi.module import MODULE, SPEC

__all__ = ["MODULE", "SPEC"]
