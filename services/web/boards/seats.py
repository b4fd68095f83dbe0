"""How every page and board names a seat: by its player's name, never "Platz 2" (a place is a rank).

The rule modules know no names and write seats as "Platz N" (counted from 1) into their recorded texts; `named`
puts the seat's name in for display (the records themselves never change)."""

from __future__ import annotations

import re
from typing import Any

SEAT_WORD = re.compile(r"\bPlatz (\d{1,2})\b")
"""A seat in a rule module's text: "Platz 2"."""


def seat_name(view: dict[str, Any], seat: Any) -> str:
    """The seat's name as the table has it (a guest's, a computer's "Computer 1"); "Spieler 2" only without one."""
    seats = view.get("seats") or []
    if isinstance(seat, int) and 0 <= seat < len(seats) and isinstance(seats[seat], dict) and seats[seat].get("name"):
        return str(seats[seat]["name"])
    return f"Spieler {seat + 1}" if isinstance(seat, int) else "Spieler"


def named(text: str, view: dict[str, Any]) -> str:
    """A recorded text with "Platz N" (seat N, counted from 1) replaced by that seat's name; a number beyond the
    table's seats stays as it is."""
    seats = view.get("seats") or []

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1)) - 1
        return seat_name(view, seat) if 0 <= seat < len(seats) else match.group(0)

    return SEAT_WORD.sub(name, text)


def preview_body(preview: Any) -> dict[str, Any]:
    """The preview itself, whether given as the table's answer `{"move", "preview"}` or already unwrapped."""
    if isinstance(preview, dict) and isinstance(preview.get("preview"), dict):
        return dict(preview["preview"])
    return dict(preview) if isinstance(preview, dict) else {}
