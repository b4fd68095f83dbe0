"""Speedspore: settle an island of ruins with mycel threads, Fruchtkörper and towers (``speedspore@1``)."""

from libs.rules.speedspore.module import MODULE, SPEC

__all__ = ["MODULE", "SPEC"]
