"""One conformance suite, driven by each module's GameSpec: every registered rule module plus the tiny test game,
every valid config and every seat count the spec allows, always played through the Engine.

What it promises is listed in docs/rules/protocol.md ("What the conformance suite checks").
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from libs.rules import registry
from libs.rules.engine import UNDO_KEY, UNDO_MOVE, Engine, Position, Step, audience_of, visible_effects
from libs.rules.protocol import (
    Chance,
    ConfigError,
    Hidden,
    IllegalMove,
    Json,
    LeaderboardRule,
    Outcome,
    RuleModule,
    TimeoutRule,
    shared_places,
)
from libs.rules.rng import SeededRng
from tests.rules import tinygame
from tests.rules.helpers import (
    Game,
    case_id,
    configs_of,
    covering,
    every_module,
    json_roundtrip,
    play_random_game,
    playable,
    refusal,
    registered_plugins,
)

PLUGINS = "tests.rules.tinygame"
WARNING_CODE = "warning"
"""apply's refusal of a move that must be confirmed first (its preview shows the warning)."""
MODULES: list[RuleModule] = every_module()
SEEDS = [bytes([n]) * 16 for n in (1, 2)]
GAMES_PER_CASE = 8
"""Random games per (module, config, seats) in the hidden-information property (hypothesis examples)."""
STATES_PER_GAME = 10
"""Positions of each of those games whose hidden parts are resampled for every seat."""
UNDO_CHAINS = 30
"""Chains of undoable steps taken back per case (a long Speedspore game offers hundreds; 30 tell as much)."""
POSITIONS_CHECKED = 250
"""Positions of a random game whose views, legal moves and timeouts are checked in full: all of a game of up
to this many, else this many spread evenly (Speedspore's random games run to thousands of moves; every move's
step is still checked)."""


PLAYABLE = [(module, config, seats) for module in MODULES for config, seats in covering(module)]
CASES = [pytest.param(module.rules_id, config, seats, id=case_id(module, config, seats))
         for module, config, seats in PLAYABLE]
UNDO_CASES = [pytest.param(module.rules_id, config, seats, id=case_id(module, config, seats))
              for module, config, seats in PLAYABLE if module.spec.undo_steps > 0]
RULES_IDS = [module.rules_id for module in MODULES]
KACHELWAND_CASES = [case for case in CASES
                    if case.values[0].startswith("speedmosaik@") and case.values[1].get("workshop") == "kachelwand"]


@pytest.fixture(autouse=True, scope="module")
def _tiny_game_registered() -> Iterator[None]:
    """The tiny test game is a plugin: registered for these tests only, like services load it."""
    with registered_plugins(PLUGINS):
        yield


# ---- shared assertions --------------------------------------------------------------------------------------
def assert_outcome_consistent(outcome: Outcome, seats: int, rule: LeaderboardRule | None = None) -> None:
    """Places follow the rank vectors (equal vectors share a place), points follow the places, lines add up."""
    assert len(outcome.places) == len(outcome.scores) == len(outcome.tie_break) == len(outcome.lines) == seats
    for score, lines in zip(outcome.scores, outcome.lines, strict=True):
        assert sum(line.points for line in lines) == score
        assert all(line.label.strip() and line.key for line in lines)
    if outcome.rank_keys is not None:
        assert len(outcome.rank_keys) == seats and len({len(key) for key in outcome.rank_keys}) == 1
    keys = tuple(outcome.rank_key(seat) for seat in range(seats))
    assert outcome.places == shared_places(keys)
    assert min(outcome.places) == 1
    assert outcome.leaderboard_points == (rule or LeaderboardRule()).points(outcome.scores, outcome.places)
    data = outcome.to_json()
    assert json_roundtrip(data) == data
    assert ("rank_keys" in data) == (outcome.rank_keys is not None)
    assert outcome.summary.text.strip()


def assert_effects_well_formed(effects: list[Json], seats: int) -> None:
    """Every effect is German text with its key and params; ``visible_to`` names real seats."""
    assert json_roundtrip(effects) == effects
    for effect in effects:
        assert {"key", "params", "text"} <= set(effect), effect
        assert isinstance(effect["text"], str) and effect["text"].strip()
        audience = audience_of(effect)
        assert audience is None or (audience and all(0 <= seat < seats for seat in audience)), effect


def _attempt(engine: Engine, position: Position, seat: int, move: Any) -> tuple[Any, ...]:
    """Return what ``seat`` learns from trying ``move``: the refusal, or the preview, the audience and
    (through ``_reads``) what the seat and a spectator read afterwards."""
    try:
        preview = engine.preview(position, seat, move)
    except IllegalMove as refused:
        with pytest.raises(IllegalMove) as applied:
            engine.apply(position, seat, move)
        assert (applied.value.reason, applied.value.code) == (refused.reason, refused.code)
        return ("refused", refused.reason, refused.code)
    try:
        step = engine.apply(position, seat, move)
    except IllegalMove as warned:  # a move to confirm: the preview shows the warning, apply wants it confirmed
        assert warned.code == WARNING_CODE, (move, warned)
        return ("warning", preview, warned.reason)
    return ("ok", preview, step.move_audience, *_reads(engine, step, seat), *_reads(engine, step, None))


def _reads(engine: Engine, step: Step, viewer: int | None) -> tuple[Json, list[Json]]:
    """Return the viewer's view after a step and the step's effects the viewer reads."""
    return engine.view(step.position, viewer), visible_effects(step.effects, viewer)


def _same_reading(seen: tuple[Any, ...], seen_other: tuple[Any, ...]) -> None:
    """Compare what a viewer reads after the same move in S and S' (``(view, effects)`` pairs).

    When the views after differ, the move showed the viewer something it could not know before (a drawn
    card, the cards laid face down): the effects may differ too. When the views are equal, so are effects.
    """
    view, effects = seen
    view_other, effects_other = seen_other
    if view == view_other:
        assert effects == effects_other, (effects, effects_other)


def _mutations(move: Json) -> list[Any]:
    """Return near-misses of a legal move: each value changed, a key dropped, a key added."""
    changed: list[Any] = [{**move, "unbekannt": 1}]
    if len(move) > 1:
        changed.append(dict(list(move.items())[1:]))
    for key, value in move.items():
        if isinstance(value, bool) or value is None:
            changed.append({**move, key: 1})
        elif isinstance(value, int):
            changed += [{**move, key: value + 1}, {**move, key: value - 100}, {**move, key: str(value)}]
        elif isinstance(value, str):
            changed += [{**move, key: value + "x"}, {**move, key: 0}]
        else:
            changed.append({**move, key: "?"})
    return changed


def _probe_moves(engine: Engine, position: Position, seat: int, rng: SeededRng) -> list[Any]:
    """Return a few legal moves of ``seat``, near-misses of them, other seats' moves and plain garbage."""
    legal = engine.legal_moves(position, seat)
    picked = [rng.choice(legal) for _ in range(min(3, len(legal)))]
    probes: list[Any] = [*picked, {}, {"gibt_es_nicht": True}]
    for move in picked[:2]:
        probes += _mutations(move)
    for other in engine.pending(position):
        if other.seat != seat:
            probes += engine.legal_moves(position, other.seat)[:2]
    return probes


def _canonical(move: Json) -> str:
    return json.dumps(move, sort_keys=True, separators=(",", ":"))


def assert_hidden_parts_invisible(engine: Engine, position: Position, seat: int, rng: SeededRng) -> bool:
    """Resample what ``seat`` cannot see (determinize its view) and assert that nothing ``seat`` reads changes.

    S' = determinize(view(S, seat)) differs from S only in what the seat cannot see (other hands, the
    pile order, other teams' signs, future draws), so the seat's view, its legal moves, previews, refusal
    reasons and timeout move are the same in S and S', and so is everything a spectator reads. After the
    same move — the seat's own, or another seat's move legal in both — the seat (and a spectator) read the
    same effects, unless the move showed them something new (their views after differ: a drawn card);
    and another seat's moves the seat may not read (``move_audience``) all read the same to it.
    Returns True if S' differs from S at all (so the property is not vacuous).
    """
    view = engine.view(position, seat)
    sampled = engine.determinize(json_roundtrip(view), seat, rng)
    real = engine.from_state(position.state, position.seats)  # no undo history: compare like with like
    other = engine.from_state(sampled, position.seats)
    assert engine.view(other, seat) == view
    assert engine.view(other, None) == engine.view(real, None)
    assert engine.pending(other) == engine.pending(real)
    assert engine.legal_moves(other, seat) == engine.legal_moves(real, seat)
    if engine.can_act(real, seat):
        assert engine.timeout_move(other, seat) == engine.timeout_move(real, seat)
        for move in _probe_moves(engine, real, seat, rng):
            seen, seen_other = _attempt(engine, real, seat, move), _attempt(engine, other, seat, move)
            assert seen[:3] == seen_other[:3], (move, seen, seen_other)
            if seen[0] == "ok":
                _same_reading(seen[3:5], seen_other[3:5])
                _same_reading(seen[5:7], seen_other[5:7])
    for pending in engine.pending(real):  # what the seat reads of other seats' moves, in S and in S'
        if pending.seat == seat:
            continue
        # Compared as canonical JSON in a set: a seat may have a thousand placements (Speednova's map).
        theirs = {_canonical(move) for move in engine.legal_moves(other, pending.seat)}
        shared = (move for move in engine.legal_moves(real, pending.seat) if _canonical(move) in theirs)
        for move in [move for _, move in zip(range(2), shared, strict=False)]:
            mine, sampled_step = engine.apply(real, pending.seat, move), engine.apply(other, pending.seat, move)
            _same_reading(_reads(engine, mine, seat), _reads(engine, sampled_step, seat))
        # A move the seat may not read (a card laid face down) reads the same whichever it was.
        legal = engine.legal_moves(real, pending.seat)
        unread = [move for move in legal[:3] + legal[3:][-3:]
                  if (audience := engine.module.move_audience(real.state, pending.seat, move)) is not None
                  and seat not in audience]
        steps = [engine.apply(real, pending.seat, move) for move in unread]
        readings = [(_reads(engine, step, seat), _reads(engine, step, None)) for step in steps]
        for number, (mine, spectator) in enumerate(readings):
            for other_mine, other_spectator in readings[number + 1:]:
                _same_reading(mine, other_mine)
                _same_reading(spectator, other_spectator)
    for pending in engine.pending(other):  # the sampled state plays on
        engine.apply(other, pending.seat, engine.legal_moves(other, pending.seat)[-1])
    return bool(sampled != position.state)


# ---- the spec and the settings -------------------------------------------------------------------------------
def test_the_registry_knows_speedmosaik_and_loads_plugins() -> None:
    module = registry.get("speedmosaik@1")
    assert registry.latest("speedmosaik") is module and isinstance(registry.engine("speedmosaik@1"), Engine)
    assert registry.get("tinygame@1") is tinygame.MODULE and registry.engine("tinygame@1").module is tinygame.MODULE
    assert registry.load_plugins(PLUGINS) == [tinygame.MODULE]  # loading again is harmless
    with pytest.raises(registry.UnknownRules, match="nope@1"):
        registry.engine("nope@1")
    with pytest.raises(KeyError):
        registry.latest("nope")


@pytest.mark.parametrize("rules_id", RULES_IDS)
def test_the_spec_and_the_settings_agree(rules_id: str) -> None:
    engine = registry.engine(rules_id)
    module, spec = engine.module, engine.spec
    assert isinstance(module, RuleModule)
    assert (module.game, module.version, module.rules_id) == (spec.game, spec.version, spec.rules_id)
    assert json_roundtrip(spec.to_json()) == spec.to_json()
    assert spec.seat_counts and list(spec.seat_counts) == sorted(set(spec.seat_counts)) and spec.seat_counts[0] >= 1
    options = module.settings_options()
    assert json_roundtrip(options) == options
    cases = list(playable(module))
    assert cases, "no valid config is playable with any seat count of the spec"
    assert all(any(_accepts(engine, config, seats) for seats in spec.seat_counts) for config in configs_of(module))
    with_teams = False
    for config, seats in cases:
        assert engine.normalize_config(config, seats) == config  # normalising is idempotent
        if spec.variant_key is not None:
            assert spec.variant_key in options and engine.variant(config) in spec.variants
        else:
            assert engine.variant(config) == spec.game
        teams = module.teams(config, seats)
        if teams:
            assert sorted(seat for team in teams for seat in team) == list(range(seats))
            with_teams = True
    assert with_teams == spec.teams


def _accepts(engine: Engine, config: Json, seats: int) -> bool:
    try:
        engine.normalize_config(config, seats)
    except ConfigError:
        return False
    return True


@pytest.mark.parametrize("rules_id", RULES_IDS)
def test_seat_counts_outside_the_spec_and_unknown_settings_are_refused(rules_id: str) -> None:
    engine = registry.engine(rules_id)
    counts = engine.spec.seat_counts
    for seats in sorted({-1, 0, 1, 5, 6, counts[0] - 1, counts[-1] + 1} - set(counts)):
        with pytest.raises(ConfigError) as refused:
            engine.normalize_config({}, seats)
        assert refused.value.reason.strip() and refused.value.code
    for seats in ("2", 2.0, True, None):
        with pytest.raises(ConfigError):
            engine.normalize_config({}, seats)
    for config in ({"gibt_es_nicht": 1}, "blau", [1]):
        with pytest.raises(ConfigError) as refused:
            engine.normalize_config(config, counts[-1])
        assert refused.value.reason.strip()


# ---- random games --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("rules_id", "config", "seats"), CASES)
@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s.hex()[:4])
def test_random_games_replay_and_keep_every_promise(rules_id: str, config: Json, seats: int, seed: bytes) -> None:
    engine = registry.engine(rules_id)
    spec = engine.spec
    game = play_random_game(engine, config, seats, seed, seed[::-1] + b"m")
    assert_replays_identically(engine, game, config, seats, seed)
    seed_hex = seed.hex()
    stride = max(1, len(game.positions) // POSITIONS_CHECKED)
    for index, position in enumerate(game.positions):
        if index < len(game.steps):
            assert_step_well_formed(game, index, seats)
        if index % stride and index != len(game.positions) - 1:
            continue
        pending = engine.pending(position)
        must = engine.must_act(position)
        assert (pending == ()) == engine.is_over(position)
        assert len({p.seat for p in pending}) == len(pending) and all(0 <= p.seat < seats for p in pending)
        assert spec.simultaneous or len(must) <= 1, "several must-act seats, but the spec says not simultaneous"
        assert spec.may_act or len(must) == len(pending), "a may-act seat, but the spec says no may_act"
        for seat in range(seats):  # the engine keeps a decision exactly for the pending seats, must as pending
            entry = next((p for p in pending if p.seat == seat), None)
            decision = position.decision_of(seat)
            assert (decision is None) == (entry is None)
            assert decision is None or entry is None or (decision.must == entry.must and decision.began <= index)
        for viewer in (None, *range(seats)):
            view = engine.view(position, viewer)
            assert json_roundtrip(view) == view
            assert seed_hex not in json.dumps(view)
        for entry in pending:  # may-act seats can act too; a must-act seat's timeout is legal
            legal = engine.legal_moves(position, entry.seat)
            assert legal and legal == engine.legal_moves(position, entry.seat)
            assert json_roundtrip(legal) == legal and UNDO_MOVE not in legal
            timeout = engine.timeout_move(position, entry.seat)
            if entry.must and spec.timeout is TimeoutRule.COMPUTER_DECIDES:
                assert timeout is None
            elif entry.must:
                assert timeout in legal
        if not engine.is_over(position):
            with pytest.raises(ValueError):
                engine.outcome(position)
    assert_outcome_consistent(engine.outcome(game.final_position), seats, engine.spec.leaderboard)


def assert_step_well_formed(game: Game, index: int, seats: int) -> None:
    """The move is JSON, its effects are well formed, its audience names the mover, and it took one ply."""
    seat, move = game.moves[index]
    step = game.steps[index]
    assert json_roundtrip(move) == move
    assert_effects_well_formed(step.effects, seats)
    assert step.move_audience is None or (seat in step.move_audience
                                          and all(0 <= s < seats for s in step.move_audience))
    assert step.position.ply == game.positions[index].ply + 1


def assert_replays_identically(engine: Engine, game: Game, config: Json, seats: int, seed: bytes) -> None:
    """The same seed and moves give equal positions, effects and audiences."""
    position = engine.start(config, seats, seed)
    assert position == game.positions[0]
    for (seat, move), recorded in zip(game.moves, game.steps, strict=True):
        step = engine.apply(position, seat, copy.deepcopy(move))
        assert step == recorded
        position = step.position


@pytest.mark.parametrize(("rules_id", "config", "seats"), CASES)
def test_the_engine_refuses_garbage_and_wrong_seats_and_never_changes_its_input(
    rules_id: str, config: Json, seats: int
) -> None:
    engine = registry.engine(rules_id)
    game = play_random_game(engine, config, seats, b"input-check", b"moves")
    for position, (seat, move) in zip(game.positions, game.moves, strict=False):
        snapshot = copy.deepcopy(position)
        engine.preview(position, seat, move)
        engine.apply(position, seat, move)
        engine.view(position, seat)
        assert position == snapshot
        garbage: list[Any] = [{}, {"source": "nirgends"}, "blau", None, [move], 7, {UNDO_KEY: False},
                              {UNDO_KEY: True, "und": 1}]
        if not engine.can_undo(position, seat):
            garbage.append(dict(UNDO_MOVE))
        for wrong in garbage:
            refused = refusal(engine, position, seat, wrong, snapshot)
            if wrong == UNDO_MOVE:
                assert refused.code == ("no_undo" if engine.spec.undo_steps == 0 else "nothing_to_undo")
        for wrong_seat in (-1, seats, "0", True, None, 1.0):
            assert refusal(engine, position, wrong_seat, move, snapshot).code == "no_seat"
        for idle in range(seats):
            if not engine.can_act(position, idle):
                assert refusal(engine, position, idle, move, snapshot).code == "not_your_turn"
    for seat in range(seats):
        assert refusal(engine, game.final_position, seat, game.moves[-1][1]).code == "game_over"


@pytest.mark.parametrize(("rules_id", "config", "seats"), CASES)
# The same examples on every run, as test_malformed_moves: a fresh draw once found a Speedspore game that random
# play did not finish in 100,000 moves (endless trading; seed b'B{.\xfa\x9a\r\x00\xfa', moves b'\xbe\x0e\xc7\x91\xc2'),
# which says nothing about hidden information but failed CI at random; the other tests here use fixed seeds.
@settings(max_examples=GAMES_PER_CASE, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.binary(min_size=1, max_size=16), move_seed=st.binary(min_size=1, max_size=8))
def test_a_seat_reads_nothing_it_cannot_see(rules_id: str, config: Json, seats: int, seed: bytes,
                                            move_seed: bytes) -> None:
    """For seats s≠t: changing what t cannot see (s's hand, the pile, future draws) changes nothing t reads."""
    engine = registry.engine(rules_id)
    game = play_random_game(engine, config, seats, seed, move_seed)
    assert_outcome_consistent(engine.outcome(game.final_position), seats, engine.spec.leaderboard)
    rng = SeededRng(seed + b"/" + move_seed, "determinize")
    picks = sorted({rng.randbelow(len(game.positions)) for _ in range(STATES_PER_GAME)})
    varied = False
    for index in picks:
        for seat in range(seats):
            varied |= assert_hidden_parts_invisible(engine, game.positions[index], seat, rng.derive(f"{index}/{seat}"))
    if engine.spec.hidden:
        assert varied, "determinize never changed a hidden part: the property would be vacuous"


@pytest.mark.parametrize(("rules_id", "config", "seats"), UNDO_CASES)
def test_undo_takes_steps_back_within_the_turn_only(rules_id: str, config: Json, seats: int) -> None:
    engine = registry.engine(rules_id)
    steps = engine.spec.undo_steps
    tried = 0
    for seed in SEEDS:
        game = play_random_game(engine, config, seats, seed, b"undo", undo=False)
        for position in game.positions:
            for seat in engine.must_act(position):
                if engine.can_undo(position, seat):
                    continue  # start from a position without steps to take back
                chain = [position]
                while len(chain) <= steps + 1 and engine.can_act(chain[-1], seat):
                    undoable = [move for move in engine.legal_moves(chain[-1], seat)
                                if engine.module.undoable(chain[-1].state, seat, move)]
                    if not undoable:
                        break
                    chain.append(engine.apply(chain[-1], seat, undoable[0]).position)
                if len(chain) > 1:
                    assert_undo_round_trip(engine, chain, seat)
                    tried += 1
                if tried >= UNDO_CHAINS:
                    return
    assert tried, "the spec promises undo, but no random game offered an undoable move"


def assert_undo_round_trip(engine: Engine, chain: list[Position], seat: int) -> None:
    """Take back every step "Zurück" may (at most ``undo_steps``), then assert the next one is refused."""
    views = [[engine.view(position, viewer) for viewer in (None, *range(position.seats))] for position in chain]
    for other in range(chain[1].seats):  # nobody else can take the seat's step back
        if other != seat:
            assert refusal(engine, chain[1], other, dict(UNDO_MOVE)).code in ("nothing_to_undo", "not_your_turn")
    current = chain[-1]
    for back in range(1, min(len(chain) - 1, engine.spec.undo_steps) + 1):
        before = current.decision_of(seat)
        step = engine.apply(current, seat, dict(UNDO_MOVE))
        target = chain[-1 - back]
        assert step.undo and step.position.state == target.state
        assert [engine.view(step.position, v) for v in (None, *range(target.seats))] == views[-1 - back]
        assert step.position.ply == current.ply + 1  # "Zurück" is a move of its own in the log
        after = step.position.decision_of(seat)
        assert before is not None and after is not None and after.began == before.began  # think time runs on
        assert_effects_well_formed(step.effects, target.seats)
        current = step.position
    refused = refusal(engine, current, seat, dict(UNDO_MOVE))
    assert refused.code == "nothing_to_undo" and "zurück" in refused.reason.lower()


@pytest.mark.parametrize("rules_id", RULES_IDS)
def test_every_declared_feature_shows_up_in_play(rules_id: str) -> None:
    """What the spec declares really happens in random games (and what it does not declare never does)."""
    engine = registry.engine(rules_id)
    spec = engine.spec
    seen: set[str] = set()
    for config, seats in covering(engine.module):
        game = play_random_game(engine, config, seats, b"features", b"moves")
        for position, step in zip(game.positions, game.steps, strict=False):
            if len(engine.must_act(position)) > 1:
                seen.add("simultaneous")
            if engine.may_act(position):
                seen.add("may_act")
            if step.undo:
                seen.add("undo")
            if any(audience_of(effect) is not None for effect in step.effects) or step.move_audience is not None:
                seen.add("private")
            if "seat_views_differ" not in seen and len({json.dumps(engine.view(position, seat))
                                                        for seat in range(seats)}) > 1:
                seen.add("seat_views_differ")
        if engine.module.teams(config, seats):
            seen.add("teams")
    assert ("simultaneous" in seen) == spec.simultaneous
    assert ("may_act" in seen) == spec.may_act
    assert ("undo" in seen) == (spec.undo_steps > 0)
    assert ("teams" in seen) == spec.teams
    if spec.hidden - {Hidden.SUPPLY}:
        assert "seat_views_differ" in seen and "private" in seen
    if spec.chance is Chance.DURING_PLAY:
        assert "private" in seen or "seat_views_differ" in seen


# ---- Speedmosaik's Kachelwand: refusals particular to the game -----------------------------------------------
def _kachelwand_illegal_variants(engine: Engine, position: Position, seat: int) -> list[tuple[Json, str]]:
    """Return moves the Kachelwand must refuse in this position, with the expected code."""
    view = engine.view(position, seat)
    legal = engine.legal_moves(position, seat)
    if not legal or "farbe" not in legal[0]:  # a column choice at a free-wall round end, not a take
        return []
    variants: list[tuple[Json, str]] = [({**legal[0], "farbe": "lila"}, "unknown_colour")]
    for number, factory in enumerate(view["schalen"], start=1):
        missing = [c for c in ("blau", "gelb", "rot", "schwarz", "tuerkis") if c not in factory]
        if factory and missing:
            variants.append(
                ({"source": "schale", "schale": number, "farbe": missing[0], "reihe": 0}, "colour_not_in_source"))
            break
    for row, pattern in enumerate(view["spieler"][seat]["musterreihen"], start=1):
        if pattern["farbe"] and pattern["anzahl"] < pattern["felder"]:
            for move in legal:
                if move["farbe"] != pattern["farbe"]:
                    variants.append(({**move, "reihe": row}, "line_other_colour"))
                    break
    return variants


@pytest.mark.parametrize(("rules_id", "config", "seats"), KACHELWAND_CASES)
def test_kachelwand_refuses_foreign_colours_missing_colours_and_mixed_lines(
    rules_id: str, config: Json, seats: int
) -> None:
    engine = registry.engine(rules_id)
    game = play_random_game(engine, config, seats, b"illegal", b"moves")
    codes: set[str] = set()
    for position in game.positions:
        for seat in engine.must_act(position):
            for move, code in _kachelwand_illegal_variants(engine, position, seat):
                assert refusal(engine, position, seat, move).code == code
                codes.add(code)
    assert {"unknown_colour", "colour_not_in_source", "line_other_colour"} <= codes


def test_illegal_move_carries_reason_and_code() -> None:
    error = IllegalMove("Das geht nicht.", "nope")
    assert error.reason == "Das geht nicht." and error.code == "nope" and str(error) == "Das geht nicht."
