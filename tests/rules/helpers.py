"""Shared helpers for the rules tests: random games played through the Engine, refusals, canonical JSON."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from libs.rules import registry
from libs.rules.engine import UNDO_MOVE, Engine, Position, Step
from libs.rules.protocol import ConfigError, IllegalMove, Json, RuleModule
from libs.rules.rng import SeededRng
from tests.rules import tinygame

MAX_MOVES = 1000
MAX_MOVES_BY_GAME: dict[str, int] = {"speedspore": 8000}
"""Games whose random play runs longer: Speedspore's uniform random mover needs ~1,100–2,600 moves (it builds
only what it happens to pick among dozens of threads, trades and offers), measured over seeded games."""


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
    """Return the valid configs a module declares (``valid_configs`` is part of the protocol)."""
    return list(module.valid_configs())


def every_module() -> list[RuleModule]:
    """Return every registered rule module, then the tiny test game (a plugin, registered or not)."""
    return [*(m for m in registry.all_modules() if m is not tinygame.MODULE), tinygame.MODULE]


def playable(module: RuleModule) -> Iterator[tuple[Json, int]]:
    """Yield each (normalised config, seat count) the module plays: its valid configs times its seat counts."""
    engine = Engine(module)
    for config in configs_of(module):
        for seats in module.spec.seat_counts:
            try:
                yield engine.normalize_config(config, seats), seats
            except ConfigError:
                continue  # e.g. a team variant offered only for 4 seats


FULL_PRODUCT_UP_TO = 21
"""A module with at most this many (config, seats) cases is played in all of them (Speedmosaik has 21)."""


def covering(module: RuleModule) -> list[tuple[Json, int]]:
    """Return the (config, seats) cases a suite plays: all of them, or for a larger product a covering set.

    Speedspore's three settings and three seat counts make 36 cases of long games; the covering set keeps
    every value of every setting together with every seat count (each (setting = value, seats) pair is in
    some case), picked greedily in the module's own order, so each setting value meets each table size.
    """
    cases = list(playable(module))
    if len(cases) <= FULL_PRODUCT_UP_TO:
        return cases

    def pairs(case: tuple[Json, int]) -> set[tuple[str, str, int]]:
        config, seats = case
        return {(key, json.dumps(value), seats) for key, value in config.items()}

    missing = set().union(*(pairs(case) for case in cases))
    chosen: list[tuple[Json, int]] = []
    while missing:
        best = max(cases, key=lambda case: len(pairs(case) & missing))  # first of the best: deterministic
        chosen.append(best)
        missing -= pairs(best)
    return chosen


def case_id(module: RuleModule, config: Json, seats: int) -> str:
    """Return the pytest id of a (module, config, seats) case: ``speedmosaik@1-kachelwand-fest-ohne-2``."""
    return "-".join([module.rules_id, *map(str, config.values()), str(seats)])


@contextmanager
def registered_plugins(names: str) -> Iterator[list[RuleModule]]:
    """Register plugin rule modules for the block only, then forget those that were not registered before.

    Other tests list every registered game (the golden files, the lobby's game list), so a test game must
    not stay registered after its tests ran.
    """
    before = {module.rules_id for module in registry.all_modules()}
    loaded = registry.load_plugins(names)
    try:
        yield loaded
    finally:
        for module in loaded:
            if module.rules_id not in before:
                registry.unregister(module.rules_id)


def engine_for(rules: RuleModule | Engine) -> Engine:
    """Return the registry's engine for a module (a fresh Engine if this module object is not registered)."""
    if isinstance(rules, Engine):
        return rules
    try:
        engine = registry.engine(rules.rules_id)
    except registry.UnknownRules:
        return Engine(rules)
    return engine if engine.module is rules else Engine(rules)


@dataclass
class Game:
    """A game played through the Engine: every position, every (seat, move) and every step.

    ``start`` and ``states`` are the module's states (as older tests read them); ``positions``
    holds the Engine's positions, the first one included.
    """

    positions: list[Position]
    moves: list[tuple[int, Json]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)

    @property
    def start(self) -> Any:
        return self.positions[0].state

    @property
    def states(self) -> list[Any]:
        return [position.state for position in self.positions[1:]]

    @property
    def final_position(self) -> Position:
        return self.positions[-1]


def play_random_game(rules: RuleModule | Engine, config: Json, seats: int, seed: bytes, move_seed: bytes,
                     *, undo: bool = True) -> Game:
    """Play a game through the Engine with moves chosen by a SeededRng; fail if it runs past MAX_MOVES.

    Each move: a seat drawn from every pending seat (must-act and may-act), then one of its legal moves,
    or "Zurück" where the engine would take a step back (unless ``undo`` is False).
    """
    engine = engine_for(rules)
    position = engine.start(engine.normalize_config(config, seats), seats, seed)
    game = Game(positions=[position])
    rng = SeededRng(move_seed, "moves")
    limit = MAX_MOVES_BY_GAME.get(engine.spec.game, MAX_MOVES)
    for _ in range(limit):
        if engine.is_over(position):
            return game
        seat = rng.choice([pending.seat for pending in engine.pending(position)])
        choices = engine.legal_moves(position, seat)
        if undo and engine.can_undo(position, seat):
            choices = [*choices, dict(UNDO_MOVE)]
        move = rng.choice(choices)
        step = engine.apply(position, seat, move)
        position = step.position
        game.moves.append((seat, move))
        game.steps.append(step)
        game.positions.append(position)
    raise AssertionError(f"game did not finish within {limit} moves")


def position_of(engine: Engine, state: Any) -> Position:
    """Return ``state`` if it is a Position, else a position around a module state that has ``seats``."""
    if isinstance(state, Position):
        return state
    return engine.from_state(state, int(state.seats))


def refusal(engine: Engine, position: Position, seat: Any, move: Any, snapshot: Position | None = None) -> IllegalMove:
    """Assert that the Engine's apply and preview refuse the move alike and leave the position as it was.

    ``snapshot`` is a deep copy of the position taken earlier (one copy serves many refusals).
    """
    snapshot = copy.deepcopy(position) if snapshot is None else snapshot
    try:
        engine.apply(position, seat, move)
    except IllegalMove as error:
        refused = error
    else:
        raise AssertionError(f"move {move!r} of seat {seat!r} was accepted")
    assert isinstance(refused.reason, str) and refused.reason.strip(), refused
    assert isinstance(refused.code, str) and refused.code, refused
    try:
        engine.preview(position, seat, move)
    except IllegalMove as error:
        assert (error.reason, error.code) == (refused.reason, refused.code), (error, refused)
    else:
        raise AssertionError(f"preview accepted illegal move {move!r} of seat {seat!r}")
    assert position == snapshot, "a refused move changed the position"
    return refused


def assert_refused_without_change(rules: RuleModule | Engine, state: Any, seat: Any, move: Any) -> IllegalMove:
    """Assert that the Engine refuses the move (apply and preview, German reason and code), nothing changed.

    ``state`` is an Engine Position or a module state with a ``seats`` attribute; refusals always go
    through the Engine, which makes the checks every game shares (whose turn it is, the move's shape).
    """
    engine = engine_for(rules)
    return refusal(engine, position_of(engine, state), seat, move)
