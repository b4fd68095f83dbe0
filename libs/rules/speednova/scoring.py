"""Line scoring: what a half would score on each free cell, placements' points with the track's cap, the best
placement of a double star.

A half of colour c on a free cell scores, in each of the five directions away from its partner, the number of
c-stars directly behind each other from the next cell on (README: stop at a free cell, another colour or the
edge). Its partner's cell is free until the tile lies, so that direction always counts 0: a half's points
are the sum over all six directions, and both halves score independently of each other. ``analysis`` does
this walk once per board (cached by the cells), so previews, views and bots only look values up.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from libs.rules.speednova.board import FREE, board
from libs.rules.speednova.tiles import N_COLOURS, TILE_COLOURS

ZERO = (0,) * N_COLOURS
Line = tuple[int, int, int]
"""A scored line seen from a free cell: (direction, colour, stars in a row)."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """Per free cell: the star lines it touches, and what a half of each colour would score there."""

    lines: tuple[tuple[Line, ...], ...]
    values: tuple[tuple[int, ...], ...]
    """Per cell, per colour: the points a half of that colour on this (free) cell scores."""


@lru_cache(maxsize=1024)
def analysis(radius: int, cells: tuple[int, ...]) -> Analysis:
    """Return the line analysis of a board (cached: views, previews and bots ask for the same board often)."""
    neighbours = board(radius).neighbours
    lines: list[tuple[Line, ...]] = [()] * len(cells)
    values: list[tuple[int, ...]] = [ZERO] * len(cells)
    for cell, colour_here in enumerate(cells):
        if colour_here != FREE:
            continue
        found: list[Line] = []
        row = neighbours[cell]
        for direction in range(6):
            step = row[direction]
            if step < 0:
                continue
            colour = cells[step]
            if colour == FREE:
                continue
            run = 0
            while step >= 0 and cells[step] == colour:
                run += 1
                step = neighbours[step][direction]
            found.append((direction, colour, run))
        if found:
            lines[cell] = tuple(found)
            value = [0] * N_COLOURS
            for _direction, colour, run in found:
                value[colour] += run
            values[cell] = tuple(value)
    return Analysis(lines=tuple(lines), values=tuple(values))


def line_cells(radius: int, cell: int, direction: int, run: int) -> list[int]:
    """Return the cells of a scored line in order, from the one next to ``cell`` outwards."""
    neighbours = board(radius).neighbours
    cells: list[int] = []
    step = neighbours[cell][direction]
    for _ in range(run):
        cells.append(step)
        step = neighbours[step][direction]
    return cells


def capped(track: tuple[int, ...], top: int, first: int, raw_first: int, second: int,
           raw_second: int) -> dict[int, int]:
    """Return the points per colour a placement adds to a track (never beyond ``top``), colours in half order."""
    if first == second:
        return {first: max(0, min(raw_first + raw_second, top - track[first]))}
    return {first: max(0, min(raw_first, top - track[first])), second: max(0, min(raw_second, top - track[second]))}


def free_pairs(cells: tuple[int, ...], radius: int) -> list[tuple[int, int, int]]:
    """Return every pair of neighbouring free cells as (cell, canonical direction, partner)."""
    return [pair for pair in board(radius).pairs if cells[pair[0]] == FREE and cells[pair[2]] == FREE]


def start_pairs(cells: tuple[int, ...], radius: int, open_leitsterne: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """Return the free pairs a first double star may take: one half beside a Leitstern nobody started at.

    If none is left (eigene Festlegung; unreachable in a normal game), any free pair is allowed."""
    near: set[int] = set()
    adjacent = board(radius).leit_adjacent
    for colour in open_leitsterne:
        near |= adjacent[colour]
    pairs = [pair for pair in free_pairs(cells, radius) if pair[0] in near or pair[2] in near]
    return pairs or free_pairs(cells, radius)


def best_for_tile(values: tuple[tuple[int, ...], ...], pairs: list[tuple[int, int, int]], track: tuple[int, ...],
                  top: int, code: int) -> tuple[int, int, int, int, int] | None:
    """Return the placement of a double star that adds the most points now: (points, cell, direction, colour on
    cell, colour on partner); the first in the pairs' order among equals (lower colour on the cell first)."""
    low, high = TILE_COLOURS[code]
    orientations = ((low, high),) if low == high else ((low, high), (high, low))
    best: tuple[int, int, int, int, int] | None = None
    room = [top - value for value in track]
    for cell, direction, partner in pairs:
        here, there = values[cell], values[partner]
        if not (here[low] or here[high] or there[low] or there[high]):
            # Scores nothing either way round: only the first such pair can be the best (all others zero).
            if best is None:
                best = (0, cell, direction, low, high)
            continue
        for first, second in orientations:
            if first == second:
                points = min(here[first] + there[second], room[first])
            else:
                points = min(here[first], room[first]) + min(there[second], room[second])
            if best is None or points > best[0]:
                best = (points, cell, direction, first, second)
    return best
