"""Hypothesis feeds random and malformed moves to every rule module (every config and seat count) through the Engine.

From positions of seeded random games, moves of every hostile kind (see ``tests/rules/hostile.py``) are made by
the seat to move and by every other seat. Each is either accepted like a legal move, or refused with the
engine's IllegalMove carrying a short German reason; never any other exception, and a refused move changes
nothing: not the position, not what any seat sees, not the move object itself.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from libs.rules import registry
from libs.rules.engine import UNDO_MOVE, Engine, Position, Step
from libs.rules.protocol import IllegalMove, Json
from tests.rules.helpers import (
    canonical_json,
    case_id,
    covering,
    every_module,
    play_random_game,
    registered_plugins,
)
from tests.rules.hostile import (
    ODD_INTS,
    assert_german_reason,
    hostile_moves,
    is_plain_json,
    is_plain_open_move,
    json_scalars,
    known_keys,
)

PLUGINS = "tests.rules.tinygame"
WARNING_CODE = "warning"
"""apply's refusal of a confirm-first move (its preview shows the warning instead of refusing)."""
GAME_SEEDS = (b"malformed-1", b"malformed-2")
POSITIONS_PER_GAME = 8
EXAMPLES = 50
"""Hostile moves per (module, config, seats): with 25 cases, a few seconds per module."""
CASES = [pytest.param(module.rules_id, config, seats, id=case_id(module, config, seats))
         for module in every_module() for config, seats in covering(module)]


@pytest.fixture(autouse=True, scope="module")
def _tiny_game_registered() -> Iterator[None]:
    with registered_plugins(PLUGINS):
        yield


@cache
def _positions(rules_id: str, config_json: str, seats: int) -> tuple[Position, ...]:
    """Positions spread over seeded random games (start, middle, end, the finished game) of one case."""
    engine = registry.engine(rules_id)
    picked: list[Position] = []
    for seed in GAME_SEEDS:
        positions = play_random_game(engine, json.loads(config_json), seats, seed, seed[::-1]).positions
        stride = max(1, len(positions) // POSITIONS_PER_GAME)
        picked += positions[:-1:stride]
    return (*picked, positions[-1])  # one finished game: every move is refused there


@cache
def _keys(rules_id: str, config_json: str, seats: int) -> tuple[str, ...]:
    """The keys the case's legal moves use anywhere in its games."""
    engine = registry.engine(rules_id)
    positions = _positions(rules_id, config_json, seats)
    return tuple(known_keys(move for position in positions for seat in range(seats)
                            for move in engine.legal_moves(position, seat)))


def _readings(engine: Engine, position: Position) -> list[str]:
    """What everyone sees of the position (every seat and a spectator), as canonical JSON."""
    return [canonical_json(engine.view(position, viewer)) for viewer in (None, *range(position.seats))]


def _same_step(engine: Engine, position: Position, seat: int, step: Step) -> bool:
    """Return True if a legal move (or "Zurück" where it is allowed) of ``seat`` leads to the same step."""
    candidates = list(engine.legal_moves(position, seat))
    if engine.can_undo(position, seat):
        candidates.append(dict(UNDO_MOVE))
    for legal in candidates:
        try:
            other = engine.apply(position, seat, legal)
        except IllegalMove:
            continue  # a legal move's unconfirmed twin is not among them; a legal move never fails here
        if other.position == step.position and other.effects == step.effects:
            return True
    return False


def assert_open_move(engine: Engine, position: Position, seat: Any, move: Any, step: Step) -> None:
    """An accepted move that no listed move matches must be an open move: plain, and equal to its JSON twin."""
    open_keys = engine.spec.open_moves
    assert isinstance(move, dict) and open_keys & set(move), f"accepted {move!r}, which does what no legal move does"
    assert is_plain_open_move(move), f"accepted an open move that is not plain: {move!r}"
    twin = engine.apply(position, seat, json.loads(canonical_json(move)))
    assert (twin.position, twin.effects) == (step.position, step.effects), f"{move!r} differs from its JSON twin"


def assert_refused_or_legal(engine: Engine, position: Position, seat: Any, move: Any) -> None:
    """Try ``move`` for ``seat`` (preview, then apply): a refusal is an IllegalMove with a German reason that
    leaves everything as it was; an accepted move is strict JSON and does what some legal move does."""
    snapshot, shown, readings = copy.deepcopy(position), repr(position), _readings(engine, position)
    move_before = repr(move)
    previewed: IllegalMove | None = None
    try:
        engine.preview(position, seat, move)
    except IllegalMove as refused:
        previewed = refused
    try:
        step = engine.apply(position, seat, move)
    except IllegalMove as refused:
        event(f"refused: {refused.code}")
        assert_german_reason(refused.reason)
        assert isinstance(refused.code, str) and refused.code, refused
        if previewed is None:  # the one move preview shows and apply refuses: a warning to confirm
            assert refused.code == WARNING_CODE, (move, refused.code, refused.reason)
        else:
            assert (previewed.reason, previewed.code) == (refused.reason, refused.code), (move, previewed, refused)
    else:
        event("accepted")
        assert previewed is None, f"preview refused what apply accepted: {move!r} ({previewed})"
        assert is_plain_json(move), f"accepted a move that is no strict JSON: {move!r}"
        legal = {canonical_json(m) for m in engine.legal_moves(position, seat)}
        if canonical_json(move) not in legal and not _same_step(engine, position, seat, step):
            assert_open_move(engine, position, seat, move, step)
    assert position == snapshot and repr(position) == shown, "trying a move changed the position"
    assert _readings(engine, position) == readings, "trying a move changed what someone sees"
    assert repr(move) == move_before, "trying a move changed the move"


@pytest.mark.parametrize(("rules_id", "config", "seats"), CASES)
@settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_hostile_moves_are_refused_with_a_reason_and_change_nothing(
        rules_id: str, config: Json, seats: int, data: st.DataObject) -> None:
    engine = registry.engine(rules_id)
    config_json = canonical_json(config)
    positions = _positions(rules_id, config_json, seats)
    position = data.draw(st.sampled_from(positions), label="position")
    pending = [entry.seat for entry in engine.pending(position)]
    mover = st.sampled_from(pending or [0])
    anyone = st.integers(0, seats - 1)
    nobody = st.one_of(st.sampled_from(ODD_INTS), json_scalars())  # no seat at all: huge, negative, not a number
    seat = data.draw(st.one_of(mover, mover, mover, mover, anyone, nobody), label="seat")
    # Near-misses of the seat's own legal moves, or of another seat's (made by the wrong seat).
    owner = data.draw(st.sampled_from(pending or [0]), label="owner of the mutated move")
    moves = engine.legal_moves(position, owner)
    move = data.draw(hostile_moves(moves, _keys(rules_id, config_json, seats)), label="move")
    assert_refused_or_legal(engine, position, seat, move)
