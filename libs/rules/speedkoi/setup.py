"""A new Speedkoi game from the seed: lanterns shuffled and dealt, tiles laid out, the start player drawn.

Everything random is drawn here, at setup, from the seed (labels in docs/rules/speedkoi.md): the deck's
order, the set-aside lanterns, the tiles and the start player. So the Tagesgarten's players, who share the
day's seed, get the same lanterns, tiles and start player; only drawing from the deck then reveals them.
"""

from __future__ import annotations

from libs.rules.rng import SeededRng
from libs.rules.speedkoi.material import (
    ALL_LANTERNS,
    CLASSIC_TILES,
    FESTIVAL,
    FESTIVAL_TILES,
    GAME,
    HAND_SIZE,
    PATHS,
    SET_ASIDE_TWO_PLAYERS,
    STONES,
    TILE_KINDS,
    TILE_STONES,
)
from libs.rules.speedkoi.state import LEGEN, KoiState


def new_game(spielart: str, seats: int, seed: bytes) -> KoiState:
    """Return the first state: hands of 8, (two players) 30 set aside, the rest the deck; tiles; start player."""
    rng = SeededRng(seed, GAME)
    lanterns = rng.derive("laternen").shuffle(ALL_LANTERNS)
    hands = tuple(tuple(sorted(lanterns[seat * HAND_SIZE:(seat + 1) * HAND_SIZE])) for seat in range(seats))
    rest = lanterns[seats * HAND_SIZE:]
    aside_count = SET_ASIDE_TWO_PLAYERS if seats == 2 else 0
    aside, deck = tuple(sorted(rest[:aside_count])), tuple(rest[aside_count:])
    tiles = rng.derive("plaettchen").shuffle(FESTIVAL_TILES if spielart == FESTIVAL else CLASSIC_TILES)
    layout: list[tuple[str | None, ...]] = []
    for path in range(PATHS):
        stones: list[str | None] = [None] * (STONES + 1)
        for index, stone in enumerate(TILE_STONES):
            stones[stone] = tiles[path * len(TILE_STONES) + index]
        layout.append(tuple(stones))
    start = rng.derive("startspieler").randbelow(seats)
    empty = tuple(() for _ in range(seats))
    return KoiState(
        spielart=spielart, seats=seats, hands=hands, known=empty, deck=deck, aside=aside,
        piles=((),) * PATHS, rows=tuple(((),) * PATHS for _ in range(seats)),
        stones=tuple((0,) * PATHS for _ in range(seats)), masters=(-1,) * seats, tiles=tuple(layout),
        taken=tuple((0,) * len(TILE_KINDS) for _ in range(seats)), blossoms=(0,) * seats, teahouse=(0,) * seats,
        arrivals=((),) * PATHS, current=start, start=start, turn=1, phase=LEGEN, jetty_path=-1, discarded=-1,
        last=empty)
