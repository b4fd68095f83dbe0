"""The strong level's look-ahead: the second founding corner, and its own turn played on to the end.

- Founding (first round): a corner is worth its own value plus a share of the best corner the seat can
  still take for its second Fruchtkörper after the seats in between took theirs (each takes the free corner
  with the most pips, distance rule kept).
- Main phase: the best ``candidates`` moves by normal value (an offer is never played on: its answers are
  the others' choice) are applied with the module's own ``apply`` on the determinized state; then the normal
  level makes the rest of the seat's turn (trades, builds, a mutation, the mold after a Sporenwolke, free
  threads) until it would end the turn; the candidate is worth the position then (``position_value``)
  against the position now.
"""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import IllegalMove
from libs.rules.speedspore.board import CORNER_COUNT, CORNER_NEIGHBOURS
from libs.rules.speedspore.material import KIND_COUNT, PLAYABLE
from libs.rules.speedspore.state import ENDE, HAUPT, SporeState
from services.bot.policies.speedspore_bots.options import Option, options_for
from services.bot.policies.speedspore_bots.values import (
    WIN,
    Table,
    card_value,
    corner_pips,
    corner_value,
    hand_value,
    network_value,
    table_of,
)

__all__ = ["SECOND_SHARE", "play_out_turn", "position_value", "strong_founding"]

SECOND_SHARE = 0.6
"""Founding: how much the best second corner still free counts beside the first corner's own value."""
FOUNDING_CANDIDATES = 10
"""Founding: how many of the best corners (normal value) get the look-ahead."""
TURN_STEPS = 6
"""Main phase: at most this many moves of the seat's turn are played on after a candidate."""
SKIP = frozenset({"angebot", "gegenangebot", "handeln", "zurueckziehen"})


def _raw_pips(state: SporeState, corner: int) -> int:
    return sum(pips for _kind, pips in corner_pips(state, corner, skip_mold=False))


def strong_founding(state: SporeState, seat: int, options: list[Option]) -> list[Option]:
    """Return the founding options with the first-round Fruchtkörper valued with the best second corner."""
    if state.founding >= state.seats or not options or options[0].what != "gruendung":
        return options
    between = 2 * (state.seats - 1 - state.founding)
    ranked = sorted(range(len(options)), key=lambda i: -options[i].value)[:FOUNDING_CANDIDATES]
    base_taken = {c for c in range(CORNER_COUNT) if state.corner_owner[c] != -1}
    order = sorted((c for c in range(CORNER_COUNT) if c not in base_taken), key=lambda c: -_raw_pips(state, c))
    result = list(options)
    for index in ranked:
        option = options[index]
        corner = int(option.info[0])
        blocked = set(base_taken)
        for c in base_taken:
            blocked.update(CORNER_NEIGHBOURS[c])
        blocked.add(corner)
        blocked.update(CORNER_NEIGHBOURS[corner])
        picks = 0
        for candidate in order:
            if picks >= between:
                break
            if candidate in blocked:
                continue
            blocked.add(candidate)
            blocked.update(CORNER_NEIGHBOURS[candidate])
            picks += 1
        # The seat's second corner: best of what is left, with the first corner's kinds as its production.
        table = _with_first(state, seat, corner)
        second = max((corner_value(table, c, founding=True) for c in order if c not in blocked), default=0.0)
        result[index] = Option(option.move, option.value + SECOND_SHARE * second, option.what, option.info)
    return result


def _with_first(state: SporeState, seat: int, corner: int) -> Table:
    table = table_of(state, seat, "strong")
    production = [0.0] * KIND_COUNT
    for kind, pips in corner_pips(state, corner, skip_mold=False):
        production[kind] += pips
    table.production = production
    return table


def position_value(state: SporeState, seat: int, level: str = "strong") -> float:
    """Return what the position is worth to the seat: points, production, reach, hand and cards."""
    if state.phase == ENDE:
        return WIN if state.winner == seat else -WIN
    table = table_of(state, seat, level)
    value = table.points * table.vp_weight
    value += sum(table.production[k] * table.kind_weight[k] for k in range(KIND_COUNT)) * table.pip_weight
    value += network_value(table, table.distance)
    value += hand_value(table, state.hands[seat])
    value += sum(card_value(card) for card in state.cards[seat] if card in PLAYABLE)
    return value


def _normal_move(module: Any, state: SporeState, seat: int) -> Option | None:
    moves = [m for m in module.legal_moves(state, seat) if not SKIP.intersection(m)]
    if not moves:
        return None
    if len(moves) == 1:
        return Option(moves[0], 0.0, "einzig")
    options = options_for(table_of(state, seat), moves)
    best = options[0]
    for option in options[1:]:
        if option.value > best.value:
            best = option
    return best


def _play_on(module: Any, state: SporeState, seat: int) -> SporeState:
    """Return the state after the normal level makes the rest of the seat's turn (not ending it)."""
    for _ in range(TURN_STEPS):
        if state.phase == ENDE or state.current != seat or state.phase not in (HAUPT, "schimmel", "wuchsschub"):
            return state
        if state.phase == HAUPT and state.offer is not None:
            return state
        best = _normal_move(module, state, seat)
        if best is None or best.move is None or "zug_beenden" in best.move or (
                state.phase == HAUPT and best.value <= 0.0):
            return state
        try:
            state, _ = module.apply(state, seat, best.move)
        except IllegalMove:
            return state
    return state


def play_out_turn(module: Any, state: SporeState, seat: int, options: list[Option], candidates: int) -> list[Option]:
    """Return the options with the ``candidates`` best (and ending the turn) valued by the turn played on."""
    if any(o.value >= WIN / 2 for o in options):
        return options
    now = position_value(state, seat)
    playable = [i for i, o in enumerate(options) if o.move is not None and not SKIP.intersection(o.move)]
    ranked = sorted(playable, key=lambda i: -options[i].value)[:candidates]
    result = list(options)
    for index in ranked:
        option = options[index]
        move = option.move
        if move is None:
            continue
        if "zug_beenden" in move:
            continue
        try:
            after, _ = module.apply(state, seat, move)
        except IllegalMove:
            continue
        after = _play_on(module, after, seat)
        value = position_value(after, seat) - now
        result[index] = Option(move, 0.5 * value + 0.5 * option.value, option.what, option.info)
    return result

