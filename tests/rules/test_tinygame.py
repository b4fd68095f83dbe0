"""The tiny test game (Zwergenstich, ``tests/rules/tinygame.py``): its rules, and the worked example of
docs/rules/protocol.md played move by move through the Engine."""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from libs.rules import registry
from libs.rules.engine import UNDO_MOVE, Engine, Step, visible_effects
from libs.rules.protocol import Chance, ConfigError, Hidden, Json, TimeoutRule
from libs.rules.rng import SeededRng
from tests.rules import tinygame
from tests.rules.helpers import play_random_game, refusal, registered_plugins
from tests.rules.tinygame import MODULE, TinyState

EXAMPLE_SEED = b"beispiel"


@pytest.fixture
def engine() -> Iterator[Engine]:
    """The tiny game's engine, registered as a plugin for the test only (as the services load it)."""
    with registered_plugins("tests.rules.tinygame"):
        yield registry.engine("tinygame@1")


class Table:
    """A game being played: the current position and a shortcut to make moves."""

    def __init__(self, engine: Engine, config: Json, seats: int, seed: bytes) -> None:
        self.engine = engine
        self.position = engine.start(engine.normalize_config(config, seats), seats, seed)

    def play(self, seat: int, move: Json) -> Step:
        step = self.engine.apply(self.position, seat, move)
        self.position = step.position
        return step

    @property
    def state(self) -> TinyState:
        state: TinyState = self.position.state
        return state

    def texts(self, step: Step, viewer: int | None) -> list[str]:
        return [effect["text"] for effect in visible_effects(step.effects, viewer)]


def test_the_game_is_a_plugin_that_imports_only_libs_rules() -> None:
    assert "tinygame@1" not in {module.rules_id for module in registry.all_modules()}
    tree = ast.parse(Path(tinygame.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    foreign = {name for name in imported
               if name.split(".")[0] not in sys.stdlib_module_names and name != "__future__"
               and not name.startswith("libs.rules")}
    assert not foreign
    with registered_plugins("tests.rules.tinygame") as loaded:
        assert loaded == [MODULE] and registry.get("tinygame@1") is MODULE
    assert "tinygame@1" not in {module.rules_id for module in registry.all_modules()}


def test_the_spec_declares_every_feature_of_the_protocol() -> None:
    spec = MODULE.spec
    assert spec.rules_id == "tinygame@1" and spec.seat_counts == (2, 3, 4)
    assert spec.hidden == {Hidden.HAND, Hidden.TEAM, Hidden.SUPPLY} and spec.chance is Chance.DURING_PLAY
    assert spec.simultaneous and spec.may_act and spec.undo_steps == 2 and spec.teams
    assert spec.timeout is TimeoutRule.GAME_CHOOSES
    assert (spec.variant_key, spec.variants) == ("variante", ("einzeln", "team"))


def test_settings_team_play_needs_four_seats(engine: Engine) -> None:
    assert engine.normalize_config({}, 3) == {"variante": "einzeln"}
    assert engine.variant(engine.normalize_config({"variante": "team"}, 4)) == "team"
    assert MODULE.teams({"variante": "team"}, 4) == ((0, 2), (1, 3))
    assert MODULE.teams({"variante": "einzeln"}, 4) == ()
    with pytest.raises(ConfigError) as refused:
        engine.normalize_config({"variante": "team"}, 3)
    assert refused.value.reason == "Zwei gegen zwei spielt man nur mit 4 Plätzen."
    with pytest.raises(ConfigError, match="Spielart „solo“"):
        engine.normalize_config({"variante": "solo"}, 2)
    with pytest.raises(ConfigError) as refused:
        engine.normalize_config({}, 5)
    assert refused.value.code == "seats"
    team = next(value for value in MODULE.settings_options()["variante"]["values"] if value["value"] == "team")
    assert team["seats"] == [4]


def test_worked_example_of_the_protocol_doc(engine: Engine) -> None:
    """docs/rules/protocol.md, "A worked example": keep both in step."""
    table = Table(engine, {"variante": "team"}, 4, EXAMPLE_SEED)
    assert table.state.hands == ((6, 13), (11, 12), (2, 3), (5, 7))
    assert engine.view(table.position, 0)["du"]["hand"] == [6, 13]
    assert engine.view(table.position, None)["du"] is None
    assert engine.must_act(table.position) == (0,) and engine.may_act(table.position) == ()

    # Platz 1 marks the 6, then the 13, and takes the second mark back: only Platz 1 reads the marks.
    first = table.play(0, {"vormerken": 6})
    assert first.move_audience == (0,) and table.texts(first, 1) == []
    assert table.texts(first, 0) == ["Du merkst die 6 zum Legen vor."]
    table.play(0, {"vormerken": 13})
    back = table.play(0, dict(UNDO_MOVE))
    assert back.undo and table.texts(back, 3) == ["Platz 1 nimmt den letzten Schritt zurück."]
    assert table.state.marks[0] == 6 and table.position.ply == 3
    assert table.position.decision_of(0).began == 0  # the same decision: Platz 1's clock runs on

    # An offer: Platz 1 still must end its turn, the others may accept (no clock for them).
    table.play(0, {"anbieten": True})
    assert engine.must_act(table.position) == (0,) and engine.may_act(table.position) == (1, 2, 3)
    assert engine.timeout_move(table.position, 0) == {"passen": True}
    assert engine.timeout_move(table.position, 1) is None
    accepted = table.play(1, {"annehmen": True})
    assert table.texts(accepted, 0) == [
        "Platz 2 nimmt das Angebot an, zieht eine Karte und zahlt Platz 1 einen Punkt."]
    assert table.texts(accepted, 1)[-1] == "Du ziehst die 14."
    assert table.state.points[:2] == (1, -1) and engine.may_act(table.position) == ()
    assert table.position.decision_of(0).began == 0
    table.play(0, {"passen": True})
    table.play(1, {"ziehen": True})
    table.play(2, {"passen": True})
    everyone = table.play(3, {"passen": True})
    assert table.texts(everyone, None)[-1] == "Jetzt legen alle gleichzeitig eine Karte verdeckt."
    assert engine.must_act(table.position) == (0, 1, 2, 3)  # simultaneous: four clocks at once

    # A team sign: the move is read by the team only, everyone else reads that a sign was given.
    sign = table.play(2, {"zeichen": "hoch"})
    assert sign.move_audience == (0, 2)
    assert table.texts(sign, 0) == table.texts(sign, 2) == ["Platz 3 gibt Platz 1 ein Zeichen.",
                                                           "Platz 3 zeigt Platz 1: hoch."]
    assert table.texts(sign, 1) == table.texts(sign, None) == ["Platz 3 gibt Platz 1 ein Zeichen."]
    assert engine.view(table.position, 0)["du"] == {"platz": 1, "hand": [6, 13], "vorgemerkt": 6, "gelegt": None,
                                                    "zeichen": {"3": "hoch"}}
    assert engine.view(table.position, 1)["du"] == {"platz": 2, "hand": [10, 11, 12, 14], "vorgemerkt": None,
                                                    "gelegt": None, "zeichen": {}}
    assert engine.view(table.position, 1)["stapel"] == 6
    assert [p["punkte"] for p in engine.view(table.position, None)["spieler"]] == [1, -1, 0, 0]
    assert engine.view(table.position, 1)["spieler"][2]["zeichen_gegeben"] is True

    for seat in range(4):
        laid = table.play(seat, engine.timeout_move(table.position, seat) or {})
        assert laid.move_audience == (seat,)
    assert table.texts(laid, None) == [
        "Platz 4 legt eine Karte verdeckt.",
        "Aufgedeckt – Platz 1: 6, Platz 2: 10, Platz 3: 2, Platz 4: 5. Platz 2 gewinnt den Stich.",
        "Runde 2 beginnt mit Platz 2."]


def test_undo_takes_back_at_most_two_marks_and_only_for_the_marking_seat(engine: Engine) -> None:
    table = Table(engine, {}, 3, b"zurueck")
    hand = table.state.hands[0]
    start = table.position
    for card in (hand[0], hand[1], hand[0]):
        table.play(0, {"vormerken": card})
    assert not any("vormerken" in move for move in engine.legal_moves(table.position, 0))  # 3 marks a turn
    assert refusal(engine, table.position, 1, dict(UNDO_MOVE)).code == "not_your_turn"
    table.play(0, dict(UNDO_MOVE))
    table.play(0, dict(UNDO_MOVE))
    assert table.state == replace(start.state, marks=(hand[0], None, None), marks_left=2)
    refused = refusal(engine, table.position, 0, dict(UNDO_MOVE))
    assert (refused.code, refused.reason) == ("nothing_to_undo", "Hier gibt es nichts zurückzunehmen.")
    assert table.position.ply == 5 and table.position.decision_of(0).began == 0
    table.play(0, {"anbieten": True})  # an offer cannot be taken back, and it ends the steps before it
    assert not engine.can_undo(table.position, 0)


def test_future_draws_stay_invisible_until_drawn(engine: Engine) -> None:
    table = Table(engine, {}, 2, b"stapel")
    view = engine.view(table.position, 0)
    assert view["stapel"] == 12 and "pile" not in json.dumps(view)
    tops = set()
    for label in ("a", "b", "c", "d"):
        sampled = engine.from_state(engine.determinize(view, 0, SeededRng(b"ziehen", label)), 2)
        tops.add(sampled.state.pile[0])
        assert engine.preview(sampled, 0, {"ziehen": True}) == engine.preview(table.position, 0, {"ziehen": True})
        assert engine.view(sampled, 0) == view and engine.view(sampled, None) == engine.view(table.position, None)
        drawn = engine.apply(sampled, 0, {"ziehen": True})
        assert visible_effects(drawn.effects, 1) == [{"key": "tiny.ziehen", "params": {"platz": 1},
                                                      "text": "Platz 1 zieht eine Karte."}]
    assert len(tops) > 1


def test_a_seat_without_cards_sits_out_the_laying(engine: Engine) -> None:
    table = Table(engine, {}, 3, b"leer")
    state = replace(table.state, phase="legen", turns_done=3, hands=((), (1, 2), (3,)))
    position = engine.from_state(state, 3)
    assert engine.must_act(position) == (1, 2)
    assert engine.timeout_move(position, 2) == {"legen": 3}
    marked = engine.from_state(replace(state, marks=(None, 2, None)), 3)
    assert engine.timeout_move(marked, 1) == {"legen": 2}
    step = engine.apply(engine.apply(marked, 1, {"legen": 2}).position, 2, {"legen": 3})
    assert step.position.state.shown == ((None, 2, 3),) and step.position.state.tricks == (0, 0, 1)


def test_partners_share_their_place_and_equal_vectors_share_places(engine: Engine) -> None:
    table = Table(engine, {"variante": "team"}, 4, b"ende")
    over = replace(table.state, phase="ende", points=(3, 2, -1, 2), tricks=(1, 1, 0, 0),
                   hands=((1,), (2,), (), (3,)))
    outcome = engine.outcome(engine.from_state(over, 4))
    assert outcome.scores == (2, 4, 2, 4) and outcome.places == (3, 1, 3, 1)
    assert outcome.rank_keys == ((2, 1, 1), (4, 1, 2), (2, 1, 1), (4, 1, 2))
    assert outcome.leaderboard_points == (7, 34, 7, 34)
    assert [line.points for line in outcome.lines[0]] == [2, 1, 0, -1]
    single = Table(engine, {}, 3, b"ende")
    tied = replace(single.state, phase="ende", points=(2, 2, 2), tricks=(1, 1, 0), hands=((1,), (2,), (3, 4)))
    outcome = engine.outcome(engine.from_state(tied, 3))
    assert outcome.places == (1, 1, 3)  # (2, 1, 1) twice; (2, 0, 2) is lower: tricks come before cards
    assert outcome.summary.text == "Platz 1 und Platz 2 gewinnen mit 2 Punkten."


def test_refusals_are_german_and_name_no_hidden_card(engine: Engine) -> None:
    table = Table(engine, {}, 2, b"nein")
    mine, theirs = table.state.hands
    assert refusal(engine, table.position, 0, {"legen": mine[0]}).code == "wrong_phase"
    assert refusal(engine, table.position, 0, {"vormerken": theirs[0]}).reason == \
        f"Die {theirs[0]} hast du nicht auf der Hand."
    assert refusal(engine, table.position, 0, {"vormerken": True}).code == "malformed"
    assert refusal(engine, table.position, 0, {"passen": True, "ziehen": True}).code == "malformed"
    assert refusal(engine, table.position, 0, {"zeichen": "hoch"}).code == "no_team"
    assert refusal(engine, table.position, 0, {"schummeln": 1}).reason == "Diesen Zug kennt Zwergenstich nicht."
    assert refusal(engine, table.position, 1, {"annehmen": True}).code == "not_your_turn"


@pytest.mark.parametrize(("config", "seats"), [({}, 2), ({}, 3), ({}, 4), ({"variante": "team"}, 4)])
def test_games_are_short(engine: Engine, config: Json, seats: int) -> None:
    lengths = [len(play_random_game(engine, config, seats, bytes([n]), b"kurz").moves) for n in range(20)]
    assert max(lengths) < 80 and sum(lengths) / len(lengths) < 40


def test_views_hide_hands_and_the_pile_order(engine: Engine) -> None:
    game = play_random_game(engine, {"variante": "team"}, 4, b"sicht", b"m")
    for position in game.positions:
        state: TinyState = position.state
        spectator = engine.view(position, None)
        assert spectator["du"] is None
        for seat in range(4):
            view = engine.view(position, seat)
            assert view["du"]["hand"] == list(state.hands[seat])
            assert {key for key in view if key != "du"} == {key for key in spectator if key != "du"}
            assert {key: value for key, value in view.items() if key != "du"} == \
                {key: value for key, value in spectator.items() if key != "du"}
        assert spectator["stapel"] == len(state.pile)
