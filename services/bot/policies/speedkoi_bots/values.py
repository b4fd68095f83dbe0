"""What a Speedkoi position is worth to a seat: its points now plus what its rows and hand still promise.

Pure and fast (the strong level's imagined games call it thousands of times per decision): it reads the
module's ``KoiState`` directly and never applies a move to value it. A seat's ``Board`` is a small mutable
copy of its part of the state; a move is valued by changing that copy and asking ``worth`` again.

The estimate (``worth``), per path: how many more steps its figure will make — the lanterns in hand that
still fit the row, plus the unseen lanterns that fit, each weighted with the chance of drawing it in time
(``Outlook.chance``) — softly capped by the end stone; all paths together by the turns the seat still has. The
figure's expected end stone gives its points (the master's twice) and the tiles it passes on the way
(pearls by what the next pearl adds, blossoms, a dragonfly or Steg as a free step, a Koi as a lantern, the
Teehaus bonus still to be had). A path not started is worth at least 0 (it need not be started), and a free
master is worth a share of what doubling the best unstarted path would bring. The unseen counts are exactly
the "Laternen-Übersicht" of the view: what the seat has not seen (``view.unseen_counts``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from libs.rules.speedkoi.material import (
    BLOSSOM_POINTS,
    DRAGONFLY,
    END_STONE,
    FESTIVAL,
    GOAL_FIGURES,
    GOAL_FROM,
    JETTY,
    KOI,
    PATHS,
    PEARL,
    STONE_VALUES,
    TEAHOUSE_BONUS,
    VALUES,
    pearl_points,
)
from libs.rules.speedkoi.rows import direction
from libs.rules.speedkoi.state import KoiState
from libs.rules.speedkoi.view import unseen_counts

__all__ = [
    "Board",
    "Outlook",
    "board_of",
    "follow_value",
    "outlook_of",
    "pearl_ahead",
    "tile_value",
    "worth",
]

ORDER_SHARE = 0.55
"""Of the unseen lanterns that fit a row now and that the seat will draw, the share still fitting when drawn
(the row moves on meanwhile, and a lantern drawn late may lie behind its last value)."""
PLAY_SHARE = 0.8
"""Of the turns a seat has left, the share it plays a lantern in (the rest it discards to cycle its hand)."""
GOAL_PACE = 0.45
"""Steps per seat and turn that go to the figures nearest the goal area (to estimate when it fills up)."""
MASTER_OPTION = 0.6
"""Share of the best unstarted path's points that a still free master is worth (it could double them)."""
FREE_STEP = 1.6
"""A dragonfly or Steg: one free step of the best own figure (about what a step is worth)."""
KOI_VALUE = 1.0
"""A Koi: one lantern more in hand."""

_PEARL_MARGIN: tuple[int, ...] = tuple(pearl_points(count + 1) - pearl_points(count) for count in range(7))
PEARL_AHEAD: tuple[float, ...] = tuple((_PEARL_MARGIN[count] + _PEARL_MARGIN[count + 1]) / 2 for count in range(6))
"""What a pearl still lying ahead is worth to a seat holding ``count`` pearls: the mean of the next two pearls'
margins (the first pearl alone brings +1, but it makes the second bring +5)."""


def pearl_ahead(pearls: int) -> float:
    """Return what one more pearl ahead is worth to a seat holding ``pearls``."""
    return PEARL_AHEAD[pearls] if pearls < len(PEARL_AHEAD) else 0.0


def tile_value(tile: str | None, pearls: int) -> float:
    """Return what taking ``tile`` later is worth (pearls by the seat's count; None: nothing lies there)."""
    if tile is None:
        return 0.0
    if tile == PEARL:
        return pearl_ahead(pearls)
    if tile in BLOSSOM_POINTS:
        return float(BLOSSOM_POINTS[tile])
    if tile in (DRAGONFLY, JETTY):
        return FREE_STEP
    if tile == KOI:
        return KOI_VALUE
    return 0.0


def follow_value(tile: str | None) -> float:
    """Return what a dragonfly, Steg or Koi just taken still brings (its follow-up decision), else 0."""
    if tile in (DRAGONFLY, JETTY):
        return FREE_STEP
    if tile == KOI:
        return KOI_VALUE
    return 0.0


@dataclass(frozen=True, slots=True)
class Outlook:
    """What a seat expects of the rest of the game: unseen lanterns, its turns left, its chance per lantern."""

    unseen: tuple[int, ...]
    """Per lantern kind (0 … 54) how many copies the seat has not seen (the Laternen-Übersicht)."""
    turns: float
    """The seat's turns left (estimated from the deck and from how close the goal area is to filling up)."""
    chance: float
    """The chance that one unseen lantern reaches the seat's hand in time and still fits (per copy)."""
    other_chance: float
    """The same for another seat, whose unknown hand cards are among this seat's unseen lanterns."""


def turns_left(state: KoiState) -> float:
    """Return about how many turns each seat still has: until the deck runs out or the goal area fills up."""
    seats = state.seats
    by_deck = len(state.deck) / seats
    inside = 0
    distances: list[int] = []
    for stones in state.stones:
        for stone in stones:
            if stone >= GOAL_FROM:
                inside += 1
            elif stone:
                distances.append(GOAL_FROM - stone)
    missing = GOAL_FIGURES - inside
    if missing <= 0:
        return 0.0
    distances.sort()
    distances += [GOAL_FROM] * max(0, missing - len(distances))
    by_goal = sum(distances[:missing]) / (GOAL_PACE * seats)
    return max(1.0, min(by_deck, by_goal))


def outlook_of(state: KoiState, seat: int) -> Outlook:
    """Return the seat's outlook from what it has seen (exactly the view's unseen counts)."""
    unseen = tuple(unseen_counts(state, seat))
    total = max(1, sum(unseen))
    turns = turns_left(state)
    chance = ORDER_SHARE * min(1.0, turns / total)
    others_hidden = max((len(state.hands[other]) - len(state.known[other])
                         for other in range(state.seats) if other != seat), default=0)
    other_chance = ORDER_SHARE * min(1.0, (turns + others_hidden) / total)
    return Outlook(unseen, turns, chance, other_chance)


@dataclass(slots=True)
class Board:
    """A seat's part of the state as plain lists, changed in place to value a move."""

    rows: list[tuple[int, ...]]
    stones: list[int]
    master: int
    pearls: int
    points: int
    """Blossoms, Teehaus bonus: the points besides figures and pearls."""
    hand: list[list[int]]
    """Per colour the values the seat holds (or is known to hold), sorted."""
    arrived: list[bool]
    """Per path: the seat's figure has reached the end stone (no Teehaus bonus again)."""

    def copy(self) -> Board:
        """Return an independent copy."""
        return Board(list(self.rows), list(self.stones), self.master, self.pearls, self.points,
                     [list(values) for values in self.hand], list(self.arrived))


def board_of(state: KoiState, seat: int, cards: tuple[int, ...] | None = None) -> Board:
    """Return the seat's board; ``cards`` (default: its whole hand) are the lanterns counted as held."""
    hand: list[list[int]] = [[] for _ in range(PATHS)]
    for code in state.hands[seat] if cards is None else cards:
        hand[code // VALUES].append(code % VALUES)
    return Board(list(state.rows[seat]), list(state.stones[seat]), state.masters[seat], state.taken[seat][0],
                 state.blossoms[seat] + state.teahouse[seat], hand,
                 [seat in arrived for arrived in state.arrivals])


def _fitting(row: tuple[int, ...], held: list[int], unseen: tuple[int, ...], base: int, chance: float) -> float:
    """Return how many more lanterns the row may expect: held ones that fit, plus unseen ones by chance."""
    if not row:
        if held:
            low, high = min(held), max(held)
            up = sum(unseen[base + low:base + VALUES])
            down = sum(unseen[base:base + high + 1])
            return len(held) + chance * (up if up > down else down)
        return chance * sum(unseen[base:base + VALUES]) / 2
    last = row[-1]
    way = direction(row)
    if way > 0:
        return sum(1 for value in held if value >= last) + chance * sum(unseen[base + last:base + VALUES])
    if way < 0:
        return sum(1 for value in held if value <= last) + chance * sum(unseen[base:base + last + 1])
    rising = sum(1 for value in held if value >= last) + chance * sum(unseen[base + last:base + VALUES])
    falling = sum(1 for value in held if value <= last) + chance * sum(unseen[base:base + last + 1])
    return rising if rising > falling else falling


def _stone_points(stone: float) -> float:
    """Return the points of a (fractional) expected stone, between the stones' values."""
    whole = int(stone)
    if whole >= END_STONE:
        return float(STONE_VALUES[END_STONE])
    low = STONE_VALUES[whole]
    return low + (stone - whole) * (STONE_VALUES[whole + 1] - low)


def _ahead(state: KoiState, board: Board, path: int, start: int, end: float) -> float:
    """Return the tiles (and Teehaus bonus) a figure on ``start`` passes until the expected stone ``end``."""
    if end <= start:
        return 0.0
    total = 0.0
    tiles = state.tiles[path]
    last = min(END_STONE, int(end) + 1)
    for stone in range(start + 1, last + 1):
        weight = min(1.0, end - (stone - 1))
        if weight <= 0.0:
            break
        tile = tiles[stone]
        if tile is not None:
            total += weight * tile_value(tile, board.pearls)
        if stone == END_STONE and state.spielart == FESTIVAL and not board.arrived[path]:
            rank = len(state.arrivals[path])
            if rank < len(TEAHOUSE_BONUS):
                total += weight * TEAHOUSE_BONUS[rank]
    return total


def worth(state: KoiState, board: Board, outlook: Outlook, chance: float | None = None) -> float:
    """Return the points the seat may expect at the end: points now plus what rows and hand still promise."""
    unseen = outlook.unseen
    likely = outlook.chance if chance is None else chance
    steps = [0.0] * PATHS
    counted = 0.0
    for path in range(PATHS):
        stone = board.stones[path]
        if stone >= END_STONE:
            continue
        fitting = _fitting(board.rows[path], board.hand[path], unseen, path * VALUES, likely)
        # Softly capped by the end stone: the more lanterns may fit, the nearer the end stone, but a step
        # made now still counts (the fitting lanterns are an estimate, not a promise).
        room = END_STONE - stone
        expected = room * (1.0 - math.exp(-fitting / room))
        steps[path] = expected
        # A path not started only takes turns if starting it pays (at least to stone 4, 1 point).
        if stone or expected >= 4.0:
            counted += expected
    budget = PLAY_SHARE * outlook.turns
    scale = budget / counted if counted > budget else 1.0
    total = float(pearl_points(board.pearls) + board.points)
    best_unstarted = 0.0
    for path in range(PATHS):
        stone = board.stones[path]
        expected = steps[path] * scale
        if stone == 0:
            end = expected
            points = _stone_points(end) if end >= 1.0 else -4.0 * end
            value = points + _ahead(state, board, path, 0, end)
            if value > 0.0:
                total += value
                if points > best_unstarted:
                    best_unstarted = points
            continue
        end = stone + expected
        double = 2.0 if board.master == path else 1.0
        total += double * _stone_points(end) + _ahead(state, board, path, stone, end)
    if board.master == -1 and best_unstarted > 0.0:
        total += MASTER_OPTION * best_unstarted
    return total
