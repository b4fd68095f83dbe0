"""The star map: a hexagon of hex cells (radius 5, 6 or 7: 91, 127 or 169 cells) and its fixed tables.

Cells are numbered row by row (axial ``r`` from −radius to +radius, then ``q`` ascending). The six
directions, in axial ``(dq, dr)``: 0 east ``(1, 0)``, 1 north-east ``(1, −1)``, 2 north-west ``(0, −1)``,
3 west ``(−1, 0)``, 4 south-west ``(−1, 1)``, 5 south-east ``(0, 1)``; the opposite of ``d`` is
``(d + 3) % 6``. Every table is made once per radius (``board(radius)``), so rules only index tuples.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
CANONICAL_DIRECTIONS: tuple[int, ...] = (0, 1, 2)
"""Legal moves name each pair of neighbouring cells once: from the cell whose partner lies east, north-east or
north-west of it."""
INNER_RADIUS = 5
"""The inner map (91 cells); its six corners hold the Leitsterne."""
FREE = -1


@dataclass(frozen=True, slots=True)
class Board:
    """A map's fixed tables: coordinates, neighbours, the Leitsterne and every pair of neighbouring cells."""

    radius: int
    coords: tuple[tuple[int, int], ...]
    """Per cell its axial ``(q, r)``."""
    neighbours: tuple[tuple[int, ...], ...]
    """Per cell, per direction, the neighbouring cell (−1 beyond the edge)."""
    leitsterne: tuple[int, ...]
    """Per colour index, the cell of its Leitstern (the inner map's corner in direction ``colour``)."""
    leit_adjacent: tuple[frozenset[int], ...]
    """Per colour index, the cells next to its Leitstern."""
    pairs: tuple[tuple[int, int, int], ...]
    """Every pair of neighbouring cells once, as ``(cell, direction, partner)`` with a canonical direction."""

    @property
    def size(self) -> int:
        """The number of cells."""
        return len(self.coords)


@cache
def board(radius: int) -> Board:
    """Return the map of this radius (5, 6 or 7), built once."""
    coords = tuple((q, r) for r in range(-radius, radius + 1) for q in range(-radius, radius + 1)
                   if max(abs(q), abs(r), abs(q + r)) <= radius)
    index = {cell: number for number, cell in enumerate(coords)}
    neighbours = tuple(tuple(index.get((q + dq, r + dr), -1) for dq, dr in DIRECTIONS) for q, r in coords)
    leitsterne = tuple(index[(INNER_RADIUS * dq, INNER_RADIUS * dr)] for dq, dr in DIRECTIONS)
    leit_adjacent = tuple(frozenset(cell for cell in neighbours[star] if cell >= 0) for star in leitsterne)
    pairs = tuple((cell, direction, neighbours[cell][direction]) for cell in range(len(coords))
                  for direction in CANONICAL_DIRECTIONS if neighbours[cell][direction] >= 0)
    return Board(radius=radius, coords=coords, neighbours=neighbours, leitsterne=leitsterne,
                 leit_adjacent=leit_adjacent, pairs=pairs)


def radius_for(seats: int) -> int:
    """Return the map's radius for a table size: 5 (91 cells) alone and for two, 6 (127) for three, 7 (169) for four."""
    return {1: 5, 2: 5, 3: 6, 4: 7}[seats]


def greedy_pairs(cells: tuple[int, ...], neighbours: tuple[tuple[int, ...], ...]) -> int:
    """Return how many double stars still fit, counted greedily (README): cells in order, each free cell paired
    with its first free, unpaired neighbour. 0 exactly when no two neighbouring cells are free."""
    taken = [value != FREE for value in cells]
    count = 0
    for cell, row in enumerate(neighbours):
        if taken[cell]:
            continue
        for other in row:
            if other >= 0 and not taken[other]:
                taken[cell] = taken[other] = True
                count += 1
                break
    return count
