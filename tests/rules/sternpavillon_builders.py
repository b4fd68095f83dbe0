"""Helper constructors for Sternpavillon states in tests (build a position directly, no random play)."""

from __future__ import annotations

from dataclasses import replace

from libs.rules.speedmosaik.displays import FACTORIES_PER_SEATS
from libs.rules.speedmosaik.sternpavillon.state import PHASE_TAKE, PlayerBoard, Stars, SternpavillonState
from libs.rules.speedmosaik.sternpavillon.tiles import (
    CENTRE_STAR,
    COLOURS,
    SPACES,
    STARS,
    START_SCORE,
    TILES_PER_COLOUR,
    sorted_tiles,
)

CONFIG = (("workshop", "sternpavillon"),)


def stars(**filled: str) -> Stars:
    """Return stars from strings per star, e.g. ``stars(rot="XX....", mitte="rb....")``.

    An outer star's string marks filled spaces (number 1 first) with "X"; the centre star's string names
    each space's colour by its first letter (r, b, y = gelb, o, g = grün, l) or "." for empty.
    """
    letters = {"r": "rot", "b": "blau", "y": "gelb", "o": "orange", "g": "gruen", "l": "lila"}
    result: list[tuple[str | None, ...]] = []
    for star in STARS:
        pattern = filled.get(star, "." * SPACES)
        if star == CENTRE_STAR:
            result.append(tuple(letters.get(cell) for cell in pattern))
        else:
            result.append(tuple(star if cell == "X" else None for cell in pattern))
    return tuple(result)


def hand(**counts: int) -> tuple[int, ...]:
    """Return a hand as colour counts, e.g. ``hand(rot=3, lila=1)``."""
    return tuple(counts.get(colour, 0) for colour in COLOURS)


def board(
    star_spaces: Stars | None = None,
    tiles: tuple[int, ...] | None = None,
    score: int = START_SCORE,
    has_passed: bool = False,
    placement_points: int | None = None,
) -> PlayerBoard:
    """Return a board; the placement points default to the score above the start."""
    return PlayerBoard(
        stars=star_spaces if star_spaces is not None else stars(),
        hand=tiles if tiles is not None else hand(),
        score=score,
        placement_points=placement_points if placement_points is not None else max(0, score - START_SCORE),
        has_passed=has_passed,
    )


def table(
    boards: tuple[PlayerBoard, ...],
    phase: str = PHASE_TAKE,
    factories: tuple[tuple[str, ...], ...] | None = None,
    centre: tuple[str, ...] = (),
    supply: tuple[str, ...] = (),
    bag: tuple[str, ...] = (),
    tower: tuple[int, ...] | None = None,
    current: int = 0,
    starter: int = 0,
    round_number: int = 1,
    start_tile_in_centre: bool = True,
    start_tile_holder: int | None = None,
    bonus_owed: int = 0,
) -> SternpavillonState:
    """Return a table state; factories default to all empty (5/7/9 by the number of boards)."""
    count = FACTORIES_PER_SEATS[len(boards)]
    return SternpavillonState(
        config=CONFIG,
        seats=len(boards),
        seed=b"builder-seed",
        round=round_number,
        phase=phase,
        factories=factories if factories is not None else tuple(() for _ in range(count)),
        centre=sorted_tiles(centre),
        start_tile_in_centre=start_tile_in_centre,
        start_tile_holder=start_tile_holder,
        supply=sorted_tiles(supply),
        bag=bag,
        tower=tower if tower is not None else tuple(0 for _ in COLOURS),
        tower_refills=0,
        boards=boards,
        current=current,
        starter=starter,
        bonus_owed=bonus_owed,
    )


def with_full_bag(state: SternpavillonState) -> SternpavillonState:
    """Return the state with every tile not on the table in the bag (colour order), so all 132 are there."""
    seen = [0 for _ in COLOURS]
    tiles = [tile for factory in state.factories for tile in factory] + list(state.centre) + list(state.supply)
    tiles += list(state.bag)
    for player in state.boards:
        tiles += [space for star in player.stars for space in star if space is not None]
        for index, count in enumerate(player.hand):
            seen[index] += count
    for tile in tiles:
        seen[COLOURS.index(tile)] += 1
    for index, count in enumerate(state.tower):
        seen[index] += count
    extra = tuple(colour for index, colour in enumerate(COLOURS) for _ in range(TILES_PER_COLOUR - seen[index]))
    return replace(state, bag=state.bag + extra)
