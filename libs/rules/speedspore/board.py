"""Speedspore's board geometry: 19 fields, 54 corners, 72 edges and the 9 gully positions, with integer ids.

Canonical order (docs/rules/speedspore.md, "Brett"):

- Fields are the hexes of a radius-2 hex grid (pointy top), numbered row by row from the top, left to right:
  rows of 3, 4, 5, 4, 3 fields (ids 0–2, 3–6, 7–11, 12–15, 16–18; the centre is 9).
- Corners are the hex vertices, numbered by their position from the top down, left to right within a
  height (ids 0–53).
- Edges join two corners of one field, numbered by (smaller corner id, larger corner id) (ids 0–71).
- The 30 coast edges (edges of only one field) are counted clockwise from the top (coast edge 0 joins corners
  1 and 5). A gully serves the two corners of its coast edge. Where the nine gullys stand depends on the rules
  version (``GULLY_COAST_INDICES``): since ``speedspore@2`` on the published frame, coast edges 0, 4, 7, 10,
  14, 17, 20, 24, 27 (the frame's 18 sea hexes alternate gully and open sea, so no two gullys are
  neighbours); ``speedspore@1`` used coast edges 0, 3, 6, 10, 13, 16, 20, 23, 26 and keeps them for its logs.

Everything here is computed once at import and kept in tuples (the rules only index into them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

FIELD_COUNT = 19
CORNER_COUNT = 54
EDGE_COUNT = 72
GULLY_COUNT = 9

_VERTEX_OFFSETS: tuple[tuple[int, int], ...] = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))
"""A pointy-top hex's vertices around its centre in integer units (x: √3/2, y: 1/2), clockwise from the top."""

GULLY_COAST_INDICES: dict[int, tuple[int, ...]] = {
    1: (0, 3, 6, 10, 13, 16, 20, 23, 26),
    2: (0, 4, 7, 10, 14, 17, 20, 24, 27),
}
"""Per rules version the coast edges (clockwise from the top) the nine gully positions 0–8 stand on.

Version 2 is the published frame (docs/rules/speedspore.md, "Brett"); version 1's positions (three pairs of
neighbouring gullys, only coast edges 0, 10 and 20 on the published frame) stay for the logs written with it."""


def _axial() -> tuple[tuple[int, int], ...]:
    """Return the fields' axial coordinates (q, r), row by row from the top, left to right."""
    cells = [(q, r) for r in range(-2, 3) for q in range(-2, 3) if abs(q + r) <= 2]
    return tuple(cells)


FIELD_AXIAL: tuple[tuple[int, int], ...] = _axial()
FIELD_CENTRES: tuple[tuple[int, int], ...] = tuple((2 * q + r, 3 * r) for q, r in FIELD_AXIAL)
"""Per field its centre in integer units (x: √3/2, y: 1/2); the centre field 9 is at (0, 0)."""


def _corners() -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...]]:
    points = sorted({(cx + dx, cy + dy) for cx, cy in FIELD_CENTRES for dx, dy in _VERTEX_OFFSETS},
                    key=lambda p: (p[1], p[0]))
    index = {point: number for number, point in enumerate(points)}
    field_corners = tuple(tuple(index[(cx + dx, cy + dy)] for dx, dy in _VERTEX_OFFSETS)
                          for cx, cy in FIELD_CENTRES)
    return tuple(points), field_corners


CORNER_POINTS, FIELD_CORNERS = _corners()
"""CORNER_POINTS: per corner its position (same units); FIELD_CORNERS: per field its six corners clockwise from
the top."""


def _edges() -> tuple[tuple[int, int], ...]:
    pairs: set[tuple[int, int]] = set()
    for ring in FIELD_CORNERS:
        for i in range(6):
            a, b = ring[i], ring[(i + 1) % 6]
            pairs.add((min(a, b), max(a, b)))
    return tuple(sorted(pairs))


EDGE_CORNERS: tuple[tuple[int, int], ...] = _edges()
"""Per edge its two corners (smaller id first)."""
_EDGE_INDEX: dict[tuple[int, int], int] = {pair: number for number, pair in enumerate(EDGE_CORNERS)}


def edge_between(a: int, b: int) -> int:
    """Return the edge joining corners a and b (KeyError if they are not neighbours)."""
    return _EDGE_INDEX[(min(a, b), max(a, b))]


FIELD_EDGES: tuple[tuple[int, ...], ...] = tuple(
    tuple(edge_between(ring[i], ring[(i + 1) % 6]) for i in range(6)) for ring in FIELD_CORNERS)
"""Per field its six edges clockwise, starting with the edge from its top corner."""

CORNER_FIELDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(field for field, ring in enumerate(FIELD_CORNERS) if corner in ring) for corner in range(len(CORNER_POINTS)))
"""Per corner the fields it touches (1 to 3), ascending."""

CORNER_EDGES: tuple[tuple[int, ...], ...] = tuple(
    tuple(edge for edge, pair in enumerate(EDGE_CORNERS) if corner in pair) for corner in range(len(CORNER_POINTS)))
"""Per corner its edges (2 or 3), ascending."""

CORNER_NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(EDGE_CORNERS[edge][0] if EDGE_CORNERS[edge][1] == corner else EDGE_CORNERS[edge][1]
          for edge in CORNER_EDGES[corner]) for corner in range(len(CORNER_POINTS)))
"""Per corner its neighbouring corners, in the order of ``CORNER_EDGES`` (neighbour i lies along edge i)."""

EDGE_NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({other for corner in pair for other in CORNER_EDGES[corner] if other != edge}))
    for edge, pair in enumerate(EDGE_CORNERS))
"""Per edge the edges sharing a corner with it."""

FIELD_NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(other for other in range(len(FIELD_CORNERS))
          if other != field and len(set(FIELD_CORNERS[field]) & set(FIELD_CORNERS[other])) == 2)
    for field in range(len(FIELD_CORNERS)))
"""Per field the fields sharing an edge with it, ascending."""


def _coast() -> tuple[int, ...]:
    counts = [0] * len(EDGE_CORNERS)
    for edges in FIELD_EDGES:
        for edge in edges:
            counts[edge] += 1
    coast = [edge for edge, count in enumerate(counts) if count == 1]

    def angle(edge: int) -> float:
        (ax, ay), (bx, by) = CORNER_POINTS[EDGE_CORNERS[edge][0]], CORNER_POINTS[EDGE_CORNERS[edge][1]]
        mx, my = (ax + bx) * math.sqrt(3) / 4, (ay + by) / 4  # real coordinates (y grows downwards)
        return math.atan2(mx, -my) % (2 * math.pi)  # 0 at the top, growing clockwise

    return tuple(sorted(coast, key=angle))


COAST_EDGES: tuple[int, ...] = _coast()
"""The 30 coast edges, clockwise from the top."""

GULLY_EDGES: dict[int, tuple[int, ...]] = {
    version: tuple(COAST_EDGES[index] for index in indices) for version, indices in GULLY_COAST_INDICES.items()}
"""Per rules version, per gully position 0–8 its coast edge (clockwise from the top); a state keeps its own
(``SporeState.gully_edges``)."""


@dataclass(frozen=True, slots=True)
class GullyFrame:
    """Where the nine gullys of one island stand: per position its coast edge and corners, per corner its gully."""

    edges: tuple[int, ...]
    """Per gully position its coast edge."""
    corners: tuple[tuple[int, int], ...]
    """Per gully position its two corners (smaller id first)."""
    corner_gully: tuple[int, ...]
    """Per corner the gully position it is connected to, or -1."""


@lru_cache(maxsize=16)
def gully_frame(edges: tuple[int, ...]) -> GullyFrame:
    """Return the frame of gullys standing on these coast edges (computed once per distinct tuple)."""
    corners = tuple(EDGE_CORNERS[edge] for edge in edges)
    corner_gully = tuple(next((gully for gully, pair in enumerate(corners) if corner in pair), -1)
                         for corner in range(len(CORNER_POINTS)))
    return GullyFrame(edges=tuple(edges), corners=corners, corner_gully=corner_gully)

assert len(FIELD_AXIAL) == FIELD_COUNT and len(CORNER_POINTS) == CORNER_COUNT
assert len(EDGE_CORNERS) == EDGE_COUNT and len(COAST_EDGES) == 30
