"""Immutable game state of the Kachelwand (frozen dataclasses of tuples; equal states compare equal)."""

from __future__ import annotations

from dataclasses import dataclass

from libs.rules.protocol import ComputationLine
from libs.rules.speedmosaik.kachelwand.tiles import WALL_SIZE


@dataclass(frozen=True)
class PatternLine:
    """One Musterreihe: its colour (None while empty) and how many tiles lie in it."""

    colour: str | None = None
    count: int = 0


@dataclass(frozen=True)
class Board:
    """One player's board: pattern lines 1–5, the wall, the floor, and the score history."""

    pattern_lines: tuple[PatternLine, ...] = tuple(PatternLine() for _ in range(WALL_SIZE))
    wall: tuple[tuple[bool, ...], ...] = tuple(tuple(False for _ in range(WALL_SIZE)) for _ in range(WALL_SIZE))
    floor: tuple[str, ...] = ()
    score: int = 0
    round_points: tuple[int, ...] = ()
    """Score change of every finished round (wall points and floor penalty, never below 0 in total)."""
    last_round_lines: tuple[ComputationLine, ...] = ()
    """Rechenweg of the last finished round: each tile hung on the wall, the floor, a clamp to 0."""
    bonus_lines: tuple[ComputationLine, ...] = ()
    """End bonuses (rows, columns, colours); filled when the game ends."""

    def complete_rows(self) -> int:
        """Return how many horizontal wall rows are full."""
        return sum(1 for row in self.wall if all(row))


@dataclass(frozen=True)
class KachelwandState:
    """The whole table. ``bag`` is in draw order and is the only hidden part (with ``seed``)."""

    config: tuple[tuple[str, str], ...]
    seats: int
    seed: bytes
    round: int
    factories: tuple[tuple[str, ...], ...]
    centre: tuple[str, ...]
    start_tile_in_centre: bool
    start_tile_holder: int | None
    bag: tuple[str, ...]
    lid: tuple[str, ...]
    boards: tuple[Board, ...]
    current: int
    is_finished: bool = False
