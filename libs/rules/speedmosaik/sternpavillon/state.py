"""The immutable state of a Sternpavillon game."""

from __future__ import annotations

from dataclasses import dataclass

from libs.rules.protocol import ComputationLine
from libs.rules.speedmosaik.sternpavillon.tiles import COLOURS, SPACES, STARS, START_SCORE

PHASE_TAKE = "nehmen"
PHASE_PLACE = "legen"
PHASE_BONUS = "bonus"
PHASE_KEEP = "behalten"
PHASE_OVER = "ende"
PHASES: tuple[str, ...] = (PHASE_TAKE, PHASE_PLACE, PHASE_BONUS, PHASE_KEEP, PHASE_OVER)

Stars = tuple[tuple[str | None, ...], ...]
"""Seven stars (centre first, then the outer stars in colour order) × six spaces (number − 1): a colour or None."""

EMPTY_STARS: Stars = tuple(tuple(None for _ in range(SPACES)) for _ in STARS)
NO_TILES: tuple[int, ...] = tuple(0 for _ in COLOURS)


@dataclass(frozen=True)
class PlayerBoard:
    """One player's board and tiles: the stars, the hand (colour counts), the score and where it came from."""

    stars: Stars = EMPTY_STARS
    hand: tuple[int, ...] = NO_TILES
    score: int = START_SCORE
    placement_points: int = 0
    centre_penalty: int = 0
    """Points lost for taking first from the centre (a positive number; never below 1 point)."""
    keep_cost: int = 0
    """Points paid for tiles kept beyond the free four (a positive number)."""
    has_passed: bool = False
    surrounded: tuple[str, ...] = ()
    """Ids of the bonus places this player has surrounded, in the order it happened."""
    end_lines: tuple[ComputationLine, ...] = ()
    """End bonuses and the leftover penalty; filled when the game ends."""

    def filled_spaces(self) -> int:
        """Return how many star spaces hold a tile (the tie-break)."""
        return sum(1 for star in self.stars for space in star if space is not None)

    def hand_size(self) -> int:
        """Return the number of tiles in hand."""
        return sum(self.hand)


@dataclass(frozen=True)
class SternpavillonState:
    """The whole table. ``bag`` is in draw order and is the only hidden part (with ``seed``)."""

    config: tuple[tuple[str, str], ...]
    seats: int
    seed: bytes
    round: int
    phase: str
    factories: tuple[tuple[str, ...], ...]
    centre: tuple[str, ...]
    start_tile_in_centre: bool
    start_tile_holder: int | None
    supply: tuple[str, ...]
    bag: tuple[str, ...]
    tower: tuple[int, ...]
    """Tiles out of play (paid, given up), per colour; they go back into the bag when it runs empty."""
    tower_refills: int
    """How often the tower has been shuffled back into the bag (names the random stream of the next one)."""
    boards: tuple[PlayerBoard, ...]
    current: int
    starter: int
    """The seat that began this round; after the taking it is the seat that begins placing and the next round."""
    bonus_owed: int = 0
    """Bonus tiles the current seat still chooses from the supply (phase ``bonus``)."""

    @property
    def is_finished(self) -> bool:
        """Return True once the game is over (phase ``ende``)."""
        return self.phase == PHASE_OVER
