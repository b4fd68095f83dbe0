"""Speednova's German sentences, built from data (key and params let a client translate or re-render them)."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json, phrase_json
from libs.rules.speednova.tiles import COLOUR_NAMES, COLOURS


def seat_name(seat: int) -> str:
    """Return how a seat is named in texts: "Platz 1" (seats are 0-based in data)."""
    return f"Platz {seat + 1}"


def effect(key: str, text: str, visible_to: tuple[int, ...] | None = None, **params: Any) -> Json:
    """Return an effect ``{"key", "params", "text"}``; with ``visible_to`` only those seats read it."""
    body = phrase_json(f"speednova.{key}", text, params)
    if visible_to is not None:
        body["visible_to"] = sorted(visible_to)
    return body


def phrase(key: str, text: str, **params: Any) -> Json:
    """Return a phrase for a view or preview (same shape as an effect)."""
    return phrase_json(f"speednova.{key}", text, params)


def points_text(points: dict[int, int]) -> str:
    """Return the points per colour as the text shows them: "Komet +3 · Nebel +1" ("keine Punkte" for none)."""
    shown = [f"{COLOUR_NAMES[colour]} +{value}" for colour, value in points.items()]
    return " · ".join(shown) if points else "keine Punkte"


def sum_text(name: str, parts: list[int]) -> str:
    """Return a computation: "Komet 2 + 1 = 3", "Komet 2" for one part, "Komet 0" for none."""
    if not parts:
        return f"{name} 0"
    if len(parts) == 1:
        return f"{name} {parts[0]}"
    return f"{name} {' + '.join(str(part) for part in parts)} = {sum(parts)}"


def end_line_text(colour: int, gains: tuple[int, ...]) -> str:
    """Return the end table's line for a colour: "Riese 9 = 3 + 2 + 4" (each placement's points)."""
    total = sum(gains)
    if not gains:
        return f"{COLOUR_NAMES[colour]} 0"
    return f"{COLOUR_NAMES[colour]} {total} = {' + '.join(str(gain) for gain in gains)}"


def colour_list(colours: list[int] | tuple[int, ...]) -> str:
    """Return colour names joined German-style: "Komet", "Komet und Nebel", "Komet, Nebel und Riese"."""
    names = [COLOUR_NAMES[colour] for colour in colours]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " und " + names[-1]


def colour_keys(colours: list[int] | tuple[int, ...]) -> list[str]:
    """Return colour keys for params."""
    return [COLOURS[colour] for colour in colours]
