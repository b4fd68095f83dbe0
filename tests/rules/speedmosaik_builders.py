"""Speedmosaik test helpers: Kachelwand states built directly (no random play), and what every workshop's
tests share: the seats that must act (refusals: ``tests.rules.helpers.assert_refused_without_change``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from libs.rules import registry
from libs.rules.speedmosaik.displays import FACTORIES_PER_SEATS
from libs.rules.speedmosaik.kachelwand.state import Board, KachelwandState, PatternLine
from libs.rules.speedmosaik.kachelwand.tiles import WALL_SIZE

RULES = "speedmosaik@1"
LETTERS = {"B": "blau", "G": "gelb", "R": "rot", "S": "schwarz", "T": "tuerkis"}


def wall(*rows: str) -> tuple[tuple[bool, ...], ...]:
    """Return a wall from up to five strings like "XX..." (X = a tile hangs there)."""
    padded = list(rows) + ["....."] * (WALL_SIZE - len(rows))
    return tuple(tuple(cell == "X" for cell in row) for row in padded)


def lines(**filled: tuple[str, int] | tuple[str, int, int]) -> tuple[PatternLine, ...]:
    """Return pattern lines, e.g. ``lines(r1=("blau", 1), r3=("rot", 2, 1))`` (the third number: jokers)."""
    return tuple(PatternLine(*filled[f"r{row}"]) if f"r{row}" in filled else PatternLine() for row in range(1, 6))


def free_board(
    wall_rows: tuple[str, ...] = (),
    pattern: tuple[PatternLine, ...] | None = None,
    floor: tuple[str, ...] = (),
    score: int = 0,
) -> Board:
    """Return a free-wall board; wall rows are strings like "B.R.." (B/G/R/S/T: the colour hanging there)."""
    padded = list(wall_rows) + ["....."] * (WALL_SIZE - len(wall_rows))
    colours = tuple(tuple(LETTERS.get(cell) for cell in row.ljust(WALL_SIZE, ".")) for row in padded)
    return Board(
        pattern_lines=pattern if pattern is not None else lines(),
        wall=tuple(tuple(cell is not None for cell in row) for row in colours),
        wall_colours=colours,
        floor=floor,
        score=score,
    )


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
    wall_kind: str = "fest",
    jokers: str = "ohne",
) -> KachelwandState:
    """Return a table state; factories default to all empty (5/7/9 by the number of boards).

    ``wall_kind`` and ``jokers`` set the Kachelwand options ("frei" needs boards from ``free_board``).
    """
    count = FACTORIES_PER_SEATS[len(boards)]
    config = (("workshop", "kachelwand"), ("wall", wall_kind), ("jokers", jokers))
    return KachelwandState(
        config=config,
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


def with_full_bag(state: KachelwandState) -> KachelwandState:
    """Return the state with a bag of exactly the tiles seen nowhere else, so a bot can determinize its view."""
    from libs.rules.speedmosaik import MODULE
    from libs.rules.speedmosaik.kachelwand.tiles import TILE_ORDER
    from libs.rules.speedmosaik.kachelwand.view import hidden_bag_counts

    counts = hidden_bag_counts(MODULE.view(state, None))
    return replace(state, bag=tuple(tile for tile in TILE_ORDER for _ in range(counts[tile])))


def must_act(state: Any) -> tuple[int, ...]:
    """Return the seats that must decide in a workshop state (the module's ``pending``; no may-act seats)."""
    pending = registry.get(RULES).pending(state)
    assert all(entry.must for entry in pending)
    return tuple(entry.seat for entry in pending)

