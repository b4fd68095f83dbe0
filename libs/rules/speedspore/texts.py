"""German sentences of Speedspore, built from data (``{"key", "params", "text"}``)."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json, phrase_json
from libs.rules.speedspore.material import KIND_NAMES, KINDS

_SCALARS = frozenset({str, int, float, bool, type(None)})


def effect(key: str, text: str, visible_to: tuple[int, ...] | None = None, **params: Any) -> Json:
    """Return an effect (a German log line); ``visible_to`` limits who reads it."""
    for value in params.values():
        if type(value) not in _SCALARS:
            body = phrase_json(f"speedspore.{key}", text, params)
            break
    else:  # numbers and words only: ``params`` (a new dict) is plain JSON as it is, as phrase_json would copy it
        body = {"key": f"speedspore.{key}", "params": params, "text": text}
    if visible_to is not None:
        body["visible_to"] = list(visible_to)
    return body


def seat_name(seat: int) -> str:
    """Return "Platz 1" for seat 0."""
    return f"Platz {seat + 1}"


def bundle_words(counts: tuple[int, ...]) -> str:
    """Return "2 Humus und 1 Moos" ("nichts" for an empty bundle)."""
    parts = [f"{count} {KIND_NAMES[kind]}" for kind, count in enumerate(counts) if count]
    if not parts:
        return "nichts"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " und " + parts[-1]


def bundle_json(counts: tuple[int, ...]) -> dict[str, int]:
    """Return ``{"humus": 2, "moos": 1}`` (kinds with a count only)."""
    return {KINDS[kind]: count for kind, count in enumerate(counts) if count}
