"""The round machinery every workshop shares: factories and centre, taking from them, the start tile, the bag.

Every workshop lays out 5 / 7 / 9 factories of 4 pieces for 2 / 3 / 4 seats, takes all pieces of a colour
from one factory (the rest goes to the centre) or from the centre, gives the start tile to whoever takes
from the centre first, and ends the taking once factories and centre are empty. What the workshops do
with the pieces afterwards differs and stays in their own packages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from libs.rules.protocol import IllegalMove, Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.texts import effect

Sorter = Callable[[list[str]], tuple[str, ...]]
Factories = tuple[tuple[str, ...], ...]

FACTORIES_PER_SEATS: dict[int, int] = {2: 5, 3: 7, 4: 9}
PIECES_PER_FACTORY = 4


# ---------------------------------------------------------------------------------------------------------
# Filling the factories


def fill_factories(
    bag: tuple[str, ...],
    discard: tuple[str, ...],
    factories: int,
    per_factory: int,
    refill_rng: SeededRng,
    sort: Sorter,
) -> tuple[Factories, tuple[str, ...], tuple[str, ...], int]:
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


def bag_refilled(key: str, count: int, pieces: str, discard: str) -> Json:
    """Return the effect of a discard pile shuffled back into the empty bag.

    ``pieces`` is the workshop's word for ``count`` pieces ("Fliesen"), ``discard`` where they come from
    ("dem Deckel"): "Der Beutel ist leer: 23 Fliesen aus dem Deckel kommen zurück in den Beutel."
    """
    text = f"Der Beutel ist leer: {count} {pieces} aus {discard} kommen zurück in den Beutel."
    return effect(key, text, anzahl=count)


# ---------------------------------------------------------------------------------------------------------
# Taking from a factory or the centre


def source_name(factory: int | None) -> str:
    """Return where pieces come from, for a sentence: "der Mitte" or "Schale 3" (``factory`` is 0-based)."""
    return "der Mitte" if factory is None else f"Schale {factory + 1}"


def in_source(factory: int | None) -> str:
    """Return the start of a sentence about a source: "In der Mitte" or "In Schale 3"."""
    return "In der Mitte" if factory is None else f"In Schale {factory + 1}"


def source(factories: Factories, centre: tuple[str, ...], factory: int | None) -> tuple[str, ...]:
    """Return the pieces lying in a factory (0-based) or, for None, in the centre."""
    return centre if factory is None else factories[factory]


def not_in_source(factory: int | None, colour_name: str) -> IllegalMove:
    """Return the refusal of a take whose colour does not lie in the chosen source."""
    return IllegalMove(f"{in_source(factory)} liegt kein {colour_name}.", "colour_not_in_source")


def take_from(
    factories: Factories, centre: tuple[str, ...], factory: int | None, taken: Iterable[str], sort: Sorter
) -> tuple[Factories, tuple[str, ...]]:
    """Return factories and centre after ``taken`` (present in the source) leave a factory or the centre.

    From a factory, the pieces left there move to the centre (sorted again by ``sort``: a heap has no
    order) and the factory stays empty; taking from the centre keeps the order of what is left.
    """
    rest = list(centre if factory is None else factories[factory])
    for piece in taken:
        rest.remove(piece)
    if factory is None:
        return factories, tuple(rest)
    emptied = tuple(() if index == factory else pieces for index, pieces in enumerate(factories))
    return emptied, sort([*centre, *rest])


def all_taken(factories: Factories, centre: tuple[str, ...]) -> bool:
    """Return True once every factory and the centre are empty: the round's taking is over."""
    return not centre and not any(factories)


# ---------------------------------------------------------------------------------------------------------
# The start tile and the order of seats


def takes_start_tile(factory: int | None, start_tile_in_centre: bool) -> bool:
    """Return True if this take gets the start tile: the round's first take from the centre."""
    return factory is None and start_tile_in_centre


def next_seat(seat: int, seats: int) -> int:
    """Return the seat after ``seat`` in turn order."""
    return (seat + 1) % seats


def round_starter(start_tile_holder: int | None, last_taker: int, seats: int) -> int:
    """Return who begins the next round (or the Sternpavillon's placing): the start tile's holder.

    **eigene Festlegung**: if nobody took from the centre (every factory held one colour), the start tile
    stayed there and the seat after the round's last take begins.
    """
    return start_tile_holder if start_tile_holder is not None else next_seat(last_taker, seats)


# ---------------------------------------------------------------------------------------------------------
# What a seat may not know


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
