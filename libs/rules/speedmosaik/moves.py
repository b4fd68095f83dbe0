"""Checks every workshop applies when it reads a move's JSON."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import IllegalMove


def is_int(value: Any) -> bool:
    """Return True for a JSON integer (booleans are not numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def malformed() -> IllegalMove:
    """Return the refusal of a move whose JSON shape is unknown."""
    return IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
