"""How the Speednova computer players value points on a track, and the fast search for a rack's best placement.

A half's points depend only on its cell and colour (``scoring.analysis``: per free cell, per colour), and a
track's value is a sum over its colours, so every placement's value is a table look-up per half: a
``Gains`` holds, per colour, the value of adding ``k`` raw points to that colour (capped at the track's top,
Supernova included). The levels differ only in these tables:

- easy: the points themselves (``points``);
- normal: points, three times in the weakest colours, plus a Supernova bonus (``weakest_first``);
- strong: every colour by how weak it is, ``τ·(1 − e^(−v/τ))`` with ``τ`` a third of the top, so a point
  on a colour at 0 is worth 1 and the same point on a strong colour little (``balanced``).

Pure functions over the rule module's own tables; nothing here changes a state.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import add

from libs.rules.speednova.board import FREE, board
from libs.rules.speednova.scoring import Analysis
from libs.rules.speednova.state import NovaState
from libs.rules.speednova.tiles import N_COLOURS, TILE_COLOURS

Pair = tuple[int, int, int]
"""A pair of neighbouring free cells as the rules list it: (cell, canonical direction, partner)."""

WEAKEST_WEIGHT = 3.0
"""Normal: a point in one of the weakest colours counts three times."""
NORMAL_NOVA = 3.0
"""Normal: what igniting a Supernova (one more placement right away) is worth, in its points."""
STRONG_NOVA = 2.0
"""Strong: the same in its units, where it cannot look at the bonus placement itself."""
TAU_PARTS = 3.0
"""Strong: the worth's scale is the track's top divided by this (a point on a colour at 0 is worth 1)."""
MAX_RAW = 64
"""More raw points than a half (or a double star) can score on any map; tables are this long."""


@dataclass(frozen=True, slots=True)
class Gains:
    """Per colour, the value of ``k`` more raw points (index ``k``), capped at the track's top."""

    tables: tuple[tuple[float, ...], ...]

    def half(self, colour: int, raw: int) -> float:
        """Return the value of one half's raw points in ``colour``."""
        return self.tables[colour][raw]

    def placement(self, first: int, raw_first: int, second: int, raw_second: int) -> float:
        """Return the value of a placement's raw points (a double star of one colour caps both halves together)."""
        if first == second:
            return self.tables[first][raw_first + raw_second]
        return self.tables[first][raw_first] + self.tables[second][raw_second]


def _crossings(value: int, after: int, thresholds: Sequence[int]) -> int:
    return sum(1 for threshold in thresholds if value < threshold <= after)


@lru_cache(maxsize=4096)
def _row(kind: str, value: int, top: int, thresholds: tuple[int, ...], weight: float, nova: float,
         tau: float = 1.0) -> tuple[float, ...]:
    """Return one colour's table (cached: decisions ask for the same few rows over and over)."""
    room = max(0, top - value)
    if kind == "points":
        return tuple(float(min(k, room)) for k in range(MAX_RAW))
    if kind == "weakest":
        return tuple(weight * min(k, room) + nova * _crossings(value, value + min(k, room), thresholds)
                     for k in range(MAX_RAW))
    base = worth(value, tau)
    return tuple(weight * (worth(value + min(k, room), tau) - base)
                 + nova * _crossings(value, value + min(k, room), thresholds) for k in range(MAX_RAW))


def points(track: Sequence[int], top: int) -> Gains:
    """Easy: the capped points themselves."""
    return Gains(tuple(_row("points", value, top, (), 1.0, 0.0) for value in track))


def weakest_first(track: Sequence[int], top: int, thresholds: Sequence[int],
                  weights: Sequence[float] | None = None) -> Gains:
    """Normal: capped points, ``WEAKEST_WEIGHT`` times in the weakest colours, plus ``NORMAL_NOVA`` per Supernova."""
    low = min(track)
    return Gains(tuple(_row("weakest", value, top, tuple(thresholds),
                            (WEAKEST_WEIGHT if value == low else 1.0) * (1.0 if weights is None else weights[colour]),
                            NORMAL_NOVA)
                       for colour, value in enumerate(track)))


def scale(top: int) -> float:
    """Return the strong worth's scale ``τ`` on a track to ``top``: a ``TAU_PARTS``-th of it."""
    return top / TAU_PARTS


def worth(value: float, tau: float) -> float:
    """Strong: the worth of a colour at ``value`` for the scale ``tau`` (concave: weak colours gain most)."""
    return tau * (1.0 - math.exp(-value / tau))


def balanced(track: Sequence[int], top: int, thresholds: Sequence[int], weights: Sequence[float] | None = None,
             nova: float = STRONG_NOVA, tau: float | None = None) -> Gains:
    """Strong: the gain in ``worth`` per colour (times the colour's weight), plus ``nova`` per Supernova."""
    tau = scale(top) if tau is None else tau
    return Gains(tuple(_row("worth", value, top, tuple(thresholds), 1.0 if weights is None else weights[colour], nova,
                            tau) for colour, value in enumerate(track)))


def raw_columns(scan: Analysis) -> tuple[tuple[int, ...], ...]:
    """Return per colour, per cell, the raw points a half of that colour scores there (0 on taken cells)."""
    values = scan.values
    return tuple(tuple(row[colour] for row in values) for colour in range(N_COLOURS))


def best_value(pairs: Sequence[Pair], raws: tuple[tuple[int, ...], ...], gains: Gains, codes: Iterable[int]) -> float:
    """Return the best value any of ``codes`` (tile codes) reaches on any of ``pairs``, either way round; 0 if none.

    Runs per tile in C-level loops (``map``), since strong decisions call it for every candidate and sample.
    """
    if not pairs:
        return 0.0
    cells = [pair[0] for pair in pairs]
    partners = [pair[2] for pair in pairs]
    best = 0.0
    for code in set(codes):
        low, high = TILE_COLOURS[code]
        if low == high:
            raw = raws[low]
            table = gains.tables[low]
            found = max(map(table.__getitem__, map(add, map(raw.__getitem__, cells), map(raw.__getitem__, partners))))
        else:
            low_half = [gains.tables[low][r] for r in raws[low]]
            high_half = [gains.tables[high][r] for r in raws[high]]
            found = max(max(map(add, map(low_half.__getitem__, cells), map(high_half.__getitem__, partners))),
                        max(map(add, map(high_half.__getitem__, cells), map(low_half.__getitem__, partners))))
        best = max(best, found)
    return best


def cell_worth(raws: tuple[tuple[int, ...], ...], gains: Gains, cell: int) -> float:
    """Return the most a single half of any colour would be worth on ``cell`` (what taking it denies)."""
    return max(gains.tables[colour][raws[colour][cell]] for colour in range(N_COLOURS))


def free_pairs_after(pairs: Sequence[Pair], taken: tuple[int, int]) -> list[Pair]:
    """Return the pairs that stay free once the two cells ``taken`` hold a double star."""
    first, second = taken
    return [pair for pair in pairs if pair[0] != first and pair[0] != second and pair[2] != first
            and pair[2] != second]


def cells_after(cells: tuple[int, ...], cell: int, colour: int, partner: int, partner_colour: int) -> tuple[int, ...]:
    """Return the map's cells with a double star laid on ``cell`` and ``partner``."""
    after = list(cells)
    after[cell], after[partner] = colour, partner_colour
    return tuple(after)


def start_pairs_of(state: NovaState, cells: tuple[int, ...], pairs: Sequence[Pair]) -> list[Pair]:
    """Return the pairs of ``pairs`` a seat that has not started may take (beside an open Leitstern), else all."""
    near: set[int] = set()
    adjacent = board(state.radius).leit_adjacent
    for colour in range(N_COLOURS):
        if colour not in state.started:
            near |= adjacent[colour]
    found = [pair for pair in pairs if (pair[0] in near or pair[2] in near)
             and cells[pair[0]] == FREE and cells[pair[2]] == FREE]
    return found or list(pairs)


def best_placement(pairs: Sequence[Pair], raws: tuple[tuple[int, ...], ...], gains: Gains,
                   codes: Iterable[int]) -> tuple[float, int, int, int, int] | None:
    """Return the best placement of any of ``codes`` on ``pairs`` as (value, cell, partner, colour on cell, colour
    on partner), the first in the rules' order among equals; None if there is none. Slower than ``best_value``:
    for the words of a reason, not for a search."""
    best: tuple[float, int, int, int, int] | None = None
    for code in sorted(set(codes)):
        low, high = TILE_COLOURS[code]
        for first, second in ((low, high),) if low == high else ((low, high), (high, low)):
            for cell, _direction, partner in pairs:
                value = gains.placement(first, raws[first][cell], second, raws[second][partner])
                if best is None or value > best[0]:
                    best = (value, cell, partner, first, second)
    return best


def best_reply(pairs: Sequence[Pair], raws: tuple[tuple[int, ...], ...], gains: Gains,
               codes: Iterable[int]) -> tuple[float, int, int, int, int] | None:
    """Return what ``best_value`` finds and where: (value, cell, partner, colour on cell, colour on partner);
    None without pairs or tiles. Among equals the first tile (by code), orientation and pair."""
    if not pairs:
        return None
    cells = [pair[0] for pair in pairs]
    partners = [pair[2] for pair in pairs]
    best: tuple[float, int, int, int, int] | None = None
    for code in sorted(set(codes)):
        low, high = TILE_COLOURS[code]
        if low == high:
            raw = raws[low]
            sums = list(map(gains.tables[low].__getitem__, map(add, map(raw.__getitem__, cells),
                                                                map(raw.__getitem__, partners))))
            found = max(sums)
            if best is None or found > best[0]:
                at = sums.index(found)
                best = (found, cells[at], partners[at], low, low)
            continue
        low_half = [gains.tables[low][r] for r in raws[low]]
        high_half = [gains.tables[high][r] for r in raws[high]]
        for first, second, here, there in ((low, high, low_half, high_half), (high, low, high_half, low_half)):
            sums = list(map(add, map(here.__getitem__, cells), map(there.__getitem__, partners)))
            found = max(sums)
            if best is None or found > best[0]:
                at = sums.index(found)
                best = (found, cells[at], partners[at], first, second)
    return best

