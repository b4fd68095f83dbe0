"""A seat's placements as the bots see them: in the rules' own order, with each half's raw points.

``placements`` lists exactly the placements of ``engine.legal_moves`` (same order: each different rack tile,
its low colour on the cell first, then reversed, over the allowed pairs), so the first among equals is the
first legal move, and builds a move's JSON only when it is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

from libs.rules.protocol import Json
from libs.rules.speednova.placement import allowed_pairs
from libs.rules.speednova.state import NovaState
from libs.rules.speednova.tiles import COLOURS, TILE_COLOURS, tile_code
from services.bot.policies.speednova_bots.values import Gains, Pair


@dataclass(frozen=True, slots=True)
class Option:
    """One placement: ``first`` on ``cell``, ``second`` on ``partner``, and the raw points of each half."""

    index: int
    """Its place in the legal moves' order (ties go to the lowest)."""
    cell: int
    direction: int
    partner: int
    first: int
    second: int
    raw_first: int
    raw_second: int

    @property
    def code(self) -> int:
        """The double star's tile code."""
        return tile_code(self.first, self.second)

    @property
    def cells(self) -> tuple[int, int]:
        """The two cells it takes."""
        return self.cell, self.partner

    def move(self) -> Json:
        """Return the placement as its legal move."""
        return {"stein": [COLOURS[self.first], COLOURS[self.second]], "feld": self.cell, "richtung": self.direction}

    def value(self, gains: Gains) -> float:
        """Return the placement's value under ``gains`` (capped at the track's top, Supernovas included)."""
        return gains.placement(self.first, self.raw_first, self.second, self.raw_second)

    def points(self, track: tuple[int, ...], top: int) -> dict[int, int]:
        """Return the points per colour it adds to ``track`` (capped), colours in half order."""
        if self.first == self.second:
            return {self.first: max(0, min(self.raw_first + self.raw_second, top - track[self.first]))}
        return {self.first: max(0, min(self.raw_first, top - track[self.first])),
                self.second: max(0, min(self.raw_second, top - track[self.second]))}


def placements(state: NovaState, seat: int, raws: tuple[tuple[int, ...], ...],
               pairs: list[Pair] | None = None) -> list[Option]:
    """Return every placement of ``seat`` in the legal moves' order, each with its halves' raw points."""
    if pairs is None:
        pairs = allowed_pairs(state, seat)
    options: list[Option] = []
    for code in sorted(set(state.racks[seat])):
        low, high = TILE_COLOURS[code]
        for first, second in ((low, high),) if low == high else ((low, high), (high, low)):
            first_raw, second_raw = raws[first], raws[second]
            options += [Option(len(options) + number, cell, direction, partner, first, second, first_raw[cell],
                               second_raw[partner])
                        for number, (cell, direction, partner) in enumerate(pairs)]
    return options
