"""Speedkoi's material as decided in seeds/README.md: colours, lanterns, paths, stones, tiles, figures.

A lantern is kept as one small int, ``colour * 11 + value`` (0 … 54, the 55 kinds), so hands, the deck and
the set-aside lanterns are plain int tuples: cheap to copy, compare and sample for the bots' searches.
"""

from __future__ import annotations

from libs.rules.protocol import Json

GAME = "speedkoi"
COLOURS: tuple[str, ...] = ("gold", "indigo", "jade", "karmin", "silber")
"""Colour ids in their fixed order (paths, rows, piles and the overview are listed in this order)."""
COLOUR_NAMES: tuple[str, ...] = ("Gold", "Indigo", "Jade", "Karmin", "Silber")
COLOUR_INDEX: dict[str, int] = {colour: index for index, colour in enumerate(COLOURS)}
PATHS = len(COLOURS)

VALUES = 11
"""Lantern values 0 … 10."""
COPIES = 2
"""Two copies of each of the 55 kinds: 110 lanterns."""
KINDS = PATHS * VALUES
ALL_LANTERNS: tuple[int, ...] = tuple(kind for kind in range(KINDS) for _ in range(COPIES))
HAND_SIZE = 8
SET_ASIDE_TWO_PLAYERS = 30
"""With two players, 30 lanterns are set aside unseen at the start."""

STONES = 9
END_STONE = 9
GOAL_FROM = 7
"""The goal area ("Zielbereich"): stones 7–9."""
GOAL_FIGURES = 5
"""The game ends at once when the fifth figure of all players together stands in the goal area."""
STONE_VALUES: tuple[int, ...] = (0, -4, -3, -2, 1, 2, 3, 6, 7, 10)
"""Indexed by stone (0: no figure on the path, scores 0)."""
TILE_STONES: tuple[int, ...] = (2, 4, 6, 8, 9)

PILGRIMS = 4
PILGRIM, MASTER = "pilger", "meister"
FIGURE_NAMES: dict[str, str] = {PILGRIM: "Pilger", MASTER: "Meister"}

PEARL, DRAGONFLY, BLOSSOM1, BLOSSOM2, BLOSSOM3, JETTY, KOI = (
    "perle", "libelle", "bluete1", "bluete2", "bluete3", "steg", "koi")
BLOSSOM_POINTS: dict[str, int] = {BLOSSOM1: 1, BLOSSOM2: 2, BLOSSOM3: 3}
TILE_KINDS: tuple[str, ...] = ("perle", "libelle", "bluete", "steg", "koi")
"""What a seat's tile counters count, in this order (all blossom tiles as one kind)."""
TILE_KIND_INDEX: dict[str, int] = {PEARL: 0, DRAGONFLY: 1, BLOSSOM1: 2, BLOSSOM2: 2, BLOSSOM3: 2, JETTY: 3, KOI: 4}
TILE_NAMES: dict[str, str] = {PEARL: "Perle", DRAGONFLY: "Libelle", BLOSSOM1: "Kirschblüte (1)",
                              BLOSSOM2: "Kirschblüte (2)", BLOSSOM3: "Kirschblüte (3)", JETTY: "Steg", KOI: "Koi"}
CLASSIC_TILES: tuple[str, ...] = ((PEARL,) * 9 + (DRAGONFLY,) * 9 + (BLOSSOM1,) * 2 + (BLOSSOM2,) * 3
                                  + (BLOSSOM3,) * 2)
FESTIVAL_TILES: tuple[str, ...] = ((PEARL,) * 7 + (JETTY,) * 2 + (DRAGONFLY,) * 7 + (KOI,) * 2
                                   + (BLOSSOM1,) * 2 + (BLOSSOM2,) * 3 + (BLOSSOM3,) * 2)
"""Laternenfest: two pearls become Stege, two dragonflies become Koi."""
TEAHOUSE_BONUS: tuple[int, ...] = (3, 1)
"""Laternenfest: the first on a path's end stone gets +3, the second +1."""

PEARL_POINTS: tuple[int, ...] = (-4, -3, 2, 3, 6, 10)
"""Pearls 0, 1, 2, 3, 4, 5 or more."""

CLASSIC, FESTIVAL = "klassisch", "laternenfest"


def lantern(colour: int, value: int) -> int:
    """Return the code of a lantern kind."""
    return colour * VALUES + value


def colour_of(code: int) -> int:
    """Return a lantern's colour index."""
    return code // VALUES


def value_of(code: int) -> int:
    """Return a lantern's value 0 … 10."""
    return code % VALUES


def lantern_name(code: int) -> str:
    """Return "Gold 7"."""
    return f"{COLOUR_NAMES[code // VALUES]} {code % VALUES}"


def lantern_json(code: int) -> Json:
    """Return ``{"farbe", "wert"}``."""
    return {"farbe": COLOURS[code // VALUES], "wert": code % VALUES}


def pearl_points(pearls: int) -> int:
    """Return the points of a number of pearls (0 → −4, 1 → −3, 2 → +2, 3 → +3, 4 → +6, 5+ → +10)."""
    return PEARL_POINTS[min(pearls, len(PEARL_POINTS) - 1)]


def figure_points(stone: int, master: bool) -> int:
    """Return what a figure on ``stone`` scores (0 for no figure); the master counts double, negatives too."""
    return STONE_VALUES[stone] * (2 if master else 1)
