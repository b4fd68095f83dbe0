"""Builders for Speedspore rule tests: a game set up from a seed (Einsteiger island), then laid out as a test
needs it, and positions through the registered Engine of the latest version (``speedspore@2``).

Einsteiger fields (id: kind number): 0 Ruine 10, 1 Stadion 2, 2 Park 9, 3 Klärwerk 12, 4 Deponie 6,
5 Stadion 4, 6 Deponie 10, 7 Klärwerk 9, 8 Park 11, 9 Autobahnkreuz, 10 Park 3, 11 Ruine 8, 12 Park 8,
13 Ruine 3, 14 Klärwerk 4, 15 Stadion 5, 16 Deponie 5, 17 Klärwerk 6, 18 Stadion 11.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import libs.rules  # noqa: F401  (registers speedspore@1 and @2)
from libs.rules import registry
from libs.rules.engine import Engine, Position
from libs.rules.evolve import evolve
from libs.rules.speedspore import specials
from libs.rules.speedspore.board import edge_between
from libs.rules.speedspore.material import CARD_INDEX, KIND_COUNT, SUPPLY_PER_KIND
from libs.rules.speedspore.setup import new_game
from libs.rules.speedspore.state import HAUPT, SporeState

ENGINE: Engine = registry.engine(registry.latest("speedspore").rules_id)
CONFIG = {"siegpunkte": 10, "wuerfel": "zufall", "insel": "einsteiger"}
NOTHING = (0, 0, 0, 0, 0)


def hand(totholz: int = 0, humus: int = 0, moos: int = 0, regenwasser: int = 0, mineralien: int = 0
         ) -> tuple[int, ...]:
    """Return a resource tuple by kind names."""
    return (totholz, humus, moos, regenwasser, mineralien)


def outcome(d1: int, d2: int) -> int:
    """Return the dice deck code of a roll ("ausgeglichen")."""
    return (d1 - 1) * 6 + (d2 - 1)


def dice_deck(*rolls: tuple[int, int]) -> tuple[int, ...]:
    """Return a dice deck whose next draws are ``rolls`` in order (padded so no reshuffle follows at once)."""
    return (*([0] * 10), *(outcome(a, b) for a, b in reversed(rolls)))


def path_edges(*corners: int) -> list[int]:
    """Return the edges along a path of neighbouring corners."""
    return [edge_between(a, b) for a, b in itertools.pairwise(corners)]


def board(seats: int = 3, *, buildings: Mapping[int, tuple[int, int]] | None = None,
          threads: Mapping[int, int] | None = None, hands: Mapping[int, tuple[int, ...]] | None = None,
          cards: Mapping[int, Sequence[str]] | None = None, config: Mapping[str, Any] | None = None,
          seed: bytes = b"spore-test", **changes: Any) -> SporeState:
    """Return a main-phase state (rolled, turn 1, seat 0) on the given island, laid out as given.

    ``buildings``: corner → (seat, level 1 Fruchtkörper / 2 Sporenturm); ``threads``: edge → seat;
    ``hands``: seat → resources (taken from the supply); ``cards``: seat → mutation card keys (taken out of
    the deck). Pieces, trails and the Geflecht holder follow the board; ``changes`` override anything.
    """
    state = new_game({**CONFIG, **(config or {})}, seats, seed, ENGINE.module.version)
    owners, levels, edges = list(state.corner_owner), list(state.corner_level), list(state.edge_owner)
    pieces = [[0, 0, 0] for _ in range(seats)]
    for corner, (seat, level) in (buildings or {}).items():
        owners[corner], levels[corner] = seat, level
        pieces[seat][level] += 1
    for edge, seat in (threads or {}).items():
        edges[edge] = seat
        pieces[seat][0] += 1
    all_hands = tuple((hands or {}).get(seat, NOTHING) for seat in range(seats))
    supply = tuple(SUPPLY_PER_KIND - sum(h[k] for h in all_hands) for k in range(KIND_COUNT))
    deck = list(state.deck)
    seat_cards: list[tuple[int, ...]] = []
    for seat in range(seats):
        codes = [CARD_INDEX[name] for name in (cards or {}).get(seat, ())]
        for code in codes:
            deck.remove(code)
        seat_cards.append(tuple(sorted(codes)))
    base: dict[str, Any] = {
        "phase": HAUPT, "rolled": True, "turn": 1, "founding": 2 * seats, "rolls": 1, "dice": (3, 4),
        "corner_owner": tuple(owners), "corner_level": tuple(levels), "edge_owner": tuple(edges),
        "pieces": tuple((p[0], p[1], p[2]) for p in pieces), "hands": all_hands, "supply": supply,
        "cards": tuple(seat_cards), "deck": tuple(deck), "turn_log": ((),) * seats,
    }
    base.update(changes)
    state = evolve(state, **base)
    lengths = specials.trails(state)
    holder = changes.get("longest_holder", specials.longest_holder(-1, lengths))
    return evolve(state, trail=lengths, longest_holder=holder)


def position(state: SporeState) -> Position:
    """Return the Engine's position around a built state."""
    return ENGINE.from_state(state, state.seats)


def play(pos: Position, seat: int, move: dict[str, Any]) -> Position:
    """Return the position after the Engine applies ``move``."""
    return ENGINE.apply(pos, seat, move).position
