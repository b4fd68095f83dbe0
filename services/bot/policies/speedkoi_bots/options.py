"""Every legal Speedkoi decision of a seat, valued as the normal level judges it (the other levels build on it).

Works on the module's state and its parsed moves (``rules.legal``: canonical order, a move that ends the game
comes confirmed) and never applies a move to value it, except one that ends the game: that one is valued by
the standings after it, exactly as the warning computes them ("du 23, Platz 2 27 → du würdest Zweiter"): a
win is worth ``WIN_BONUS`` more than the margin, a loss that much less. When some move ends the game, every
other move is valued against the best opponent's estimate too, so "end it now" and "play on" compare.
"""

from __future__ import annotations

from dataclasses import dataclass

from libs.rules.speedkoi import scoring
from libs.rules.speedkoi.material import (
    BLOSSOM_POINTS,
    DRAGONFLY,
    END_STONE,
    FESTIVAL,
    JETTY,
    MASTER,
    PEARL,
    STONE_VALUES,
    TEAHOUSE_BONUS,
    VALUES,
    lantern,
)
from libs.rules.speedkoi.moves import DECLINE, DISCARD, DRAW, PLAY, STEP, Move
from libs.rules.speedkoi.rows import fits, pilgrims_free
from libs.rules.speedkoi.rules import apply_move, legal
from libs.rules.speedkoi.state import KoiState
from services.bot.policies.speedkoi_bots.values import (
    Board,
    Outlook,
    board_of,
    follow_value,
    outlook_of,
    worth,
)

__all__ = [
    "DECK_VALUE",
    "HELP_WEIGHT",
    "WIN_BONUS",
    "Option",
    "end_value",
    "normal_choice",
    "normal_options",
    "opponent_worth",
    "sure_of_the_end",
]

WIN_BONUS = 8.0
"""What ending the game as the sole winner is worth beyond the margin (a loss: that much less)."""
SURE = 1000.0
"""Beyond any noise: how far ``sure_of_the_end`` moves a move that ends the game."""
DECK_VALUE = 0.8
"""What a hidden lantern from the deck adds beyond the estimate (a fresh choice, nothing shown to others)."""
HELP_WEIGHT = 1.0
"""How much what a discarded lantern would bring the opponent who could use it best counts against it."""
DENY_WEIGHT = 0.3
"""How much taking a lantern off a pile that an opponent could use counts for it."""


@dataclass(frozen=True, slots=True)
class Option:
    """A legal move, its value for the seat and what the reason needs: the move ends the game, the tile."""

    move: Move
    value: float
    ends: bool = False
    tile: str | None = None


def end_value(state: KoiState, seat: int, move: Move) -> float:
    """Return the margin over the best opponent after a move that ends the game, ± ``WIN_BONUS`` by place."""
    after, _ = apply_move(state, seat, move)
    return final_value(after, seat)


def final_value(state: KoiState, seat: int) -> float:
    """Return the seat's margin over the best opponent in final standings, ± ``WIN_BONUS`` by its place."""
    points = scoring.scores(state)
    ranks = scoring.places(state, points)
    best_other = max(points[other] for other in range(state.seats) if other != seat)
    place = ranks[seat]
    shared = sum(1 for rank in ranks if rank == place) > 1
    bonus = 0.0 if place == 1 and shared else WIN_BONUS if place == 1 else -WIN_BONUS
    return points[seat] - best_other + bonus


def opponent_worth(state: KoiState, seat: int, outlook: Outlook) -> float:
    """Return the best opponent's estimate as the seat sees it (only the lanterns seen taken count as held)."""
    return max(worth(state, board_of(state, other, state.known[other]), outlook, outlook.other_chance)
               for other in range(state.seats) if other != seat)


def _take(state: KoiState, board: Board, path: int, stone: int) -> tuple[float, str | None]:
    """Change ``board`` for its figure entering ``stone`` of ``path``; return what a follow-up brings and the tile."""
    tile = state.tiles[path][stone]
    gain = 0.0
    if tile is not None:
        if tile == PEARL:
            board.pearls += 1
        elif tile in BLOSSOM_POINTS:
            board.points += BLOSSOM_POINTS[tile]
        elif tile == DRAGONFLY:
            if any(0 < other < END_STONE for other in board.stones):
                gain = follow_value(tile)
        elif tile == JETTY:
            if any(0 < other < END_STONE for index, other in enumerate(board.stones) if index != path):
                gain = follow_value(tile)
        elif any(state.piles):
            gain = follow_value(tile)
    if stone == END_STONE and not board.arrived[path]:
        board.arrived[path] = True
        rank = len(state.arrivals[path])
        if state.spielart == FESTIVAL and rank < len(TEAHOUSE_BONUS):
            board.points += TEAHOUSE_BONUS[rank]
    return gain, tile


def _after_play(state: KoiState, seat: int, base: Board, move: Move) -> tuple[Board, float, str | None]:
    """Return the board after playing ``move``'s lantern, what a follow-up brings, and the tile taken."""
    board = base.copy()
    colour = move.colour
    board.hand[colour].remove(move.value)
    board.rows[colour] = (*board.rows[colour], move.value)
    stone = board.stones[colour]
    if stone == 0:
        board.stones[colour] = 1
        if move.figure == MASTER or (not move.figure and not pilgrims_free(state, seat)):
            board.master = colour
        return board, 0.0, None
    moved = colour if stone < END_STONE else move.onward
    if moved == -1:
        return board, 0.0, None
    board.stones[moved] += 1
    gain, tile = _take(state, board, moved, board.stones[moved])
    return board, gain, tile


def help_value(state: KoiState, seat: int, code: int) -> float:
    """Return about what a lantern lying open would bring the opponent who could use it best."""
    colour, value = divmod(code, VALUES)
    best = 0.0
    for other in range(state.seats):
        if other == seat:
            continue
        row = state.rows[other][colour]
        if not row:
            continue
        if not fits(row, value):
            continue
        stone = state.stones[other][colour]
        if stone >= END_STONE:
            use = 0.5
        else:
            step = STONE_VALUES[stone + 1] - STONE_VALUES[stone]
            step *= 2 if state.masters[other] == colour else 1
            gap = abs(value - row[-1])
            use = step * (1.0 if gap <= 2 else 0.5)
        best = max(best, use)
    return best


def _hand_with(base: Board, code: int) -> Board:
    board = base.copy()
    values = board.hand[code // VALUES]
    values.append(code % VALUES)
    values.sort()
    return board


def normal_options(state: KoiState, seat: int, outlook: Outlook | None = None) -> list[Option]:
    """Return every legal move of the seat with the normal level's value, in canonical order."""
    outlook = outlook_of(state, seat) if outlook is None else outlook
    base = board_of(state, seat)
    moves = legal(state, seat)
    options: list[Option] = []
    ending = False
    for move in moves:
        if move.confirmed:
            ending = True
            options.append(Option(move, end_value(state, seat, move), True))
            continue
        action = move.action
        tile: str | None = None
        if action == PLAY:
            board, gain, tile = _after_play(state, seat, base, move)
            value = worth(state, board, outlook) + gain
        elif action == DISCARD:
            board = base.copy()
            board.hand[move.colour].remove(move.value)
            value = worth(state, board, outlook) - HELP_WEIGHT * help_value(state, seat, lantern(move.colour,
                                                                                                  move.value))
        elif action == STEP:
            board = base.copy()
            board.stones[move.colour] += 1
            gain, tile = _take(state, board, move.colour, board.stones[move.colour])
            value = worth(state, board, outlook) + gain
        elif action == DECLINE:
            value = worth(state, base, outlook)
        elif action == DRAW and move.colour == -1:
            value = worth(state, base, outlook) + DECK_VALUE
        else:  # the top of a pile, by a draw or a Koi
            code = lantern(move.colour, state.piles[move.colour][-1])
            value = worth(state, _hand_with(base, code), outlook) + DENY_WEIGHT * help_value(state, seat, code)
        options.append(Option(move, value, False, tile))
    if ending:
        others = opponent_worth(state, seat, outlook)
        options = [option if option.ends else Option(option.move, option.value - others, False, option.tile)
                   for option in options]
    return options


def best_of(options: list[Option]) -> Option:
    """Return the option with the highest value (ties: the first listed)."""
    best = options[0]
    for option in options[1:]:
        if option.value > best.value:
            best = option
    return best


def sure_of_the_end(options: list[Option]) -> list[Option]:
    """Return the options with a move that ends the game set far above (a win) or below (else) all others.

    The easy level's noise must not make it end a game it loses, nor miss ending one it wins.
    """
    return [Option(option.move, option.value + (SURE if option.value > 0 else -SURE), True, option.tile)
            if option.ends else option for option in options]


def normal_choice(state: KoiState, seat: int) -> Move:
    """Return the normal level's move (the imagined games of the strong level play it for every seat)."""
    moves = legal(state, seat)
    if len(moves) == 1:
        return moves[0]
    return best_of(normal_options(state, seat)).move
