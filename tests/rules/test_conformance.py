"""One conformance suite for every registered rule module, every valid config and 2–4 seats."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from libs.rules import registry
from libs.rules.protocol import IllegalMove, Json, Outcome, RuleModule
from libs.rules.rng import SeededRng
from tests.rules.helpers import (
    assert_refused_without_change,
    configs_of,
    json_roundtrip,
    play_random_game,
)

CASES = [
    pytest.param(module, config, seats, id=f"{module.rules_id}-{'-'.join(map(str, config.values()))}-{seats}")
    for module in registry.all_modules()
    for config in configs_of(module)
    for seats in (2, 3, 4)
]
KACHELWAND_CASES = [
    pytest.param(module, config, seats, id=f"{module.rules_id}-{'-'.join(map(str, config.values()))}-{seats}")
    for module in registry.all_modules()
    if module.game == "speedmosaik"
    for config in configs_of(module)
    if config.get("workshop") == "kachelwand"
    for seats in (2, 3, 4)
]
SEEDS = [bytes([n]) * 16 for n in (1, 2, 3)]


def test_registry_knows_speedmosaik() -> None:
    module = registry.get("speedmosaik@1")
    assert module.rules_id == "speedmosaik@1"
    assert registry.latest("speedmosaik") is module
    assert isinstance(module, RuleModule)
    with pytest.raises(registry.UnknownRules, match="nope@1"):
        registry.get("nope@1")
    with pytest.raises(KeyError):
        registry.latest("nope")


@pytest.mark.parametrize(("module", "config", "seats"), CASES)
@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s.hex()[:4])
def test_random_games_finish_replay_and_keep_every_promise(
    module: RuleModule, config: Json, seats: int, seed: bytes
) -> None:
    game = play_random_game(module, config, seats, seed, seed[::-1] + b"m")
    assert module.is_over(game.final)
    assert module.to_move(game.final) == ()

    # Replaying the same moves from setup rebuilds equal states.
    state = module.setup(config, seats, seed)
    assert state == game.start
    for (seat, move), expected, effects in zip(game.moves, game.states, game.effects, strict=True):
        state, replay_effects = module.apply(state, seat, move)
        assert state == expected
        assert replay_effects == effects

    seed_hex = seed.hex()
    states = [game.start, *game.states]
    for index, state in enumerate(states):
        over = module.is_over(state)
        assert (module.to_move(state) == ()) == over
        for viewer in (None, *range(seats)):
            view = module.view(state, viewer)
            text = json.dumps(view)
            assert json_roundtrip(view) == view
            assert seed_hex not in text
        if index < len(game.moves):
            seat, move = game.moves[index]
            assert json_roundtrip(move) == move
            assert json_roundtrip(game.effects[index]) == game.effects[index]
            for effect in game.effects[index]:
                assert {"key", "params", "text"} <= set(effect)
                assert effect["text"].strip()
        if not over:
            with pytest.raises(ValueError):
                module.outcome(state)
            for seat in module.to_move(state):
                moves = module.legal_moves(state, seat)
                assert moves and moves == module.legal_moves(state, seat)

    outcome = module.outcome(game.final)
    assert_outcome_consistent(outcome, seats)


def assert_outcome_consistent(outcome: Outcome, seats: int) -> None:
    assert len(outcome.places) == len(outcome.scores) == len(outcome.lines) == seats
    for score, lines in zip(outcome.scores, outcome.lines, strict=True):
        assert sum(line.points for line in lines) == score
    assert min(outcome.places) == 1
    for seat in range(seats):
        better = sum(
            1
            for other in range(seats)
            if (outcome.scores[other], outcome.tie_break[other]) > (outcome.scores[seat], outcome.tie_break[seat])
        )
        assert outcome.places[seat] == better + 1
        bonus = (30, 15, 5, 0)[outcome.places[seat] - 1]
        assert outcome.leaderboard_points[seat] == max(outcome.scores[seat], 0) + bonus
    data = outcome.to_json()
    assert json_roundtrip(data) == data
    assert outcome.summary.text.strip()


@pytest.mark.parametrize(("module", "config", "seats"), CASES)
def test_apply_never_changes_its_input_and_refuses_wrong_seats(module: RuleModule, config: Json, seats: int) -> None:
    game = play_random_game(module, config, seats, b"input-check", b"moves")
    for state, (seat, move) in zip([game.start, *game.states], game.moves, strict=False):
        snapshot = copy.deepcopy(state)
        module.preview(state, seat, move)
        module.apply(state, seat, move)
        assert state == snapshot
        other = (seat + 1) % seats
        if other not in module.to_move(state):
            assert_refused_without_change(module, state, other, move)
        for garbage in ({}, {"source": "nirgends"}, "blau", None, [move]):
            assert_refused_without_change(module, state, seat, garbage)
    assert_refused_without_change(module, game.final, 0, game.moves[-1][1])


@pytest.mark.parametrize(("module", "config", "seats"), CASES)
def test_determinized_states_show_the_same_view_and_play_on(module: RuleModule, config: Json, seats: int) -> None:
    game = play_random_game(module, config, seats, b"determinize", b"moves")
    rng = SeededRng(b"bot")
    for index, state in enumerate([game.start, *game.states][::5]):
        for seat in range(seats):
            view = module.view(state, seat)
            first = module.determinize(view, seat, rng.derive(f"{index}/{seat}/a"))
            second = module.determinize(view, seat, rng.derive(f"{index}/{seat}/b"))
            assert module.view(first, seat) == view
            assert module.view(second, seat) == view
            for sampled in (first, second):
                for mover in module.to_move(sampled):
                    moves = module.legal_moves(sampled, mover)
                    assert moves == module.legal_moves(state, mover)
                    module.apply(sampled, mover, moves[-1])


@pytest.mark.parametrize(("module", "config", "seats"), CASES)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.binary(min_size=8, max_size=32))
def test_any_seed_gives_a_finishing_game(module: RuleModule, config: Json, seats: int, seed: bytes) -> None:
    game = play_random_game(module, config, seats, seed, seed + b"moves")
    outcome = module.outcome(game.final)
    assert_outcome_consistent(outcome, seats)
    final_view = module.view(game.final, None)
    assert seed.hex() not in json.dumps(final_view)


@pytest.mark.parametrize("module", registry.all_modules())
def test_illegal_settings_raise_config_error(module: RuleModule) -> None:
    from libs.rules.protocol import ConfigError

    for seats in (0, 1, 5):
        with pytest.raises(ConfigError) as refused:
            module.normalize_config({}, seats)
        assert refused.value.reason.strip()
    with pytest.raises(ConfigError):
        module.normalize_config({"gibt_es_nicht": 1}, 2)


def test_illegal_move_carries_reason_and_code() -> None:
    error = IllegalMove("Das geht nicht.", "nope")
    assert error.reason == "Das geht nicht." and error.code == "nope" and str(error) == "Das geht nicht."


def _speedmosaik_illegal_variants(module: RuleModule, state: object, seat: int) -> list[tuple[Json, str]]:
    """Return moves the Kachelwand must refuse in this state, with the expected code."""
    view = module.view(state, seat)
    variants: list[tuple[Json, str]] = []
    legal = module.legal_moves(state, seat)
    if not legal or "farbe" not in legal[0]:  # a column choice at a free-wall round end, not a take
        return []
    variants.append(({**legal[0], "farbe": "lila"}, "unknown_colour"))
    for number, factory in enumerate(view["schalen"], start=1):
        missing = [c for c in ("blau", "gelb", "rot", "schwarz", "tuerkis") if c not in factory]
        if factory and missing:
            variants.append(
                ({"source": "schale", "schale": number, "farbe": missing[0], "reihe": 0}, "colour_not_in_source")
            )
            break
    lines = view["spieler"][seat]["musterreihen"]
    for row, pattern in enumerate(lines, start=1):
        if pattern["farbe"] and pattern["anzahl"] < pattern["felder"]:
            for move in legal:
                if move["farbe"] != pattern["farbe"]:
                    variants.append(({**move, "reihe": row}, "line_other_colour"))
                    break
    return variants


@pytest.mark.parametrize(("module", "config", "seats"), KACHELWAND_CASES)
def test_kachelwand_refuses_foreign_colours_missing_colours_and_mixed_lines(
    module: RuleModule, config: Json, seats: int
) -> None:
    game = play_random_game(module, config, seats, b"illegal", b"moves")
    codes: set[str] = set()
    for state in [game.start, *game.states]:
        for seat in module.to_move(state):
            for move, code in _speedmosaik_illegal_variants(module, state, seat):
                refused = assert_refused_without_change(module, state, seat, move)
                assert refused.code == code
                codes.add(code)
    assert {"unknown_colour", "colour_not_in_source", "line_other_colour"} <= codes
