"""German sentences of Speedkoi, built from data (``{"key", "params", "text"}``)."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json, phrase_json
from libs.rules.speedkoi.material import (
    BLOSSOM_POINTS,
    COLOUR_NAMES,
    COLOURS,
    FIGURE_NAMES,
    STONE_VALUES,
    TILE_NAMES,
    VALUES,
)
from libs.rules.speedkoi.state import Part

VIA_NAMES: dict[str, str] = {"libelle": "Libelle", "steg": "Steg", "endstein": "statt Endstein"}


def effect(key: str, text: str, **params: Any) -> Json:
    """Return an effect (a German log line)."""
    return phrase_json(f"speedkoi.{key}", text, params)


def seat_name(seat: int) -> str:
    """Return "Platz 1" for seat 0."""
    return f"Platz {seat + 1}"


def lantern_words(code: int) -> str:
    """Return "Gold 7"."""
    return f"{COLOUR_NAMES[code // VALUES]} {code % VALUES}"


def signed(points: int) -> str:
    """Return "+3", "−4" or "0"."""
    if points > 0:
        return f"+{points}"
    return f"−{-points}" if points < 0 else "0"


def tile_words(tile: str) -> str:
    """Return a tile as the last-move line says it: "Perle", "Blüte +2", "Libelle"."""
    if tile in BLOSSOM_POINTS:
        return f"Blüte +{BLOSSOM_POINTS[tile]}"
    return TILE_NAMES[tile]


def part_text(part: Part) -> str:
    """Return one part of a seat's last move: "legte Gold 7", "Pilger Gold → Stein 5", "nahm Indigo 3"."""
    kind = part[0]
    if kind == "legte":
        return f"legte {lantern_words(int(part[1]))}"
    if kind == "warf":
        return f"warf {lantern_words(int(part[1]))} ab"
    if kind == "figur":
        _, art, path, stone, via = part
        prefix = f"{VIA_NAMES[str(via)]}: " if via else ""
        return f"{prefix}{FIGURE_NAMES[str(art)]} {COLOUR_NAMES[int(path)]} → Stein {stone}"
    if kind == "plaettchen":
        return tile_words(str(part[1]))
    if kind == "teehaus":
        return f"Teehaus {signed(int(part[1]))}"
    if kind == "nur_reihe":
        return "nur Reihe"
    if kind == "verzichtet":
        return f"ohne {VIA_NAMES[str(part[1])]}"
    if kind == "koi":
        return f"Koi: nahm {lantern_words(int(part[1]))}"
    if kind == "nahm":
        return f"nahm {lantern_words(int(part[1]))}"
    if kind == "zog":
        return "zog verdeckt"
    return str(kind)


def part_json(part: Part) -> list[Any]:
    """Return a part as JSON data (a list); lanterns as ``{"farbe", "wert"}``, paths as colour ids."""
    kind = part[0]
    if kind in ("legte", "warf", "koi", "nahm"):
        code = int(part[1])
        return [kind, COLOURS[code // VALUES], code % VALUES]
    if kind == "figur":
        return [kind, part[1], COLOURS[int(part[2])], part[3], part[4]]
    return list(part)


def part_from_json(data: list[Any]) -> Part:
    """Return the part that ``part_json`` wrote."""
    kind = data[0]
    if kind in ("legte", "warf", "koi", "nahm"):
        return (kind, COLOURS.index(data[1]) * VALUES + int(data[2]))
    if kind == "figur":
        return (kind, str(data[1]), COLOURS.index(data[2]), int(data[3]), str(data[4]))
    if kind == "teehaus":
        return (kind, int(data[1]))
    return tuple(data)


def last_move(seat: int, parts: tuple[Part, ...]) -> Json | None:
    """Return a seat's last move as a phrase: "legte Gold 7 · Pilger Gold → Stein 5 · nahm Indigo 3"."""
    if not parts:
        return None
    return phrase_json("speedkoi.zuletzt", " · ".join(part_text(part) for part in parts),
                       {"platz": seat + 1, "teile": [part_json(part) for part in parts]})


def stone_words(stone: int) -> str:
    """Return "Stein 5 (2)"."""
    return f"Stein {stone} ({signed(STONE_VALUES[stone])})"
