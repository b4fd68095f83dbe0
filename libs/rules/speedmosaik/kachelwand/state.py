"""Immutable game state of the Kachelwand (frozen dataclasses of tuples; equal states compare equal)."""

from __future__ import annotations

from dataclasses import dataclass

from libs.rules.protocol import ComputationLine
from libs.rules.speedmosaik.config import OPTIONS
from libs.rules.speedmosaik.kachelwand.tiles import WALL_SIZE

WallColours = tuple[tuple[str | None, ...], ...]

OPTION_DEFAULTS: dict[str, str] = {key: values[0] for key, values in OPTIONS["kachelwand"].items()}
"""A setting's value when a (hand-built) config does not name it: the first value of each option."""

EMPTY_WALL_COLOURS: WallColours = tuple(tuple(None for _ in range(WALL_SIZE)) for _ in range(WALL_SIZE))


@dataclass(frozen=True, slots=True)
class PatternLine:
    """One Musterreihe: its colour (None while empty), how many tiles lie in it, how many are jokers."""

    colour: str | None = None
    count: int = 0
    jokers: int = 0


@dataclass(frozen=True, slots=True)
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
    wall_colours: WallColours | None = None
    """Free wall only: the colour hanging in each cell (None: empty). The fixed wall prints its colours."""
    tiling_lines: tuple[ComputationLine, ...] = ()
    """Free wall, while a round end is being tiled: the Rechenweg so far (tiles hung, lines fallen)."""

    @property
    def is_free_wall(self) -> bool:
        """Return True if this board has the free wall (no printed colours)."""
        return self.wall_colours is not None

    def complete_rows(self) -> int:
        """Return how many horizontal wall rows are full."""
        return sum(1 for row in self.wall if all(row))


@dataclass(frozen=True, slots=True)
class KachelwandState:
    """The whole table. ``bag`` is in draw order and is the only hidden part (with ``seed``).

    ``tiling`` is True while the free wall is tiled at a round end (seats choose columns); ``current``
    then names the seat that will start the next round.
    """

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
    tiling: bool = False

    def option(self, key: str) -> str:
        """Return the value of a setting ("wall", "jokers"), the default if the config does not name it."""
        # Asked for several times per legal move: a scan of the two or three pairs, no dict built.
        for name, value in self.config:
            if name == key:
                return value
        return OPTION_DEFAULTS.get(key, "")

    @property
    def has_jokers(self) -> bool:
        """Return True if the game is played with jokers."""
        return self.option("jokers") == "mit"

    @property
    def is_free_wall(self) -> bool:
        """Return True if the game is played on the free wall."""
        return self.option("wall") == "frei"
