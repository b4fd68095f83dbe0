"""Builders for Speedkoi rule tests: a state set up from a seed, then laid out as a test needs it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from libs.rules.engine import Engine, Position
from libs.rules.evolve import evolve
from libs.rules.speedkoi import MODULE
from libs.rules.speedkoi.material import ALL_LANTERNS, COLOURS, PATHS, STONES, lantern
from libs.rules.speedkoi.setup import new_game
from libs.rules.speedkoi.state import KoiState

ENGINE = Engine(MODULE)


def code(name: str) -> int:
    """Return the lantern code of "gold 7"."""
    colour, value = name.split()
    return lantern(COLOURS.index(colour), int(value))


def codes(names: Sequence[str]) -> tuple[int, ...]:
    """Return sorted codes of lantern names."""
    return tuple(sorted(code(name) for name in names))


def board(*, seats: int = 2, spielart: str = "klassisch", seed: bytes = b"koi-test",
          hands: Mapping[int, Sequence[str]] | None = None,
          rows: Mapping[int, Mapping[str, Sequence[int]]] | None = None,
          stones: Mapping[int, Mapping[str, int]] | None = None,
          masters: Mapping[int, str] | None = None,
          tiles: Mapping[tuple[str, int], str | None] | None = None, clear_tiles: bool = False,
          piles: Mapping[str, Sequence[int]] | None = None, deck: Sequence[str] | None = None,
          current: int = 0, **changes: Any) -> KoiState:
    """Return a state of a fresh game, changed as given (the other lanterns stay where the deal put them).

    Lanterns named in hands, rows, piles and deck are taken out of the rest (deck first, then hands, then
    the set-aside ones), so the 110 lanterns always add up.
    """
    state = new_game(spielart, seats, seed)
    fields: dict[str, Any] = {"current": current, "start": current}
    placed = [code(name) for seat_hand in (hands or {}).values() for name in seat_hand]
    placed += [lantern(COLOURS.index(colour), value) for seat_rows in (rows or {}).values()
               for colour, values in seat_rows.items() for value in values]
    placed += [lantern(COLOURS.index(colour), value) for colour, values in (piles or {}).items() for value in values]
    placed += [code(name) for name in (deck or ())]
    rest = list(state.deck) + [c for hand in state.hands for c in hand] + list(state.aside)
    for item in placed:
        rest.remove(item)
    new_hands = []
    for seat in range(seats):
        if hands is not None and seat in hands:
            new_hands.append(codes(hands[seat]))
        else:
            new_hands.append(tuple(sorted(rest[:8])))
            rest = rest[8:]
    fields["hands"] = tuple(new_hands)
    aside_count = len(state.aside)
    fields["aside"] = tuple(sorted(rest[:aside_count]))
    rest = rest[aside_count:]
    fields["deck"] = tuple(code(name) for name in deck) if deck is not None else tuple(rest)
    if rows:
        fields["rows"] = tuple(tuple(tuple(rows.get(seat, {}).get(colour, ())) for colour in COLOURS)
                               for seat in range(seats))
    if piles:
        fields["piles"] = tuple(tuple(piles.get(colour, ())) for colour in COLOURS)
    if stones:
        fields["stones"] = tuple(tuple(stones.get(seat, {}).get(colour, 0) for colour in COLOURS)
                                 for seat in range(seats))
    if masters:
        fields["masters"] = tuple(COLOURS.index(masters[seat]) if seat in masters else -1 for seat in range(seats))
    layout = [list(path) for path in state.tiles]
    if clear_tiles:
        layout = [[None] * (STONES + 1) for _ in range(PATHS)]
    for (colour, stone), tile in (tiles or {}).items():
        layout[COLOURS.index(colour)][stone] = tile
    fields["tiles"] = tuple(tuple(path) for path in layout)
    fields.update(changes)
    built = evolve(state, **fields)
    assert sorted(_all_lanterns(built)) == sorted(ALL_LANTERNS) or deck is not None
    return built


def _all_lanterns(state: KoiState) -> list[int]:
    result = [c for hand in state.hands for c in hand] + list(state.deck) + list(state.aside)
    result += [lantern(colour, value) for seat_rows in state.rows for colour, row in enumerate(seat_rows)
               for value in row]
    result += [lantern(colour, value) for colour, pile in enumerate(state.piles) for value in pile]
    return result


def position(state: KoiState) -> Position:
    """Return an engine position around a state."""
    return ENGINE.from_state(state, state.seats)


def play(state: KoiState, seat: int, move: dict[str, Any]) -> tuple[KoiState, list[dict[str, Any]]]:
    """Apply a move through the engine; return the new state and the effects."""
    step = ENGINE.apply(position(state), seat, move)
    return step.position.state, step.effects


def texts(effects: Sequence[Mapping[str, Any]]) -> list[str]:
    """Return the effects' German texts."""
    return [str(effect["text"]) for effect in effects]
