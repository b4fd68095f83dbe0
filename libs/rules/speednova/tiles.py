"""Speednova's material: the six star colours (with their shapes), the 120 double stars and their codes.

A double star ("Doppelstern", a tile) is an int code ``low * 6 + high`` of its two colour indices with
``low <= high``; states keep racks and the bag as tuples of codes (cheap to copy, hash and compare).
"""

from __future__ import annotations

COLOURS: tuple[str, ...] = ("komet", "nebel", "riese", "zwerg", "pulsar", "quasar")
"""The colour keys of moves and views, in the project's fixed order (README: Komet, Nebel, Riese from the
text; Zwerg, Pulsar, Quasar added)."""
COLOUR_NAMES: tuple[str, ...] = ("Komet", "Nebel", "Riese", "Zwerg", "Pulsar", "Quasar")
SHAPES: tuple[str, ...] = ("Schweif", "Spirale", "Kreis", "Punkt", "Strahlenkranz", "Raute")
"""Each colour's shape for colour-blind display (README), returned with every colour in views."""
COLOUR_INDEX: dict[str, int] = {name: index for index, name in enumerate(COLOURS)}
N_COLOURS = 6

SAME_COLOUR_COPIES = 5
"""Double stars of one colour per colour (6 × 5 = 30)."""
MIXED_COPIES = 6
"""Double stars per pair of two colours (15 × 6 = 90)."""


def tile_code(first: int, second: int) -> int:
    """Return the code of the double star with these two colours (in either order)."""
    return first * N_COLOURS + second if first <= second else second * N_COLOURS + first


TILE_COLOURS: tuple[tuple[int, int], ...] = tuple((code // N_COLOURS, code % N_COLOURS) for code in range(36))
"""Per code: its two colour indices (low, high); codes with low > high are never used."""


def all_tiles() -> tuple[int, ...]:
    """Return the 120 double stars in their fixed order (before the seeded shuffle of the bag)."""
    tiles: list[int] = []
    for colour in range(N_COLOURS):
        tiles += [tile_code(colour, colour)] * SAME_COLOUR_COPIES
    for low in range(N_COLOURS):
        for high in range(low + 1, N_COLOURS):
            tiles += [tile_code(low, high)] * MIXED_COPIES
    return tuple(tiles)


ALL_TILES: tuple[int, ...] = all_tiles()


def tile_json(code: int) -> list[str]:
    """Return a double star as JSON: its two colour keys (low first)."""
    low, high = TILE_COLOURS[code]
    return [COLOURS[low], COLOURS[high]]


def tile_name(code: int) -> str:
    """Return a double star as players read it: "Komet/Nebel"."""
    low, high = TILE_COLOURS[code]
    return f"{COLOUR_NAMES[low]}/{COLOUR_NAMES[high]}"


def colour_json(colour: int) -> dict[str, str]:
    """Return a colour with its display name and its shape."""
    return {"farbe": COLOURS[colour], "name": COLOUR_NAMES[colour], "form": SHAPES[colour]}
