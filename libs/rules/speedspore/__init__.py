"""Speedspore: settle an island of ruins with mycel threads, Fruchtkörper and towers (``speedspore@2``; version 1
stays registered for its logs)."""

from libs.rules.speedspore.module import MODULE, MODULE_V1, SPEC, SPEC_V1

__all__ = ["MODULE", "MODULE_V1", "SPEC", "SPEC_V1"]
