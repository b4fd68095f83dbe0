"""speednova@2: team signals are side moves, and nothing of the game's own moves depends on them.

Version 1 stays as its logs were written (signals in the game's log, ``signal_erloschen`` inside a placement);
version 2 routes signals to the team's log (``side_channel``) and lets a kept-free cell's signal go out without a
trace in the placement. The promise the table relies on is checked on random team games: the same game with every
signal left out gives the same game-log effects, the same views for the other team and spectators, the same
pending seats and decisions.
"""

from __future__ import annotations

import random

import pytest

from libs.rules import registry
from libs.rules.engine import Engine, Position, Step
from libs.rules.evolve import evolve
from libs.rules.protocol import Json
from libs.rules.speednova import MODULE, MODULE_V2
from libs.rules.speednova.state import NovaState
from tests.rules.speednova_builders import cell, place_move, position, set_rack, started, tile, with_stars

TEAMS = {"teams": "mit"}
V2 = Engine(MODULE_V2)
K = 0


def team_state() -> NovaState:
    """Four seats in teams (speednova@2), everyone started, seat 0 holding Komet/Nebel."""
    state = MODULE_V2.setup(TEAMS, 4, b"speednova-v2-test")
    state = started(state)
    state = with_stars(state, {cell(7, -1, 0): K, cell(7, -2, 0): K})
    return set_rack(state, 0, [tile("komet", "nebel")] * 6)


def apply(state: NovaState, seat: int, move: Json) -> Step:
    return V2.apply(position(state), seat, move)


def test_version_2_is_the_latest_and_version_1_stays_registered() -> None:
    assert registry.latest("speednova").rules_id == "speednova@2"
    assert registry.get("speednova@1") is MODULE and registry.get("speednova@2") is MODULE_V2
    assert MODULE_V2.spec.to_json() == {**MODULE.spec.to_json(), "version": 2, "rules": "speednova@2"}


def test_a_signal_is_a_side_move_of_its_team_in_version_2_only() -> None:
    state = team_state()
    signal = {"signal": "viel", "farbe": "komet"}
    assert V2.side_channel(position(state), 1, signal) == (1, 3)
    assert V2.side_channel(position(state), 0, place_move("komet", "nebel", cell(7, 0, 0), 0)) is None
    assert V2.side_teams(TEAMS, 4) == ((0, 2), (1, 3)) and V2.side_teams({}, 2) == ()
    v1 = Engine(MODULE)
    v1_state = evolve(state, side_signals=False)
    assert v1.side_channel(position(v1_state), 1, signal) is None and v1.side_teams(TEAMS, 4) == ()


def test_a_kept_free_cell_taken_leaves_no_trace_in_the_placement_and_goes_out_for_the_team() -> None:
    state = team_state()
    marked = cell(7, 0, 0)
    state = apply(state, 1, {"signal": "frei", "feld": marked}).position.state
    step = apply(state, 0, place_move("komet", "nebel", marked, 0))
    assert all("signal" not in effect["key"] for effect in step.effects)
    assert all("visible_to" not in effect or effect["key"] == "speednova.gezogen" for effect in step.effects)
    after = step.position.state
    team_view = V2.view(step.position, 1)["du"]
    assert team_view["signale"] == []
    assert [(gone["sitz"], gone["feld"]) for gone in team_view["signale_erloschen"]] == [(1, marked)]
    assert "erlischt" in team_view["signale_erloschen"][0]["text"]
    assert V2.view(step.position, 0)["du"]["signale_erloschen"] == []
    with pytest.raises(Exception) as refused:  # nothing active to take back, the cell is taken
        apply(after, 1, {"signal": "zuruecknehmen"})
    assert getattr(refused.value, "code", None) == "no_signal"
    with pytest.raises(Exception) as refused:
        apply(after, 1, {"signal": "frei", "feld": marked})
    assert getattr(refused.value, "code", None) == "occupied"
    given = apply(after, 1, {"signal": "viel", "farbe": "nebel"}).position
    assert given.state.signals[1] == (("viel", 1),)  # the gone-out signal is dropped at the seat's next signal
    assert V2.view(given, 1)["du"]["signale_erloschen"] == []


def _play(engine: Engine, seed: int, with_signals: bool) -> list[tuple[Position, list[Json]]]:
    """A random team game: the mover makes a random placement or swap decision; with `with_signals`, a random
    seat of team 0 gives a random signal before every game move. Returns (position, effects) per game move."""
    rng = random.Random(seed)
    moves_rng = random.Random(seed + 1)
    position = engine.start(TEAMS, 4, seed.to_bytes(8, "big"))
    found: list[tuple[Position, list[Json]]] = []
    while not engine.is_over(position):
        signaller = rng.choice((0, 2))
        signals = [move for move in engine.legal_moves(position, signaller) if "signal" in move]
        if signals and rng.random() < 0.7 and with_signals:
            position = engine.apply(position, signaller, rng.choice(signals)).position
        else:
            rng.random()  # the same draws either way, so both games make the same game moves
            if signals:
                rng.choice(signals)
        mover = engine.must_act(position)[0]
        own = [move for move in engine.legal_moves(position, mover) if "signal" not in move]
        step = engine.apply(position, mover, moves_rng.choice(own))
        position = step.position
        found.append((position, step.effects))
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_signals_change_nothing_the_other_team_or_a_spectator_can_see(seed: int) -> None:
    with_signals, without = _play(V2, seed, True), _play(V2, seed, False)
    assert len(with_signals) == len(without) > 40
    for (signalled, effects), (plain, plain_effects) in zip(with_signals, without, strict=True):
        assert effects == plain_effects  # every game-log effect, team-only ones included
        for viewer in (None, 1, 3):
            assert V2.view(signalled, viewer) == V2.view(plain, viewer)
            if viewer is not None:
                assert V2.legal_moves(signalled, viewer) == V2.legal_moves(plain, viewer)
        assert V2.pending(signalled) == V2.pending(plain)
        assert [d and (d.must, d.key) for d in signalled.decisions] == [d and (d.must, d.key) for d in plain.decisions]
        assert V2.timeout_move(signalled, V2.must_act(signalled)[0]) == V2.timeout_move(
            plain, V2.must_act(plain)[0]) if not V2.is_over(plain) else True
