"""Rows and figures: where a lantern fits, which figure a lantern moves, which figures a tile may move."""

from __future__ import annotations

from libs.rules.speedkoi.material import END_STONE, GOAL_FROM, PILGRIMS
from libs.rules.speedkoi.state import KoiState


def direction(row: tuple[int, ...]) -> int:
    """Return 1 (ascending), -1 (descending) or 0 (open: empty, or only equal numbers so far)."""
    if row:
        first = row[0]
        for value in row:
            if value != first:
                return 1 if value > first else -1
    return 0


def fits(row: tuple[int, ...], value: int) -> bool:
    """Return True if ``value`` may be laid at the end of ``row`` (equal numbers always fit)."""
    if not row:
        return True
    last = row[-1]
    if value == last:
        return True
    way = direction(row)
    return way == 0 or (value > last) == (way > 0)


def asks_figure(state: KoiState, seat: int, colour: int) -> bool:
    """Return True if playing this colour first asks "Pilger oder Meister?" (a new path, both still free)."""
    if state.stones[seat][colour] != 0 or state.masters[seat] != -1:
        return False
    return pilgrims_free(state, seat) > 0


def pilgrims_free(state: KoiState, seat: int) -> int:
    """Return how many of the seat's four pilgrims are not on a path yet."""
    placed = sum(1 for stone in state.stones[seat] if stone)
    return PILGRIMS - placed + (1 if state.masters[seat] != -1 else 0)


def movable(state: KoiState, seat: int, exclude: int = -1) -> list[int]:
    """Return the paths on which the seat's figure stands on stones 1–8 (``exclude``: not this path)."""
    return [path for path, stone in enumerate(state.stones[seat]) if 0 < stone < END_STONE and path != exclude]


def goal_count(state: KoiState) -> int:
    """Return how many figures of all players stand in the goal area (stones 7–9)."""
    return sum(1 for stones in state.stones for stone in stones if stone >= GOAL_FROM)
