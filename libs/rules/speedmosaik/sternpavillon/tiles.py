"""The material of the Sternpavillon: colours, jokers per round, the seven stars and the bonus places."""

from __future__ import annotations

from dataclasses import dataclass

COLOURS: tuple[str, ...] = ("rot", "blau", "gelb", "orange", "gruen", "lila")
"""Colour ids in canonical order (the order of the outer stars around the centre star)."""

COLOUR_NAMES: dict[str, str] = {
    "rot": "Rot",
    "blau": "Blau",
    "gelb": "Gelb",
    "orange": "Orange",
    "gruen": "Grün",
    "lila": "Lila",
}

TILES_PER_COLOUR = 22
SUPPLY_SIZE = 10
ROUNDS = 6
START_SCORE = 5
FREE_KEEP = 4
"""Tiles a passing player keeps for free ("bis zu 4 Steine"); each further kept tile costs 1 point."""

WILD_ORDER: tuple[str, ...] = ("lila", "gruen", "orange", "gelb", "blau", "rot")
"""The joker colour of rounds 1–6 (the text's order: Lila, Grün, Orange, Gelb, Blau, Rot)."""

CENTRE_STAR = "mitte"
OUTER_STARS: tuple[str, ...] = COLOURS
"""The six outer stars, each named after its colour, in ring order around the centre star."""
STARS: tuple[str, ...] = (CENTRE_STAR, *OUTER_STARS)
"""All seven stars; index 0 is the centre star."""
STAR_NAMES: dict[str, str] = {CENTRE_STAR: "Mittelstern", **{c: f"Stern {COLOUR_NAMES[c]}" for c in COLOURS}}
SPACES = 6
"""Each star has six spaces with the numbers 1–6, in ring order (6 touches 1)."""

FULL_STAR_BONUS: dict[str, int] = {
    CENTRE_STAR: 12,
    "rot": 14,
    "blau": 15,
    "gelb": 16,
    "orange": 17,
    "gruen": 18,
    "lila": 20,
}
NUMBER_BONUS: dict[int, int] = {1: 4, 2: 8, 3: 12, 4: 16}
"""End bonus when the spaces with this number are filled in all seven stars."""

PILLAR = "saeule"
STATUE = "statue"
WINDOW = "fenster"
BONUS_KIND_NAMES: dict[str, str] = {PILLAR: "Säule", STATUE: "Statue", WINDOW: "Fenster"}
BONUS_REWARD: dict[str, int] = {PILLAR: 1, STATUE: 2, WINDOW: 3}


@dataclass(frozen=True)
class BonusPlace:
    """A pillar, statue or window between the stars and the star spaces that frame it."""

    id: str
    kind: str
    name: str
    """German display name, e.g. "Fenster Rot" or "Statue Rot–Blau"."""
    frame: tuple[tuple[str, int], ...]
    """(star, number) of every space around it; it is surrounded once all of them are filled."""

    @property
    def reward(self) -> int:
        """Return how many bonus tiles surrounding it earns."""
        return BONUS_REWARD[self.kind]


def _bonus_places() -> tuple[BonusPlace, ...]:
    """Build the board geometry (eigene Festlegung, see docs/rules/speedmosaik-sternpavillon.md).

    Every outer star points its spaces 2 and 3 at the centre star, 1 and 2 at the next outer star
    (clockwise), 3 and 4 at the previous one and 5 and 6 outwards. The centre star's space k points into the
    gap between the outer stars k and k+1 (1 = Rot/Blau … 6 = Lila/Rot).
    """
    places: list[BonusPlace] = []
    for k, star in enumerate(OUTER_STARS):
        after = OUTER_STARS[(k + 1) % len(OUTER_STARS)]
        before_centre = k if k > 0 else SPACES
        name, after_name = COLOUR_NAMES[star], COLOUR_NAMES[after]
        places.append(
            BonusPlace(
                f"{PILLAR}-{star}",
                PILLAR,
                f"Säule {name}",
                ((star, 2), (star, 3), (CENTRE_STAR, before_centre), (CENTRE_STAR, k + 1)),
            )
        )
        places.append(
            BonusPlace(
                f"{STATUE}-{star}-{after}",
                STATUE,
                f"Statue {name}–{after_name}",
                ((star, 1), (star, 2), (after, 3), (after, 4)),
            )
        )
        places.append(BonusPlace(f"{WINDOW}-{star}", WINDOW, f"Fenster {name}", ((star, 5), (star, 6))))
    return tuple(places)


BONUS_PLACES: tuple[BonusPlace, ...] = _bonus_places()
"""The six pillars (1 bonus tile), six statues (2) and six windows (3)."""

PLACES_BY_SPACE: dict[tuple[int, int], tuple[int, ...]] = {
    (star_index, number): tuple(
        i for i, place in enumerate(BONUS_PLACES) if (STARS[star_index], number) in place.frame
    )
    for star_index in range(len(STARS))
    for number in range(1, SPACES + 1)
}
"""For (star index, number): the indexes of the bonus places that space frames."""


def colour_name(colour: str) -> str:
    """Return the German display name of a colour id."""
    return COLOUR_NAMES[colour]


def colour_index(colour: str) -> int:
    """Return the position of a colour in the canonical colour order."""
    return COLOURS.index(colour)


def wild_colour(round_number: int) -> str:
    """Return the joker colour of a round (1–6)."""
    return WILD_ORDER[(round_number - 1) % ROUNDS]


def star_colour(star: str) -> str | None:
    """Return the colour of an outer star, or None for the centre star (it takes every colour once)."""
    return None if star == CENTRE_STAR else star


def sorted_tiles(tiles: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Return tiles sorted by the canonical colour order (the order of a heap on the table is no data)."""
    return tuple(sorted(tiles, key=colour_index))


def counts_of(tiles: tuple[str, ...] | list[str]) -> tuple[int, ...]:
    """Return the number of tiles of every colour, in colour order."""
    return tuple(sum(1 for tile in tiles if tile == colour) for colour in COLOURS)


def tiles_of(counts: tuple[int, ...]) -> tuple[str, ...]:
    """Return the tiles of a colour-count tuple in colour order."""
    return tuple(colour for colour, count in zip(COLOURS, counts, strict=True) for _ in range(count))


def counts_json(counts: tuple[int, ...]) -> dict[str, int]:
    """Return colour counts as JSON ``{colour: count}`` with every colour listed."""
    return {colour: count for colour, count in zip(COLOURS, counts, strict=True)}


def tiles_word(count: int) -> str:
    """Return "Stein" or "Steine" for a count."""
    return "Stein" if count == 1 else "Steine"
