"""The first state of a game: island, supply, mutation deck, dice deck; founding starts with seat 0."""

from __future__ import annotations

from libs.rules.rng import SeededRng
from libs.rules.speedspore.board import CORNER_COUNT, EDGE_COUNT, GULLY_EDGES
from libs.rules.speedspore.dice import shuffled_deck
from libs.rules.speedspore.island import layout
from libs.rules.speedspore.material import DESERT, KIND_COUNT, MUTATION_DECK, SUPPLY_PER_KIND
from libs.rules.speedspore.state import GRUENDUNG, HAUPT, SporeState


def new_game(config: dict[str, object], seats: int, seed: bytes, version: int) -> SporeState:
    """Return the first state for a normalised config (founding, seat 0 places first) of this rules version
    (its gully positions and Einsteiger gully kinds)."""
    island = str(config["insel"])
    fields, numbers, gullys = layout(island, seed, version)
    dice_mode = str(config["wuerfel"])
    deck = tuple(SeededRng(seed, "speedspore/mutationen").shuffle(MUTATION_DECK))
    empty = tuple(0 for _ in range(KIND_COUNT))
    return SporeState(
        seats=seats, target=int(str(config["siegpunkte"])), dice_mode=dice_mode, island=island,
        fields=fields, numbers=numbers, gullys=gullys, gully_edges=GULLY_EDGES[version], seed=bytes(seed),
        phase=GRUENDUNG, current=0, turn=0, founding=0, founding_corner=-1,
        corner_owner=(-1,) * CORNER_COUNT, corner_level=(0,) * CORNER_COUNT, edge_owner=(-1,) * EDGE_COUNT,
        hands=(empty,) * seats, supply=(SUPPLY_PER_KIND,) * KIND_COUNT,
        cards=((),) * seats, bought=(), deck=deck, played=((),) * seats, played_this_turn=False,
        rolled=False, rolls=0, dice=(),
        dice_deck=shuffled_deck(seed, 0) if dice_mode == "ausgeglichen" else (), dice_seen=(), shuffles=0,
        mold=fields.index(DESERT), discard=(0,) * seats, after_mold=HAUPT, free_threads=0,
        offer=None, offers_made=0, robberies=0, pieces=((0, 0, 0),) * seats, trail=(0,) * seats,
        longest_holder=-1, largest_holder=-1, winner=-1, last_yield=None, turn_log=((),) * seats,
        harvest=(0,) * seats, trades=(0,) * seats,
    )
