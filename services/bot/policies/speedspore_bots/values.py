"""What a Speedspore position is worth to a seat: points, production, the network's reach, and its hand.

Pure and fast: it reads the module's ``SporeState`` (a determinized one: the seat's own part is exact, the
others' hidden hands and cards are a sample) and never applies a move. Everything a decision needs is read
once into a ``Table`` (production per kind, rates, where the seat can still settle and how far away that
is); a move is valued by what it changes (``options.py``).

Units: one resource card is worth about 1; a victory point ``VP`` (more near the end); a pip of production
(the dots under a number: how many of the 36 rolls bring it) ``pip_weight`` (less the later the game).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from libs.rules.speedspore.board import (
    CORNER_COUNT,
    CORNER_EDGES,
    CORNER_FIELDS,
    CORNER_NEIGHBOURS,
    EDGE_CORNERS,
    gully_frame,
)
from libs.rules.speedspore.building import distance_ok, pieces_left, rates
from libs.rules.speedspore.material import (
    ANY,
    COSTS,
    DESERT,
    FADEN,
    FRUCHTKOERPER,
    FUNDE,
    HAND_LIMIT,
    KIND_COUNT,
    MUTATION,
    SPECIAL_POINTS,
    TURM,
    WOLKE,
)
from libs.rules.speedspore.state import SporeState

__all__ = [
    "PIPS",
    "VP",
    "Table",
    "corner_pips",
    "corner_value",
    "hand_value",
    "public_points",
    "table_of",
]

PIPS: tuple[int, ...] = (0, 0, 1, 2, 3, 4, 5, 0, 5, 4, 3, 2, 1)
"""Per number token how many of the 36 rolls bring it."""
VP = 6.0
"""What one victory point is worth, in resource cards (more towards the end: ``Table.vp_weight``)."""
PIP = 0.75
"""What one pip of production is worth at the start, in cards (less towards the end: ``Table.pip_weight``)."""
PIP_BY_LEVEL = {"strong": 1.3}
"""The strong level's weight of production: measured on the ladder, growing first and building later wins
more games than the normal level's balance (``PIP``)."""
VP_GROWTH = {"strong": 1.0}
"""How much a point's worth grows towards the target (normal: by half; strong: doubles, measured: it wins
more of its games when it turns production into points near the end)."""
PIP_FADE = {"strong": 0.0}
"""How much production loses of its weight as the seat nears the target (normal: 80 %); the strong level
keeps it (measured: a fading weight won clearly fewer of its games)."""
WIN = 1000.0
"""A move that wins the game now."""
SEVEN_SHARE = {2: 1 / 6, 3: 11 / 36, 4: 0.42}
"""About the chance of a 7 among the other seats' rolls before the seat's next turn."""
GOAL_WEIGHT = {FRUCHTKOERPER: 5.0, TURM: 5.5, FADEN: 2.0, MUTATION: 2.2}
"""How much being able to pay each build soon is worth (the hand's plan), at full cover."""
GULLY_ANY = 1.2
"""A 3:1 gully, worth in cards (on a corner to settle)."""
GULLY_OWN = 0.25
"""A 2:1 gully: this much per pip of the seat's production of its kind (plus ``GULLY_ANY``/2)."""
CARD_VALUE = {WOLKE: 1.8}
"""Playable mutation cards in hand (Funde count as points); the rest default to ``OTHER_CARD``."""
OTHER_CARD = 2.5
REACH_SHARE = 0.6
"""What a free corner the seat can settle on now is worth, as a share of settling there (point and yield)."""
REACH_DECAY = 0.6
"""Per thread still needed to reach a free corner, its worth shrinks by this factor."""


def public_points(state: SporeState, seat: int) -> int:
    """Return the seat's victory points as everyone sees them (buildings and the two special cards)."""
    points = state.pieces[seat][1] + 2 * state.pieces[seat][2]
    if state.longest_holder == seat:
        points += SPECIAL_POINTS
    if state.largest_holder == seat:
        points += SPECIAL_POINTS
    return points


def own_points(state: SporeState, seat: int) -> int:
    """Return the seat's full victory points (its hidden Funde included)."""
    return public_points(state, seat) + sum(1 for card in state.cards[seat] if card in FUNDE)


def corner_pips(state: SporeState, corner: int, skip_mold: bool = True) -> list[tuple[int, int]]:
    """Return (kind, pips) per productive field at the corner (the mold's field left out when asked)."""
    result = []
    for fld in CORNER_FIELDS[corner]:
        kind = state.fields[fld]
        if kind == DESERT or (skip_mold and fld == state.mold):
            continue
        result.append((kind, PIPS[state.numbers[fld]]))
    return result


@dataclass
class Table:
    """What a seat's decision reads from the state once."""

    state: SporeState
    seat: int
    production: list[float]
    """Per kind the seat's pips (towers twice; the mold's field left out)."""
    kind_weight: tuple[float, ...]
    """Per kind how scarce it is on the island and for the seat (1 = average)."""
    rates: tuple[int, ...]
    points: int
    """The seat's full points (own Funde included)."""
    others: tuple[int, ...]
    """Every seat's public points (the seat's own too)."""
    stage: float
    """0 at the start … 1 when the seat is at the target."""
    level: str = "normal"
    """The level deciding (the strong level trades more carefully)."""
    plan: list[tuple[str, float]] = field(default_factory=list)
    """The builds the hand plans for (``goals``), with their weights."""
    distance: dict[int, int] = field(default_factory=dict)
    """Free corners where the seat may still settle (distance rule) → threads it needs first (0: now)."""
    spot_values: dict[int, float] = field(default_factory=dict)

    @property
    def vp_weight(self) -> float:
        """What a point is worth now (more towards the end; for the strong level twice as much at the target)."""
        return VP * (1.0 + VP_GROWTH.get(self.level, 0.5) * self.stage)

    @property
    def pip_weight(self) -> float:
        """What a pip of production is worth now (the later, the less; the strong level values it higher)."""
        return PIP_BY_LEVEL.get(self.level, PIP) * max(0.25, 1.0 - PIP_FADE.get(self.level, 0.8) * self.stage)

    @property
    def target(self) -> int:
        """Victory points to win."""
        return self.state.target


def _island_weights(state: SporeState) -> list[float]:
    totals = [0.0] * KIND_COUNT
    for fld, kind in enumerate(state.fields):
        if kind != DESERT:
            totals[kind] += PIPS[state.numbers[fld]]
    mean = sum(totals) / KIND_COUNT
    return [min(1.5, max(0.75, (mean / total) ** 0.5)) if total else 1.5 for total in totals]


def table_of(state: SporeState, seat: int, level: str = "normal") -> Table:
    """Return what a decision of ``seat`` reads: production, weights, rates, points, where it may settle."""
    production = [0.0] * KIND_COUNT
    for corner in range(CORNER_COUNT):
        if state.corner_owner[corner] == seat:
            for kind, pips in corner_pips(state, corner):
                production[kind] += pips * state.corner_level[corner]
    island = _island_weights(state)
    total = sum(production) or 1.0
    # A kind the seat hardly produces is worth more to it; one it has plenty of, less.
    weights = tuple(island[k] * (1.25 if production[k] == 0 else 1.1 if production[k] / total < 0.12
                                 else 0.85 if production[k] / total > 0.35 else 1.0) for k in range(KIND_COUNT))
    points = own_points(state, seat)
    others = tuple(public_points(state, other) for other in range(state.seats))
    table = Table(state, seat, production, weights, rates(state, seat), points, others,
                  min(1.0, points / max(1, state.target)), level)
    table.distance = settle_distances(state, seat)
    table.spot_values = {corner: corner_value(table, corner) for corner in table.distance}
    table.plan = goals(table)
    return table


def corner_value(table: Table, corner: int, founding: bool = False) -> float:
    """Return what a Fruchtkörper on ``corner`` brings the seat in cards: production (scarcity and new kinds
    weighted), plus its gully."""
    state = table.state
    value = 0.0
    kinds: set[int] = set()
    for kind, pips in corner_pips(state, corner, skip_mold=not founding):
        new = table.production[kind] == 0 and kind not in kinds
        value += pips * table.kind_weight[kind] * (1.2 if new else 1.0)
        kinds.add(kind)
    value *= table.pip_weight
    gully = gully_frame(state.gully_edges).corner_gully[corner]  # where the gullys stand: the state's own
    if gully != -1:
        kind = state.gullys[gully]
        if kind == ANY:
            value += GULLY_ANY if min(table.rates) > 3 else 0.2
        elif table.rates[kind] > 2:
            value += GULLY_ANY / 2 + GULLY_OWN * table.production[kind]
    return value


def settle_distances(state: SporeState, seat: int, extra_edge: int = -1) -> dict[int, int]:
    """Return the free corners where the seat could settle → how many threads it must lay to reach them.

    Breadth-first from every corner the seat's threads touch (0: a thread of its own leads there), over
    free edges and never through a corner with another seat's building; only corners ≤ 3 threads away.
    """
    edges = state.edge_owner
    owners = state.corner_owner
    dist: dict[int, int] = {}
    queue: deque[int] = deque()
    for corner in range(CORNER_COUNT):
        if owners[corner] not in (-1, seat):
            continue
        if any(edges[edge] == seat or edge == extra_edge for edge in CORNER_EDGES[corner]):
            dist[corner] = 0
            queue.append(corner)
    while queue:
        corner = queue.popleft()
        step = dist[corner]
        if step >= 3 or (owners[corner] not in (-1, seat)):
            continue
        for edge, other in zip(CORNER_EDGES[corner], CORNER_NEIGHBOURS[corner], strict=True):
            if edges[edge] != -1 or other in dist or owners[other] not in (-1, seat):
                continue
            dist[other] = step + 1
            queue.append(other)
    return {corner: step for corner, step in dist.items() if owners[corner] == -1 and distance_ok(state, corner)}


def network_value(table: Table, distances: dict[int, int]) -> float:
    """Return what the network's reach is worth: the best two places to settle, discounted per thread needed."""
    if pieces_left(table.state, table.seat, FRUCHTKOERPER) <= 0:
        return 0.0
    point = table.vp_weight
    values = sorted(((table.spot_values.get(corner, 0.0) + point) * (REACH_DECAY ** step)
                     for corner, step in distances.items()), reverse=True)
    if not values:
        return 0.0
    return REACH_SHARE * values[0] + (0.25 * REACH_SHARE * values[1] if len(values) > 1 else 0.0)


def goals(table: Table) -> list[tuple[str, float]]:
    """Return the builds the hand plans for, with their weights (what paying them soon is worth)."""
    state, seat = table.state, table.seat
    result: list[tuple[str, float]] = []
    near = min(table.distance.values(), default=9)
    if pieces_left(state, seat, FRUCHTKOERPER) > 0 and near == 0:
        result.append((FRUCHTKOERPER, GOAL_WEIGHT[FRUCHTKOERPER]))
    elif near <= 3 and pieces_left(state, seat, FADEN) > 0:
        result.append((FADEN, GOAL_WEIGHT[FADEN]))
        if near <= 1:
            result.append((FRUCHTKOERPER, GOAL_WEIGHT[FRUCHTKOERPER] * 0.6))
    if pieces_left(state, seat, TURM) > 0 and any(
            state.corner_owner[c] == seat and state.corner_level[c] == 1 for c in range(CORNER_COUNT)):
        result.append((TURM, GOAL_WEIGHT[TURM]))
    if state.deck:
        result.append((MUTATION, GOAL_WEIGHT[MUTATION]))
    return result


def hand_value(table: Table, hand: tuple[int, ...] | list[int], plan: list[tuple[str, float]] | None = None) -> float:
    """Return what the hand is worth: each card by its kind's weight, the best plan's cover (squared: a hand
    that pays a build outright is worth much more than one halfway there), minus the risk of a 7."""
    weights = table.kind_weight
    value = 0.0
    total = 0
    for kind in range(KIND_COUNT):
        value += hand[kind] * weights[kind] * 0.8
        total += hand[kind]
    best = 0.0
    for build, weight in table.plan if plan is None else plan:
        cost = COSTS[build]
        size = 0
        covered = 0
        for kind in range(KIND_COUNT):
            need = cost[kind]
            if need:
                size += need
                covered += min(need, hand[kind])
        cover = covered / size
        score = weight * cover * cover * (1.5 if covered == size else 1.0)
        if score > best:
            best = score
    value += best
    if total > HAND_LIMIT:
        value -= SEVEN_SHARE.get(table.state.seats, 0.4) * (total // 2) * 1.1
    return value


def card_value(code: int) -> float:
    """Return what a playable mutation card in hand is worth (a Fund counts as its point elsewhere)."""
    return CARD_VALUE.get(code, OTHER_CARD)


def edge_far_corner(edge: int, corner: int) -> int:
    """Return the edge's other corner."""
    a, b = EDGE_CORNERS[edge]
    return b if a == corner else a
