"""German sentences built from structured data (the key and params let clients translate)."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import ComputationLine, Json, Phrase, phrase_json


def seat_name(seat: int) -> str:
    """Return how a seat is named in player-facing text (the module knows no names): "Platz 1"."""
    return f"Platz {seat + 1}"


def tiles_word(count: int) -> str:
    """Return "Fliese" or "Fliesen" for a count."""
    return "Fliese" if count == 1 else "Fliesen"


def points_word(points: int) -> str:
    """Return "1 Punkt" or "5 Punkte"."""
    return f"{points} Punkt" if points in (1, -1) else f"{points} Punkte"


def signed(points: int) -> str:
    """Return points with sign and a real minus sign: "+5", "−3", "0"."""
    if points > 0:
        return f"+{points}"
    if points < 0:
        return f"−{-points}"
    return "0"


def phrase(key: str, text: str, **params: Any) -> Phrase:
    """Return a Phrase with the given key, German text and params."""
    return Phrase(key=key, params=params, text=text)


def effect(key: str, text: str, **params: Any) -> Json:
    """Return an effect (a German log line) as JSON: ``{"key", "params", "text"}``."""
    return phrase_json(key, text, params)


def lines_json(lines: tuple[ComputationLine, ...]) -> list[Json]:
    """Return computation lines ("Rechenweg") as JSON data."""
    return [line.to_json() for line in lines]


def lines_from_json(items: list[Json]) -> tuple[ComputationLine, ...]:
    """Return computation lines read back from their JSON (a view's Rechenweg, for determinize)."""
    return tuple(
        ComputationLine(label=item["label"], points=item["points"], key=item["key"], params=dict(item["params"]))
        for item in items
    )
