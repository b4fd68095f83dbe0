"""Helper constructors for Kachelwand states in tests (build a position directly, no random play)."""

from __future__ import annotations

from libs.rules.speedmosaik.config import DEFAULT_CONFIG
from libs.rules.speedmosaik.kachelwand.state import Board, KachelwandState, PatternLine
from libs.rules.speedmosaik.kachelwand.tiles import WALL_SIZE

CONFIG = tuple(DEFAULT_CONFIG.items())


def wall(*rows: str) -> tuple[tuple[bool, ...], ...]:
    """Return a wall from up to five strings like "XX..." (X = a tile hangs there)."""
    padded = list(rows) + ["....."] * (WALL_SIZE - len(rows))
    return tuple(tuple(cell == "X" for cell in row) for row in padded)


def lines(**filled: tuple[str, int]) -> tuple[PatternLine, ...]:
    """Return pattern lines, e.g. ``lines(r1=("blau", 1), r3=("rot", 2))``."""
    return tuple(PatternLine(*filled[f"r{row}"]) if f"r{row}" in filled else PatternLine() for row in range(1, 6))


def board(
    wall_rows: tuple[str, ...] = (),
    pattern: tuple[PatternLine, ...] | None = None,
    floor: tuple[str, ...] = (),
    score: int = 0,
) -> Board:
    """Return a board with the given wall, pattern lines, floor and score."""
    return Board(
        pattern_lines=pattern if pattern is not None else lines(),
        wall=wall(*wall_rows),
        floor=floor,
        score=score,
    )


def table(
    boards: tuple[Board, ...],
    factories: tuple[tuple[str, ...], ...] | None = None,
    centre: tuple[str, ...] = (),
    current: int = 0,
    bag: tuple[str, ...] = (),
    lid: tuple[str, ...] = (),
    start_tile_in_centre: bool = True,
    start_tile_holder: int | None = None,
    round_number: int = 1,
) -> KachelwandState:
    """Return a table state; factories default to all empty (5/7/9 by the number of boards)."""
    count = {2: 5, 3: 7, 4: 9}[len(boards)]
    return KachelwandState(
        config=CONFIG,
        seats=len(boards),
        seed=b"builder-seed",
        round=round_number,
        factories=factories if factories is not None else tuple(() for _ in range(count)),
        centre=centre,
        start_tile_in_centre=start_tile_in_centre,
        start_tile_holder=start_tile_holder,
        bag=bag,
        lid=lid,
        boards=boards,
        current=current,
    )
