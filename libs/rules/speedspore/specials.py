"""Weitestes Geflecht (longest trail of own threads) and Größte Sporenwolke (most Sporenwolken played)."""

from __future__ import annotations

from libs.rules.speedspore.board import CORNER_COUNT, CORNER_EDGES, CORNER_NEIGHBOURS, EDGE_CORNERS
from libs.rules.speedspore.material import GEFLECHT_MIN, WOLKE, WOLKE_MIN
from libs.rules.speedspore.state import SporeState

_LINKS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(zip(CORNER_EDGES[corner], CORNER_NEIGHBOURS[corner], strict=True)) for corner in range(CORNER_COUNT))
"""Per corner its (edge, corner at the edge's other end) pairs."""


def longest_trail(edge_owner: tuple[int, ...], corner_owner: tuple[int, ...], seat: int) -> int:
    """Return the seat's longest trail: own threads joined end to end, no thread twice, never through a
    corner where another seat has a building."""
    own = [edge for edge, owner in enumerate(edge_owner) if owner == seat]
    if not own:
        return 0
    best = 0
    used: set[int] = set()

    def walk(corner: int, length: int) -> None:
        nonlocal best
        if length > best:
            best = length
        owner = corner_owner[corner]
        if owner != -1 and owner != seat:
            return
        for edge, other in _LINKS[corner]:
            if edge_owner[edge] == seat and edge not in used:
                used.add(edge)
                walk(other, length + 1)
                used.discard(edge)

    for edge in own:
        a, b = EDGE_CORNERS[edge]
        used.add(edge)
        walk(a, 1)
        walk(b, 1)
        used.discard(edge)
    return best


def longest_through(edge_owner: tuple[int, ...], corner_owner: tuple[int, ...], seat: int, edge: int) -> int:
    """Return the seat's longest trail that uses ``edge`` (one of its threads), by the rules of
    ``longest_trail``: a trail on one side of the edge, the edge, a trail on the other side sharing no thread.

    The seat's longest trail after it lays a thread is the larger of this and its longest trail before: a trail
    without the new thread was one before.
    """
    a, b = EDGE_CORNERS[edge]
    best = 1
    used = {edge}

    def extend(corner: int, length: int) -> None:  # ``longest_trail``'s walk, from the other end
        nonlocal best
        if length > best:
            best = length
        owner = corner_owner[corner]
        if owner != -1 and owner != seat:
            return
        for link, other in _LINKS[corner]:
            if edge_owner[link] == seat and link not in used:
                used.add(link)
                extend(other, length + 1)
                used.discard(link)

    def walk(corner: int, length: int) -> None:  # every trail on a's side, each then extended from b
        extend(b, length)
        owner = corner_owner[corner]
        if owner != -1 and owner != seat:
            return
        for link, other in _LINKS[corner]:
            if edge_owner[link] == seat and link not in used:
                used.add(link)
                walk(other, length + 1)
                used.discard(link)

    walk(a, 1)
    return best


def trails(state: SporeState) -> tuple[int, ...]:
    """Return every seat's longest trail."""
    return tuple(longest_trail(state.edge_owner, state.corner_owner, seat) for seat in range(state.seats))


def longest_holder(holder: int, lengths: tuple[int, ...]) -> int:
    """Return who holds Weitestes Geflecht after a change: the holder keeps it while at least 5 and nobody is
    longer; else the one seat alone in front with at least 5 takes it; several tied in front: nobody."""
    best = max(lengths)
    if holder != -1 and lengths[holder] >= GEFLECHT_MIN and lengths[holder] >= best:
        return holder
    if best < GEFLECHT_MIN:
        return -1
    leaders = [seat for seat, length in enumerate(lengths) if length == best]
    return leaders[0] if len(leaders) == 1 else -1


def clouds(state: SporeState, seat: int) -> int:
    """Return how many Sporenwolken the seat has played."""
    return state.played[seat].count(WOLKE)


def largest_holder(state: SporeState, seat: int) -> int:
    """Return who holds Größte Sporenwolke after ``seat`` played one: first to 3, more takes it."""
    holder = state.largest_holder
    mine = clouds(state, seat)
    if mine < WOLKE_MIN or holder == seat:
        return holder
    if holder == -1 or mine > clouds(state, holder):
        return seat
    return holder
