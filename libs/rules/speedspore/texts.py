"""German sentences of Speedspore, built from data (``{"key", "params", "text"}``)."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json, phrase_json
from libs.rules.speedspore.material import KIND_NAMES, KINDS

_SCALARS = frozenset({str, int, float, bool, type(None)})


def effect(key: str, text: str, visible_to: tuple[int, ...] | None = None, **params: Any) -> Json:
    """Return an effect (a German log line); ``visible_to`` limits who reads it."""
    for name, value in params.items():
        if type(value) not in _SCALARS:
            flat = _flat_copy(value)
            if flat is None:
                body = phrase_json(f"speedspore.{key}", text, params)
                break
            params[name] = flat
    else:  # ``params`` (a new dict) now holds plain JSON only, as phrase_json would have copied it
        body = {"key": f"speedspore.{key}", "params": params, "text": text}
    if visible_to is not None:
        body["visible_to"] = list(visible_to)
    return body


def _flat_copy(value: Any) -> Any:
    """Return a copy of a list or tuple of numbers and words (as a list) or of such a dict with word keys;
    None for anything else (left to ``phrase_json``)."""
    kind = type(value)
    if kind is list or kind is tuple:
        return list(value) if all(type(item) in _SCALARS for item in value) else None
    if kind is dict and all(type(name) is str and type(item) in _SCALARS for name, item in value.items()):
        return dict(value)
    return None


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
