"""The material of the Kirchenfenster: glass colours, the fixed strips, windows, the breakage track."""

from __future__ import annotations

COLOURS: tuple[str, ...] = ("blau", "gelb", "gruen", "rot", "violett")
"""Glass colour ids in canonical order (eigene Festlegung: the text names no colours)."""

COLOUR_NAMES: dict[str, str] = {
    "blau": "Blau",
    "gelb": "Gelb",
    "gruen": "Grün",
    "rot": "Rot",
    "violett": "Violett",
}

JOKER = "joker"
"""A joker field of a strip takes a pane of any colour."""

PANES_PER_COLOUR = 20
ROUNDS = 6
STRIP_FIELDS = 5
STRIP_COUNT = 8

SIDE_FRONT = 0
SIDE_BACK = 1
SIDE_DONE = 2
"""A strip is filled on its front, then on its back, then it is done."""

B, G, N, R, V, J = "blau", "gelb", "gruen", "rot", "violett", JOKER

STRIP_PATTERNS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    ((B, B, B, G, G), (R, R, J, J, V)),
    ((G, G, G, R, R), (J, B, B, N, J)),
    ((R, R, R, V, V), (J, J, G, G, B)),
    ((V, V, V, N, N), (R, R, G, J, J)),
    ((N, N, B, B, G), (V, V, J, J, R)),
    ((B, B, N, N, R), (J, G, G, V, J)),
    ((V, V, R, R, B), (N, N, V, J, J)),
    ((G, G, N, N, V), (J, J, B, B, N)),
)
"""Eigene Festlegung: the 8 double-sided strips (front, back), the same for every player, left to right.

Front: five fields in two or three colours, in groups; every colour has 8 front fields. Back: two joker
fields and three fields in two colours (Blau, Gelb, Rot, Violett 5 back fields each, Grün 4).
"""

WINDOW_VALUES: tuple[int, ...] = (2, 2, 3, 3, 4, 4, 5, 5)
"""Eigene Festlegung: the value of the window below each strip, left to right."""

WINDOW_CAPACITY = 2
"""A window takes one pane per side of its strip."""

BREAKAGE_TRACK: tuple[int, ...] = (0, -1, -2, -3, -5, -7, -9, -11, -14, -18)
"""Eigene Festlegung: the Glasbruch-Leiste; reaching the last field costs 18 at once and restarts at 0."""

BREAKAGE_BOTTOM = len(BREAKAGE_TRACK) - 1
WRAP_LOSS = -BREAKAGE_TRACK[BREAKAGE_BOTTOM]

PILLAR_WINDOWS: tuple[tuple[int, int], ...] = ((0, 1), (2, 3), (4, 5), (6, 7))
"""Eigene Festlegung: windows 1+2, 3+4, 5+6, 7+8 (0-based here) frame the four pillars."""

PILLAR_POINTS: dict[int, int] = {4: 10, 3: 6, 2: 3}
"""Points per pillar by how many of its 4 frame fields (the panes of its two windows) are filled."""

PANES_PER_END_POINT = 3


def colour_name(colour: str) -> str:
    """Return the German display name of a colour id ("Joker" for a joker field)."""
    return "Joker" if colour == JOKER else COLOUR_NAMES[colour]


def colour_sort_key(colour: str) -> int:
    """Return the position of a colour in the canonical colour order."""
    return COLOURS.index(colour)


def sorted_panes(panes: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Return panes sorted by the canonical colour order (a heap on the table has no order)."""
    return tuple(sorted(panes, key=colour_sort_key))


def pattern_of(strip: int, side: int) -> tuple[str, ...]:
    """Return the five fields of a strip's side (0-based strip, side 0 front / 1 back)."""
    return STRIP_PATTERNS[strip][side]


def breakage_loss(field: int, wraps: int) -> int:
    """Return every point lost to breakage so far (each wrap's 18 included), as a positive number."""
    return wraps * WRAP_LOSS - BREAKAGE_TRACK[field]


def step_breakage(field: int, wraps: int, steps: int) -> tuple[int, int]:
    """Return (field, wraps) after the marker moves ``steps`` fields down (restarting at the top)."""
    total = field + steps
    return total % BREAKAGE_BOTTOM, wraps + total // BREAKAGE_BOTTOM
