"""Shared helpers for the rules tests: random games and canonical JSON."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from libs.rules.protocol import IllegalMove, Json, RuleModule
from libs.rules.rng import SeededRng

MAX_MOVES = 1000


def canonical_json(value: Any) -> str:
    """Return the canonical JSON text of a value (sorted keys, no spaces, UTF-8 kept)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_json(value: Any) -> str:
    """Return the SHA-256 hex digest of the canonical JSON of a value."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def json_roundtrip(value: Any) -> Any:
    """Return the value after a json.dumps/json.loads round trip."""
    return json.loads(json.dumps(value))


def configs_of(module: RuleModule) -> list[Json]:
    """Return the valid configs a module declares (default config if it declares none)."""
    declared = getattr(module, "valid_configs", None)
    return list(declared()) if declared is not None else [{}]


@dataclass
class Game:
    """A played game: the start state, every (seat, move), every state after a move, and the effects."""

    start: Any
    moves: list[tuple[int, Json]] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)
    effects: list[list[Json]] = field(default_factory=list)

    @property
    def final(self) -> Any:
        return self.states[-1] if self.states else self.start


def play_random_game(module: RuleModule, config: Json, seats: int, seed: bytes, move_seed: bytes) -> Game:
    """Play a game with moves chosen by a SeededRng; fail if it does not finish within MAX_MOVES."""
    state = module.setup(config, seats, seed)
    game = Game(start=state)
    rng = SeededRng(move_seed, "moves")
    for _ in range(MAX_MOVES):
        if module.is_over(state):
            return game
        seat = rng.choice(module.to_move(state))
        move = rng.choice(module.legal_moves(state, seat))
        state, effects = module.apply(state, seat, move)
        game.moves.append((seat, move))
        game.states.append(state)
        game.effects.append(effects)
    raise AssertionError(f"game did not finish within {MAX_MOVES} moves")


def assert_refused_without_change(module: RuleModule, state: Any, seat: int, move: Any) -> IllegalMove:
    """Assert that apply and preview refuse the move with a German reason and leave the state as it was."""
    snapshot = copy.deepcopy(state)
    try:
        module.apply(state, seat, move)
    except IllegalMove as error:
        refused = error
    else:
        raise AssertionError(f"move {move!r} of seat {seat} was accepted")
    assert isinstance(refused.reason, str) and refused.reason.strip()
    assert isinstance(refused.code, str) and refused.code
    try:
        module.preview(state, seat, move)
    except IllegalMove:
        pass
    else:
        raise AssertionError(f"preview accepted illegal move {move!r}")
    assert state == snapshot
    return refused
