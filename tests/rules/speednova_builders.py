"""State builders for Speednova rule tests: a fresh game, stars put on cells, racks and tracks set by hand."""

from __future__ import annotations

from typing import Any

from libs.rules.engine import Engine, Position
from libs.rules.evolve import evolve
from libs.rules.speednova import MODULE
from libs.rules.speednova.board import FREE, board
from libs.rules.speednova.state import NovaState
from libs.rules.speednova.tiles import COLOUR_INDEX, tile_code

ENGINE = Engine(MODULE)
K, N, R, Z, P, Q = range(6)
"""Colour indices: Komet, Nebel, Riese, Zwerg, Pulsar, Quasar."""


def cell(radius: int, q: int, r: int) -> int:
    """Return the index of the cell at axial (q, r) on the map of this radius."""
    return board(radius).coords.index((q, r))


def tile(first: str | int, second: str | int) -> int:
    """Return a tile code from two colours (keys or indices)."""
    a = COLOUR_INDEX[first] if isinstance(first, str) else first
    b = COLOUR_INDEX[second] if isinstance(second, str) else second
    return tile_code(a, b)


def new(seats: int = 2, config: dict[str, Any] | None = None, seed: bytes = b"speednova-test") -> NovaState:
    """Return a fresh game's state."""
    return MODULE.setup(MODULE.normalize_config(config or {}, seats), seats, seed)


def with_stars(state: NovaState, stars: dict[int, int]) -> NovaState:
    """Return the state with stars of these colours on these cells (cells not in ``stars`` as they were)."""
    cells = list(state.cells)
    for number, colour in stars.items():
        cells[number] = colour
    return evolve(state, cells=tuple(cells))


def fill_all_but(state: NovaState, free: set[int], colour: int = Q) -> NovaState:
    """Return the state with every free cell not in ``free`` covered by a star of ``colour``."""
    return with_stars(state, {number: colour for number, value in enumerate(state.cells)
                              if value == FREE and number not in free})


def started(state: NovaState) -> NovaState:
    """Return the state with every seat past its first double star (at Leitsterne 0, 1, 2, ...)."""
    return evolve(state, started=tuple(range(state.seats)))


def set_rack(state: NovaState, seat: int, tiles: list[int]) -> NovaState:
    """Return the state with ``seat``'s rack replaced."""
    racks = list(state.racks)
    racks[seat] = tuple(sorted(tiles))
    return evolve(state, racks=tuple(racks))


def set_track(state: NovaState, owner: int, values: tuple[int, ...]) -> NovaState:
    """Return the state with a track set to these values (its computation: one gain per non-zero value)."""
    tracks = list(state.tracks)
    tracks[owner] = tuple(values)
    gains = list(state.gains)
    gains[owner] = tuple((value,) if value else () for value in values)
    return evolve(state, tracks=tuple(tracks), gains=tuple(gains))


def position(state: NovaState) -> Position:
    """Return an Engine position around a module state."""
    return ENGINE.from_state(state, state.seats)


def place_move(first: str, second: str, at: int, direction: int) -> dict[str, Any]:
    """Return a placement move."""
    return {"stein": [first, second], "feld": at, "richtung": direction}
