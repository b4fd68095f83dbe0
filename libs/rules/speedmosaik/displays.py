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


def sample_hidden_bag(
    counts: dict[str, int], order: tuple[str, ...], bag_size: int, rng: SeededRng
) -> tuple[tuple[str, ...], bytes]:
    """Return a bag holding `counts` of each piece (in an order drawn from `rng`) and a stand-in seed.

    This is what a seat may not know: the bag's order and the seed. Raises ValueError when the view's
    counts cannot be right (negative, or not adding up to the bag's public size).
    """
    if any(count < 0 for count in counts.values()) or sum(counts.values()) != bag_size:
        raise ValueError("view is inconsistent: the bag cannot hold what it shows")
    pieces = [piece for piece in order for _ in range(counts.get(piece, 0))]
    bag = tuple(rng.derive("beutel").shuffle(pieces))
    seed_rng = rng.derive("seed")
    seed = b"".join(seed_rng.next_u64().to_bytes(8, "big") for _ in range(4))
    return bag, seed
