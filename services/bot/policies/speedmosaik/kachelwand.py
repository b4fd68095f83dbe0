"""Kachelwand bot policy: values every legal move for the bot's own board (pure, no I/O)."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json, RuleModule
from libs.rules.rng import SeededRng

EASY_NOISE = 12.0
"""Spread of the random noise added at level easy ("bewertet seine Züge mit viel Zufall")."""

FINISH_BONUS = 1.5
PARTIAL_TILE_VALUE = 0.45
OPEN_SPACE_COST = 0.25
COLUMN_PROGRESS = 0.35
COLOUR_PROGRESS = 0.25
ROW_PROGRESS = 0.2


def _own_board(view: Json, seat: int) -> Json:
    board: Json = view["spieler"][seat]
    return board


def _progress_value(board: Json, row: int, colour: str) -> float:
    """Return a small value for how far the new wall tile advances rows, columns and colours."""
    wall: list[list[dict[str, Any]]] = board["wand"]
    column = next(c for c, cell in enumerate(wall[row]) if cell["farbe"] == colour)
    in_row = sum(1 for cell in wall[row] if cell["belegt"])
    in_column = sum(1 for r in range(len(wall)) if wall[r][column]["belegt"])
    of_colour = sum(1 for cells in wall for cell in cells if cell["belegt"] and cell["farbe"] == colour)
    return ROW_PROGRESS * in_row + COLUMN_PROGRESS * in_column + COLOUR_PROGRESS * of_colour


def move_value(preview: Json, board: Json) -> float:
    """Return the heuristic value of a move from its preview: wall points, line progress, floor cost."""
    value = float(preview["bodenstrafe"])
    line = int(preview["reihe"])
    if line == 0:
        return value - 0.5
    if preview["reihe_voll"]:
        value += float(preview["wandpunkte"]["punkte"]) + FINISH_BONUS
        value += _progress_value(board, line - 1, preview["farbe"])
    else:
        pattern = board["musterreihen"][line - 1]
        after = pattern["anzahl"] + preview["in_reihe"]
        value += PARTIAL_TILE_VALUE * preview["in_reihe"] - OPEN_SPACE_COST * (line - after)
    return value


def decide(module: RuleModule, view: Json, seat: int, level: str, rng: SeededRng) -> Json:
    """Return the best move for the level: normal = best value, easy = value plus much noise."""
    state = module.determinize(view, seat, rng.derive("determinize"))
    moves = module.legal_moves(state, seat)
    if not moves:
        raise ValueError("the bot's seat has no legal move")
    board = _own_board(view, seat)
    noise = rng.derive("noise")
    best_move = moves[0]
    best_value = float("-inf")
    for move in moves:
        value = move_value(module.preview(state, seat, move), board)
        if level == "easy":
            value += noise.random() * EASY_NOISE
        if value > best_value:
            best_move, best_value = move, value
    return best_move
