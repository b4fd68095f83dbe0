"""Speedspore's material: resource kinds, field kinds, number tokens, costs, piece limits and mutation cards."""

from __future__ import annotations

GAME = "speedspore"

TOTHOLZ, HUMUS, MOOS, REGENWASSER, MINERALIEN = 0, 1, 2, 3, 4
KINDS: tuple[str, ...] = ("totholz", "humus", "moos", "regenwasser", "mineralien")
"""Resource kinds by index (the JSON names of moves and views)."""
KIND_INDEX: dict[str, int] = {name: index for index, name in enumerate(KINDS)}
KIND_NAMES: tuple[str, ...] = ("Totholz", "Humus", "Moos", "Regenwasser", "Mineralien")
KIND_COUNT = 5

DESERT = 5
"""Field kind of the Autobahnkreuz (yields nothing); field kinds 0–4 yield the resource of the same index."""
FIELD_KINDS: tuple[str, ...] = ("park", "deponie", "stadion", "klaerwerk", "ruine", "autobahnkreuz")
FIELD_NAMES: tuple[str, ...] = ("Verwilderter Park", "Alte Deponie", "Moosstadion", "Klärwerk", "Hochhausruine",
                                "Autobahnkreuz")
FIELD_STOCK: tuple[int, ...] = (4, 3, 4, 4, 3, 1)
"""How many fields of each kind the island has (19 in all)."""
NUMBER_TOKENS: tuple[int, ...] = (2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10, 10, 11, 11, 12)

SUPPLY_PER_KIND = 19

ANY = -1
"""Gully kind of a 3:1 gully; 2:1 gullys have the resource index as kind."""
GULLY_STOCK: tuple[int, ...] = (ANY, ANY, ANY, ANY, TOTHOLZ, HUMUS, MOOS, REGENWASSER, MINERALIEN)

FADEN, FRUCHTKOERPER, TURM, MUTATION = "faden", "fruchtkoerper", "turm", "mutation"
BUILDS: tuple[str, ...] = (FADEN, FRUCHTKOERPER, TURM, MUTATION)
BUILD_NAMES: dict[str, str] = {FADEN: "Myzelfaden", FRUCHTKOERPER: "Fruchtkörper", TURM: "Sporenturm",
                               MUTATION: "Mutation"}
COSTS: dict[str, tuple[int, ...]] = {
    FADEN: (1, 1, 0, 0, 0),
    FRUCHTKOERPER: (1, 1, 1, 1, 0),
    TURM: (0, 0, 0, 2, 3),
    MUTATION: (0, 0, 1, 1, 1),
}
LIMITS: dict[str, int] = {FADEN: 15, FRUCHTKOERPER: 5, TURM: 4}

# Mutation cards (codes; a hand is a sorted tuple of codes)
WOLKE, WUCHSSCHUB, NAEHRQUELLE, NETZSOG = 0, 1, 2, 3
FUNDE: tuple[int, ...] = (4, 5, 6, 7, 8)
CARD_KEYS: tuple[str, ...] = ("sporenwolke", "wuchsschub", "naehrquelle", "netzsog",
                              "bibliothek", "kathedrale", "u-bahnhof", "museum", "rathaus")
CARD_NAMES: tuple[str, ...] = ("Sporenwolke", "Wuchsschub", "Nährquelle", "Netzsog",
                               "Bibliothek", "Kathedrale", "U-Bahnhof", "Museum", "Rathaus")
CARD_INDEX: dict[str, int] = {key: code for code, key in enumerate(CARD_KEYS)}
MUTATION_DECK: tuple[int, ...] = (WOLKE,) * 14 + FUNDE + (WUCHSSCHUB,) * 2 + (NAEHRQUELLE,) * 2 + (NETZSOG,) * 2
PLAYABLE: tuple[int, ...] = (WOLKE, WUCHSSCHUB, NAEHRQUELLE, NETZSOG)

GEFLECHT_MIN = 5
WOLKE_MIN = 3
SPECIAL_POINTS = 2
HAND_LIMIT = 7
