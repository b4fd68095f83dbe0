"""The strong level's look-ahead: its best ideas played a few rounds forward in many imagined games.

Each imagined game is one determinization (the lanterns the seat has not seen dealt at random from its own
unseen counts, ``engine.determinize``); in it, each candidate is played and then every seat plays the normal
level for ``ROUNDS`` rounds (or to the end). The candidate is worth its mean lead over the best opponent at
that point: the final margin (± the win bonus) if the game ended, else the difference of the estimates
(``values.worth``, each seat from its own view in that imagined game). All candidates meet the same imagined
games, and the normal level decides the same way each time, so differences come from the moves, not luck.
"""

from __future__ import annotations

from libs.rules.speedkoi.moves import Move
from libs.rules.speedkoi.rules import apply_move
from libs.rules.speedkoi.state import LEGEN, KoiState
from services.bot.policies.speedkoi_bots.options import final_value, normal_choice
from services.bot.policies.speedkoi_bots.values import board_of, outlook_of, worth

__all__ = ["ROUNDS", "lead", "play_forward"]

ROUNDS = 3
"""How many rounds (every seat one turn) an imagined game is played on after the candidate."""


def lead(state: KoiState, seat: int) -> float:
    """Return the seat's lead over the best opponent: the final margin if over, else the estimates' difference."""
    if state.is_finished:
        return final_value(state, seat)
    mine = worth(state, board_of(state, seat), outlook_of(state, seat))
    others = max(worth(state, board_of(state, other), outlook_of(state, other))
                 for other in range(state.seats) if other != seat)
    return mine - others


def play_forward(state: KoiState, seat: int, move: Move, rounds: int = ROUNDS) -> float:
    """Return the seat's lead after ``move`` and ``rounds`` rounds of the normal level for every seat."""
    state, _ = apply_move(state, seat, move)
    stop = state.turn + rounds * state.seats
    while not state.is_finished and not (state.phase == LEGEN and state.turn >= stop):
        actor = state.current
        state, _ = apply_move(state, actor, normal_choice(state, actor))
    return lead(state, seat)
