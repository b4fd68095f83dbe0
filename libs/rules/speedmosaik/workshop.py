"""A workshop as the rule module sees it: the set of its rule functions, and what every workshop's table shares.

The module keeps one ``Workshop`` per workshop (``module.WORKSHOPS``) and calls these functions
directly; nothing sits in between. Every workshop state has ``config``, ``seats``, ``round``,
``factories``, ``centre``, the start tile, ``bag``, ``boards``, ``current`` and ``is_finished``, so what
only reads those (the seat to move, the end, the top of a view) is written once here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from libs.rules.protocol import Json, Outcome
from libs.rules.rng import SeededRng

Config = tuple[tuple[str, str], ...]
"""A workshop's normalised settings as a state keeps them: ``(("workshop", …), (option, value), …)``."""

GAME = "speedmosaik"

BoardT = TypeVar("BoardT")


@dataclass(frozen=True)
class Workshop:
    """One workshop's rule functions (all pure; a state is never changed in place).

    The module checks nothing these functions check again, and the engine has checked what every game
    shares (game running, seat in range and with a decision open, move a JSON object) before ``apply``
    and ``preview`` are called.
    """

    name: str
    state_type: type
    new_game: Callable[[Config, int, bytes], Any]
    """The first state: ``(config, seats, seed)``."""
    movers: Callable[[Any], tuple[int, ...]]
    """The seats that must decide now, () once the game is over."""
    legal_moves: Callable[[Any, int], list[Json]]
    apply: Callable[[Any, int, Json], tuple[Any, list[Json]]]
    """The new state and its effects; raises IllegalMove for a move the workshop's rules refuse."""
    preview: Callable[[Any, int, Json], Json]
    view: Callable[[Any, int | None, str], Json]
    """What a seat (None: a spectator) sees, given the rules id."""
    ranking: Callable[[tuple[Any, ...]], Outcome]
    """The outcome of a finished game, from its boards."""
    from_view: Callable[[Json, SeededRng], Any]
    """A full state consistent with a view, the hidden bag order sampled from the rng (determinize)."""


def current_mover(state: Any) -> tuple[int, ...]:
    """Return ``(state.current,)`` while the game runs, () once it is over (one seat decides at a time)."""
    return () if state.is_finished else (state.current,)


def table_view(state: Any, seat: int | None, rules_id: str, movers: tuple[int, ...]) -> Json:
    """Return what every workshop's view starts with: game, rules, settings, seats, round, whose decision,
    the factories, the centre, the start tile and the bag's size (never its order)."""
    return {
        "spiel": GAME,
        "regeln": rules_id,
        "einstellungen": dict(state.config),
        "plaetze": state.seats,
        "ich": seat,
        "runde": state.round,
        "am_zug": list(movers),
        "beendet": state.is_finished,
        "schalen": [list(factory) for factory in state.factories],
        "mitte": list(state.centre),
        "startstein": {"in_mitte": state.start_tile_in_centre, "platz": state.start_tile_holder},
        "beutel": {"anzahl": len(state.bag)},
    }


def with_board(boards: tuple[BoardT, ...], seat: int, board: BoardT) -> tuple[BoardT, ...]:
    """Return the boards with ``seat``'s board replaced."""
    return tuple(board if index == seat else other for index, other in enumerate(boards))
