"""Where a seat may build: founding spots, threads, Fruchtkörper, towers, and its trading rates."""

from __future__ import annotations

from libs.rules.speedspore.board import (
    CORNER_COUNT,
    CORNER_EDGES,
    CORNER_NEIGHBOURS,
    EDGE_CORNERS,
    gully_frame,
)
from libs.rules.speedspore.material import ANY, COSTS, KIND_COUNT, LIMITS
from libs.rules.speedspore.state import SporeState

PIECE_INDEX = {"faden": 0, "fruchtkoerper": 1, "turm": 2}


def distance_ok(state: SporeState, corner: int) -> bool:
    """True if the corner and all its neighbours are free of buildings (Abstandsregel)."""
    owners = state.corner_owner
    if owners[corner] != -1:
        return False
    return all(owners[other] == -1 for other in CORNER_NEIGHBOURS[corner])


def founding_corners(state: SporeState) -> list[int]:
    """Return the corners a founding Fruchtkörper may take (free, distance rule), ascending."""
    return [corner for corner in range(CORNER_COUNT) if distance_ok(state, corner)]


def founding_edges(state: SporeState, corner: int) -> list[int]:
    """Return the free edges at ``corner`` (the founding thread's places), ascending."""
    return [edge for edge in CORNER_EDGES[corner] if state.edge_owner[edge] == -1]


def _reaches(state: SporeState, seat: int, corner: int) -> bool:
    """True if the seat's network reaches ``corner`` so a thread may grow from it."""
    owner = state.corner_owner[corner]
    if owner == seat:
        return True
    if owner != -1:
        return False  # never through a foreign Fruchtkörper or tower
    edges = state.edge_owner
    return any(edges[edge] == seat for edge in CORNER_EDGES[corner])


def thread_ok(state: SporeState, seat: int, edge: int) -> bool:
    """True if the seat may lay a thread on ``edge`` (free, connected to its network)."""
    if state.edge_owner[edge] != -1:
        return False
    a, b = EDGE_CORNERS[edge]
    return _reaches(state, seat, a) or _reaches(state, seat, b)


def thread_spots(state: SporeState, seat: int) -> list[int]:
    """Return the edges where the seat may lay a thread, ascending (``thread_ok`` for every edge, found from the
    seat's own network: the corners its threads and buildings reach, then their free edges)."""
    edges, owners = state.edge_owner, state.corner_owner
    reached = [corner for corner, owner in enumerate(owners) if owner == seat]
    for edge, owner in enumerate(edges):
        if owner == seat:
            a, b = EDGE_CORNERS[edge]
            if owners[a] == -1:
                reached.append(a)
            if owners[b] == -1:
                reached.append(b)
    found = {edge for corner in reached for edge in CORNER_EDGES[corner] if edges[edge] == -1}
    return sorted(found)


def fk_ok(state: SporeState, seat: int, corner: int) -> bool:
    """True if the seat may place a Fruchtkörper on ``corner`` (own thread there, distance rule)."""
    if not distance_ok(state, corner):
        return False
    edges = state.edge_owner
    return any(edges[edge] == seat for edge in CORNER_EDGES[corner])


def fk_spots(state: SporeState, seat: int) -> list[int]:
    """Return the corners where the seat may place a Fruchtkörper, ascending (``fk_ok`` for every corner, found
    from the ends of the seat's own threads)."""
    owners = state.corner_owner
    ends: set[int] = set()
    for edge, owner in enumerate(state.edge_owner):
        if owner == seat:
            ends.update(EDGE_CORNERS[edge])
    return sorted(corner for corner in ends if owners[corner] == -1
                  and all(owners[other] == -1 for other in CORNER_NEIGHBOURS[corner]))


def tower_spots(state: SporeState, seat: int) -> list[int]:
    """Return the seat's own Fruchtkörper corners (a tower replaces one), ascending."""
    levels = state.corner_level
    return [corner for corner, owner in enumerate(state.corner_owner) if owner == seat and levels[corner] == 1]


def pieces_left(state: SporeState, seat: int, build: str) -> int:
    """Return how many pieces of this kind the seat still has (threads 15, Fruchtkörper 5, towers 4)."""
    on_board = state.pieces[seat][PIECE_INDEX[build]]
    return LIMITS[build] - on_board


def spots(state: SporeState, seat: int, build: str) -> list[int]:
    """Return where the seat may build (ignoring cost), [] if no piece is left."""
    if build == "mutation":
        return []
    if pieces_left(state, seat, build) <= 0:
        return []
    if build == "faden":
        return thread_spots(state, seat)
    if build == "fruchtkoerper":
        return fk_spots(state, seat)
    return tower_spots(state, seat)


def affordable(hand: tuple[int, ...], build: str) -> bool:
    """True if the hand pays the build's cost."""
    return all(have >= need for have, need in zip(hand, COSTS[build], strict=True))


def rates(state: SporeState, seat: int) -> tuple[int, ...]:
    """Return per resource kind the seat's best supply rate (4, 3 through a 3:1 gully, 2 through its own).

    Kept per seat while the board's buildings, gully kinds and gully positions are the very same tuples
    (``_RATES``): a state copied for any other change shares them.
    """
    owners = state.corner_owner
    kept = _RATES.get(seat)
    if kept is not None and kept[0] is owners and kept[1] is state.gullys and kept[2] is state.gully_edges:
        return kept[3]
    found = _rates(state, seat)
    _RATES[seat] = (owners, state.gullys, state.gully_edges, found)
    return found


_RATES: dict[int, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}


def _rates(state: SporeState, seat: int) -> tuple[int, ...]:
    result = [4] * KIND_COUNT
    owners = state.corner_owner
    for gully, (a, b) in enumerate(gully_frame(state.gully_edges).corners):
        if owners[a] == seat or owners[b] == seat:
            kind = state.gullys[gully]
            if kind == ANY:
                result = [min(rate, 3) for rate in result]
            else:
                result[kind] = 2
    return tuple(result)


def connected(state: SporeState, gully: int) -> list[int]:
    """Return the seats with a building at the gully's corners, ascending."""
    owners = state.corner_owner
    return sorted({owners[corner] for corner in gully_frame(state.gully_edges).corners[gully] if owners[corner] != -1})
