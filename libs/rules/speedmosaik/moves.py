"""Checks every workshop applies when it reads a move's JSON (the engine has made sure it is an object)."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import IllegalMove


def is_int(value: Any) -> bool:
    """Return True for a JSON integer (booleans are not numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def malformed() -> IllegalMove:
    """Return the refusal of a move whose JSON shape is unknown."""
    return IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")


def factory_index(number: Any, factories: int) -> int:
    """Return the 0-based factory a move names by its 1-based ``"schale"``; raise IllegalMove if there is none."""
    if not is_int(number) or not 1 <= number <= factories:
        raise IllegalMove(f"Es gibt nur die Schalen 1 bis {factories}.", "no_such_factory")
    return int(number) - 1
