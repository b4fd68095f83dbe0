"""Helper constructors for Kirchenfenster states in tests (build a position directly, no random play)."""

from __future__ import annotations

from dataclasses import replace

from libs.rules.speedmosaik.kirchenfenster.material import COLOURS, STRIP_COUNT
from libs.rules.speedmosaik.kirchenfenster.state import Board, KirchenfensterState, PendingWindow, Strip

BONUS_COLOURS: tuple[str, ...] = ("rot", "blau", "gelb", "gruen", "violett", "rot")


def strip(*panes: str | None, side: int = 0) -> Strip:
    """Return a strip with up to five panes (None = empty field), e.g. ``strip("blau", "blau")``."""
    padded = tuple(panes) + (None,) * (5 - len(panes))
    return Strip(side=side, panes=padded)


def board(
    strips: dict[int, Strip] | None = None,
    glasermeister: int = 1,
    windows: dict[int, tuple[str, ...]] | None = None,
    breakage_field: int = 0,
    breakage_wraps: int = 0,
    bonus_points: int = 0,
    window_points: int = 0,
) -> Board:
    """Return a board; strips, the Glasermeister and windows are 1-based like on the screen."""
    all_strips = tuple((strips or {}).get(number, Strip()) for number in range(1, STRIP_COUNT + 1))
    all_windows = tuple((windows or {}).get(number, ()) for number in range(1, STRIP_COUNT + 1))
    return Board(
        strips=all_strips,
        glasermeister=glasermeister - 1,
        windows=all_windows,
        breakage_field=breakage_field,
        breakage_wraps=breakage_wraps,
        bonus_points=bonus_points,
        window_points=window_points,
    )


def table(
    boards: tuple[Board, ...],
    factories: tuple[tuple[str, ...], ...] | None = None,
    centre: tuple[str, ...] = (),
    current: int = 0,
    bag: tuple[str, ...] = (),
    tower: tuple[str, ...] = (),
    start_tile_in_centre: bool = True,
    start_tile_holder: int | None = None,
    round_number: int = 1,
    palace: str = "saeulen",
    bonus_colours: tuple[str, ...] = BONUS_COLOURS,
    pending: PendingWindow | None = None,
) -> KirchenfensterState:
    """Return a table state; factories default to all empty (5/7/9 by the number of boards)."""
    count = {2: 5, 3: 7, 4: 9}[len(boards)]
    return KirchenfensterState(
        config=(("workshop", "kirchenfenster"), ("palace", palace)),
        seats=len(boards),
        seed=b"builder-seed",
        round=round_number,
        bonus_colours=bonus_colours,
        factories=factories if factories is not None else tuple(() for _ in range(count)),
        centre=centre,
        start_tile_in_centre=start_tile_in_centre,
        start_tile_holder=start_tile_holder,
        bag=bag,
        tower=tower,
        boards=boards,
        current=current,
        pending=pending,
    )


def plenty_bag() -> tuple[str, ...]:
    """Return a bag big enough for the next round (so a round end does not end the game)."""
    return tuple(colour for colour in COLOURS for _ in range(8))


def with_board(state: KirchenfensterState, seat: int, new: Board) -> KirchenfensterState:
    """Return the state with one seat's board replaced."""
    return replace(state, boards=tuple(new if i == seat else b for i, b in enumerate(state.boards)))


def with_consistent_bag(state: KirchenfensterState) -> KirchenfensterState:
    """Return the state with a bag holding exactly the panes not visible on the table (20 per colour)."""
    seen = [pane for factory in state.factories for pane in factory] + list(state.centre) + list(state.tower)
    for player in state.boards:
        seen += [pane for s in player.strips for pane in s.panes if pane is not None]
        seen += [pane for window in player.windows for pane in window]
    bag = tuple(colour for colour in COLOURS for _ in range(20 - seen.count(colour)))
    return replace(state, bag=bag)
