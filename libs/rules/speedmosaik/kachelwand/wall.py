"""Where a colour may hang: the fixed wall's printed cells, the free wall's row and column rule.

On the free wall every colour may hang at most once per row and once per column. A full pattern line
whose colour finds no such column falls to the floor. Only lines of the same colour can take a column
from each other (each line hangs in its own row), so the questions below look at one colour at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from libs.rules.speedmosaik.kachelwand.state import Board, WallColours
from libs.rules.speedmosaik.kachelwand.tiles import WALL_SIZE, wall_column

FullLine = tuple[int, str]
"""A full pattern line waiting for the wall: (0-based row, colour)."""


def row_has_colour(board: Board, row: int, colour: str) -> bool:
    """Return True if ``colour`` already hangs in wall row ``row``."""
    if board.wall_colours is not None:
        return colour in board.wall_colours[row]
    return board.wall[row][wall_column(row, colour)]


def grid_columns(grid: WallColours, row: int, colour: str) -> tuple[int, ...]:
    """Return the free-wall columns of ``row`` where ``colour`` may hang (empty cell, colour not in column)."""
    cells = grid[row]
    if colour in cells:
        return ()
    # Plain loops: this is asked for every take the free wall warns about, and generators cost twice as much.
    free: list[int] = []
    for column in range(WALL_SIZE):
        if cells[column] is None:
            for other in grid:
                if other[column] == colour:
                    break
            else:
                free.append(column)
    return tuple(free)


def grid_place(grid: WallColours, row: int, column: int, colour: str) -> WallColours:
    """Return the free-wall grid with ``colour`` hung at (row, column)."""
    return tuple(
        tuple(colour if (r == row and c == column) else cell for c, cell in enumerate(cells))
        for r, cells in enumerate(grid)
    )


def free_columns(board: Board, row: int, colour: str) -> tuple[int, ...]:
    """Return the 0-based columns where ``colour`` may hang in ``row`` now (fixed wall: its printed cell)."""
    if board.wall_colours is not None:
        return grid_columns(board.wall_colours, row, colour)
    column = wall_column(row, colour)
    return () if board.wall[row][column] else (column,)


def full_lines(board: Board) -> tuple[FullLine, ...]:
    """Return the full pattern lines of a board, top to bottom."""
    return tuple(
        (row, line.colour)
        for row, line in enumerate(board.pattern_lines)
        if line.colour is not None and line.count == row + 1
    )


def min_falls(grid: WallColours, lines: tuple[FullLine, ...]) -> int:
    """Return how many of these full lines (top to bottom) must fall, whatever columns are chosen."""
    by_colour: dict[str, list[FullLine]] = {}
    for line in lines:
        by_colour.setdefault(line[1], []).append(line)
    return sum(_min_falls_one_colour(grid, tuple(group)) for group in by_colour.values())


def _min_falls_one_colour(grid: WallColours, lines: tuple[FullLine, ...]) -> int:
    if not lines:
        return 0
    (row, colour), rest = lines[0], lines[1:]
    options = grid_columns(grid, row, colour)
    if not options:
        return 1 + _min_falls_one_colour(grid, rest)
    best = len(lines)
    for column in options:
        best = min(best, _min_falls_one_colour(grid_place(grid, row, column, colour), rest))
        if best == 0:
            break
    return best


@dataclass(frozen=True)
class FallRisk:
    """Whether a pattern line will find no free column when it hangs: certainly, or depending on choices."""

    certain: bool
    possible: bool


def fall_risk(board: Board, row: int, colour: str) -> FallRisk:
    """Return the risk that pattern line ``row`` of ``colour`` falls, given the full lines above it.

    Full lines above of the same colour hang first and may take the last column where the colour is
    still missing; every choice of columns for them is looked at.
    """
    if board.wall_colours is None:
        return FallRisk(False, False)
    upper = tuple(line for line in full_lines(board) if line[0] < row and line[1] == colour)
    outcomes: set[bool] = set()

    def walk(grid: WallColours, rest: tuple[FullLine, ...]) -> None:
        if len(outcomes) == 2:
            return
        if not rest:
            outcomes.add(bool(grid_columns(grid, row, colour)))
            return
        upper_row, upper_colour = rest[0]
        options = grid_columns(grid, upper_row, upper_colour)
        if not options:
            walk(grid, rest[1:])
        for column in options:
            walk(grid_place(grid, upper_row, column, upper_colour), rest[1:])

    walk(board.wall_colours, upper)
    return FallRisk(certain=True not in outcomes, possible=False in outcomes)


def pending_line(board: Board) -> FullLine | None:
    """Return the topmost full pattern line (the next to hang at a free-wall round end), if any."""
    lines = full_lines(board)
    return lines[0] if lines else None
