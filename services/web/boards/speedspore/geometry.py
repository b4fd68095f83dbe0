"""Speedspore's island geometry for drawing: field centres, corner points and edges in the ids the view uses.

The web may not import the rule module (import-linter), so the same construction as
`libs/rules/speedspore/board.py` is repeated here (docs/rules/speedspore.md, "Brett"); a unit test checks that
both give the same ids. Units: x in √3/2, y in 1/2 of a hex's circumradius; the centre field 9 at (0, 0).
"""

from __future__ import annotations

import math

_VERTEX_OFFSETS: tuple[tuple[int, int], ...] = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))
FIELD_AXIAL: tuple[tuple[int, int], ...] = tuple((q, r) for r in range(-2, 3) for q in range(-2, 3) if abs(q + r) <= 2)
FIELD_CENTRES: tuple[tuple[int, int], ...] = tuple((2 * q + r, 3 * r) for q, r in FIELD_AXIAL)
CORNER_POINTS: tuple[tuple[int, int], ...] = tuple(sorted(
    {(cx + dx, cy + dy) for cx, cy in FIELD_CENTRES for dx, dy in _VERTEX_OFFSETS}, key=lambda p: (p[1], p[0])))
_INDEX = {point: number for number, point in enumerate(CORNER_POINTS)}
FIELD_CORNERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_INDEX[(cx + dx, cy + dy)] for dx, dy in _VERTEX_OFFSETS) for cx, cy in FIELD_CENTRES)
EDGE_CORNERS: tuple[tuple[int, int], ...] = tuple(sorted(
    {(min(ring[i], ring[(i + 1) % 6]), max(ring[i], ring[(i + 1) % 6])) for ring in FIELD_CORNERS for i in range(6)}))

RADIUS = 44.0
"""A hex's circumradius in SVG pixels."""


def point(unit: tuple[int, int]) -> tuple[float, float]:
    """A position in SVG pixels (rounded to 0.1 so the output is short and deterministic)."""
    return round(unit[0] * RADIUS * math.sqrt(3) / 2, 1), round(unit[1] * RADIUS / 2, 1)


def fmt(value: float) -> str:
    """A coordinate as short text: 12.0 → "12", 12.5 → "12.5"."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text

FIELD_LETTERS = "ABCDEFGHIJKLMNOPQRS"
"""Each field's letter as the island shows it (rows from the top, left to right): the words name places by it."""
CORNER_SIDES = ("oben", "oben rechts", "unten rechts", "unten", "unten links", "oben links")
"""A corner's position on its field, in the order of FIELD_CORNERS' rings."""
EDGE_SIDES = ("oben rechts", "rechts", "unten rechts", "unten links", "links", "oben links")
"""An edge's side of its field: ring corners i and i+1."""


def corner_fields(corner: int) -> tuple[int, ...]:
    """The fields that touch a corner, in field order."""
    return tuple(field for field, ring in enumerate(FIELD_CORNERS) if corner in ring)


def edge_fields(edge: int) -> tuple[int, ...]:
    """The fields that share an edge (one on the coast, else two), in field order."""
    a, b = EDGE_CORNERS[edge]
    return tuple(field for field, ring in enumerate(FIELD_CORNERS) if a in ring and b in ring)


def corner_name(corner: int) -> str:
    """A corner in the island's own marks: "Ecke B/C/F" between fields, "Ecke A oben" on the coast of one."""
    fields = corner_fields(corner)
    if len(fields) >= 2:
        return "Ecke " + "/".join(FIELD_LETTERS[f] for f in fields)
    field = fields[0]
    return f"Ecke {FIELD_LETTERS[field]} {CORNER_SIDES[FIELD_CORNERS[field].index(corner)]}"


def edge_name(edge: int) -> str:
    """An edge in the island's marks: "Kante B/C" between two fields, "Kante A oben rechts" on the coast."""
    fields = edge_fields(edge)
    if len(fields) == 2:
        return "Kante " + "/".join(FIELD_LETTERS[f] for f in fields)
    field = fields[0]
    ring = FIELD_CORNERS[field]
    a, b = EDGE_CORNERS[edge]
    side = next(i for i in range(6) if {ring[i], ring[(i + 1) % 6]} == {a, b})
    return f"Kante {FIELD_LETTERS[field]} {EDGE_SIDES[side]}"
