"""The island's layout: which field is which kind, its number token, and which gully is which.

"Einsteiger" is the published beginner layout (rows from the top; our field ids 0–18 row by row):
Hochhausruine 10, Moosstadion 2, Park 9 / Klärwerk 12, Deponie 6, Moosstadion 4, Deponie 10 /
Klärwerk 9, Park 11, Autobahnkreuz, Park 3, Hochhausruine 8 / Park 8, Hochhausruine 3, Klärwerk 4,
Moosstadion 5 / Deponie 5, Klärwerk 6, Moosstadion 11. Its gullys (``speedspore@2``, the published beginner
board on the published frame; positions 0–8 of ``board.GULLY_EDGES[2]``, clockwise from the top): Regenwasser
(coast edge 0, corners 1–5: Moosstadion 2 / Park 9), Mineralien (corners 10–15: Park 9 / Deponie 10), 3:1
(corners 26–32: Hochhausruine 8), Moos (corners 42–46: Moosstadion 5 / Moosstadion 11), 3:1 (corners 49–52:
Klärwerk 6 / Moosstadion 11), 3:1 (corners 47–51: Deponie 5), Humus (corners 33–38: Klärwerk 9 / Park 8),
Totholz (corners 11–16: Klärwerk 12 / Klärwerk 9), 3:1 (corners 0–3: Hochhausruine 10).
``speedspore@1`` kept its own table on its own positions: 3:1, Moos, 3:1, 3:1, Humus, Totholz, 3:1,
Regenwasser, Mineralien.

"Zufall" shuffles the field kinds (label ``speedspore/insel/felder``) and the number tokens
(``speedspore/insel/zahlen``), then repairs: while a 6 or 8 touches a 6 or 8 or two equal numbers touch,
the first offending field (lowest id) swaps its token with a token drawn from the others
(``speedspore/insel/reparatur/<n>``) that leaves it without conflict when possible. The gully kinds are
shuffled onto the nine gully positions (``speedspore/insel/gullys``).
"""

from __future__ import annotations

from libs.rules.rng import SeededRng
from libs.rules.speedspore.board import FIELD_COUNT, FIELD_NEIGHBOURS
from libs.rules.speedspore.material import (
    ANY,
    DESERT,
    FIELD_STOCK,
    GULLY_STOCK,
    HUMUS,
    MINERALIEN,
    MOOS,
    NUMBER_TOKENS,
    REGENWASSER,
    TOTHOLZ,
)

EINSTEIGER, ZUFALL = "einsteiger", "zufall"

_P, _D, _S, _K, _R, _A = TOTHOLZ, HUMUS, MOOS, REGENWASSER, MINERALIEN, DESERT
EINSTEIGER_FIELDS: tuple[int, ...] = (_R, _S, _P, _K, _D, _S, _D, _K, _P, _A, _P, _R, _P, _R, _K, _S, _D, _K, _S)
EINSTEIGER_NUMBERS: tuple[int, ...] = (10, 2, 9, 12, 6, 4, 10, 9, 11, 0, 3, 8, 8, 3, 4, 5, 5, 6, 11)
EINSTEIGER_GULLYS: dict[int, tuple[int, ...]] = {
    1: (ANY, MOOS, ANY, ANY, HUMUS, TOTHOLZ, ANY, REGENWASSER, MINERALIEN),
    2: (REGENWASSER, MINERALIEN, ANY, MOOS, ANY, ANY, HUMUS, TOTHOLZ, ANY),
}
"""Per rules version the Einsteiger island's gully kinds, per gully position of that version."""

Layout = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
"""(field kinds, number tokens (0 on the Autobahnkreuz), gully kinds)."""


def _red(number: int) -> bool:
    return number in (6, 8)


def conflicts(numbers: tuple[int, ...] | list[int], field: int, strict: bool) -> bool:
    """Return True if ``field``'s token touches a clash: 6/8 next to 6/8, or (strict) an equal number."""
    mine = numbers[field]
    if mine == 0:
        return False
    for other in FIELD_NEIGHBOURS[field]:
        theirs = numbers[other]
        if theirs == 0:
            continue
        if _red(mine) and _red(theirs):
            return True
        if strict and mine == theirs:
            return True
    return False


def layout(kind: str, seed: bytes, version: int) -> Layout:
    """Return the island of this kind for this rules version; "zufall" is drawn from ``seed`` (deterministic).

    The versions differ only in the Einsteiger gully kinds (each version's positions are ``board.GULLY_EDGES``);
    a "zufall" island is drawn the same way in every version.
    """
    if kind == EINSTEIGER:
        return EINSTEIGER_FIELDS, EINSTEIGER_NUMBERS, EINSTEIGER_GULLYS[version]
    base = SeededRng(seed, "speedspore/insel")
    stock = [kind_ for kind_, count in enumerate(FIELD_STOCK) for _ in range(count)]
    fields = tuple(base.derive("felder").shuffle(stock))
    tokens = base.derive("zahlen").shuffle(NUMBER_TOKENS)
    numbers: list[int] = []
    for field_kind in fields:
        numbers.append(0 if field_kind == DESERT else tokens.pop())
    _repair(numbers, base)
    gullys = tuple(base.derive("gullys").shuffle(GULLY_STOCK))
    return fields, tuple(numbers), gullys


def _repair(numbers: list[int], base: SeededRng) -> None:
    """Swap tokens until no clash is left (deterministic from ``base``)."""
    for attempt in range(10_000):
        bad = [field for field in range(FIELD_COUNT) if conflicts(numbers, field, True)]
        if not bad:
            return
        rng = base.derive(f"reparatur/{attempt}")
        field = bad[0]
        others = [other for other in range(FIELD_COUNT) if other != field and numbers[other] != 0]
        good = []
        for other in others:
            numbers[field], numbers[other] = numbers[other], numbers[field]
            if not conflicts(numbers, field, True) and not conflicts(numbers, other, True):
                good.append(other)
            numbers[field], numbers[other] = numbers[other], numbers[field]
        pick = rng.choice(good or others)
        numbers[field], numbers[pick] = numbers[pick], numbers[field]
    raise RuntimeError("no island without clashes found")  # pragma: no cover
