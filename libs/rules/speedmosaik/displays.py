"""The factory displays every workshop shares: drawing a round's factories from the bag."""

from __future__ import annotations

from collections.abc import Callable

from libs.rules.rng import SeededRng

Sorter = Callable[[list[str]], tuple[str, ...]]


def fill_factories(
    bag: tuple[str, ...],
    discard: tuple[str, ...],
    factories: int,
    per_factory: int,
    refill_rng: SeededRng,
    sort: Sorter,
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], tuple[str, ...], int]:
    """Draw `per_factory` pieces per factory from the front of the bag, shuffling the discard in when it is empty.

    Returns the factories (each sorted by `sort`), the bag, the discard and how many discarded pieces went
    back into the bag (0 if none). When bag and discard both run out, the remaining factories stay partly
    or fully empty.
    """
    remaining = list(bag)
    rest = discard
    refilled = 0
    filled: list[tuple[str, ...]] = []
    for _ in range(factories):
        drawn: list[str] = []
        while len(drawn) < per_factory:
            if not remaining:
                if not rest:
                    break
                remaining = refill_rng.shuffle(rest)
                refilled += len(rest)
                rest = ()
            drawn.append(remaining.pop(0))
        filled.append(sort(drawn))
    return tuple(filled), tuple(remaining), rest, refilled
