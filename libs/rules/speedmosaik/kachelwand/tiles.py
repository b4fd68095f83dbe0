"""The material of the Kachelwand: colours, the fixed wall pattern, the floor and the factories."""

from __future__ import annotations

COLOURS: tuple[str, ...] = ("blau", "gelb", "rot", "schwarz", "tuerkis")
"""Colour ids in the order of the top wall row (the published diagonal pattern)."""

JOKER = "joker"
"""The golden joker tile (only with the setting jokers "mit"); it counts as the colour it is taken with."""

JOKERS_IN_BAG = 10
TILE_ORDER: tuple[str, ...] = (*COLOURS, JOKER)
"""Colours in wall order, then the joker: the canonical order of tiles in a heap and of moves."""

COLOUR_NAMES: dict[str, str] = {
    "blau": "Blau",
    "gelb": "Gelb",
    "rot": "Rot",
    "schwarz": "Schwarz",
    "tuerkis": "Türkis",
    JOKER: "Joker",
}

TILES_PER_COLOUR = 20
WALL_SIZE = 5
FLOOR_PENALTIES: tuple[int, ...] = (-1, -1, -2, -2, -2, -3, -3)
FLOOR_SPACES = len(FLOOR_PENALTIES)
START_TILE = "startstein"

BONUS_ROW = 2
BONUS_COLUMN = 7
BONUS_COLOUR = 10


def wall_colour(row: int, column: int) -> str:
    """Return the colour printed on the fixed wall at 0-based (row, column)."""
    return COLOURS[(column - row) % WALL_SIZE]


def wall_column(row: int, colour: str) -> int:
    """Return the 0-based column where ``colour`` hangs in 0-based wall ``row``."""
    return (COLOURS.index(colour) + row) % WALL_SIZE


def floor_penalty(count: int) -> int:
    """Return the (negative) penalty for ``count`` occupied floor spaces."""
    return sum(FLOOR_PENALTIES[: min(count, FLOOR_SPACES)])


def colour_name(colour: str) -> str:
    """Return the German display name of a colour id."""
    return COLOUR_NAMES[colour]


def colour_sort_key(colour: str) -> int:
    """Return the position of a tile in the canonical order (colours in wall order, the joker last)."""
    return TILE_ORDER.index(colour)


_TILE_RANK: dict[str, int] = {tile: rank for rank, tile in enumerate(TILE_ORDER)}


def sorted_tiles(tiles: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Return tiles sorted by the canonical colour order (the order of a heap on the table is no data)."""
    try:  # the rank looked up in C: every move sorts the lid and the centre
        return tuple(sorted(tiles, key=_TILE_RANK.__getitem__))
    except (KeyError, TypeError):  # not a tile: refused as colour_sort_key refuses it
        return tuple(sorted(tiles, key=colour_sort_key))
