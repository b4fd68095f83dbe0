"""Sanity checks for the Kirchenfenster bots (strength and speed are measured by the benchmark)."""

from __future__ import annotations

import pytest

from libs.rules import registry
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.kirchenfenster.state import PendingWindow
from services.bot.policies import advise, decide
from tests.bot.games import at_level, play, wins
from tests.rules.kirchenfenster_builders import board, strip, table, with_consistent_bag

RULES = "speedmosaik@1"
B, G, N, R, V = "blau", "gelb", "gruen", "rot", "violett"


def _config(palace: str) -> Json:
    return {"workshop": "kirchenfenster", "palace": palace}


def _play(seed: bytes, levels: tuple[str, ...], palace: str = "saeulen") -> tuple[int, ...]:
    return play(registry.engine(RULES), _config(palace), tuple(map(at_level, levels)), seed, label="zug-")


def _wins(better: str, worse: str, games: int, palace: str = "saeulen") -> int:
    return wins(registry.engine(RULES), _config(palace), better, worse, games, seed=lambda game: bytes([game, 7]) * 8)


def test_normal_beats_easy_in_most_two_player_games() -> None:
    assert _wins("normal", "easy", 20) >= 14


def test_strong_beats_normal_more_often_than_not() -> None:
    assert _wins("strong", "normal", 20, palace="fensterfarbe") >= 11


@pytest.mark.parametrize("levels", [("strong", "easy", "normal"), ("easy", "normal", "strong", "easy")])
def test_bots_of_every_level_finish_three_and_four_player_games_with_legal_moves(levels: tuple[str, ...]) -> None:
    places = _play(b"many-bots", levels)
    assert min(places) == 1 and len(places) == len(levels)


@pytest.mark.parametrize("level", ["easy", "normal", "strong"])
def test_every_level_chooses_the_window_pane_when_the_time_runs_out(level: str) -> None:
    module = registry.get(RULES)
    me = board(strips={1: strip(B, B, B, G, G)}, windows={2: (G,), 5: (G, G)})
    state = table(
        (me, board()), factories=((V, V, R, G), (), (), (), (B,)), pending=PendingWindow(0, 0), palace="fensterfarbe"
    )
    state = with_consistent_bag(state)
    view = module.view(state, 0)
    move = decide(RULES, view, 0, level, SeededRng(b"w"))
    assert move in module.legal_moves(state, 0)
    if level != "easy":
        assert move == {"aktion": "fenster", "farbe": G}


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_a_bot_brings_the_glasermeister_back_when_nothing_fits_right_of_him(level: str) -> None:
    module = registry.get(RULES)
    stuck = board(strips={1: strip(B, B, B, G), 2: strip(G, G, G, R)}, glasermeister=8)
    state = table((stuck, board()), factories=((B, B, R, R), (R, R, R, R), (), (), (B,)), round_number=2)
    state = with_consistent_bag(state)
    move = decide(RULES, module.view(state, 0), 0, level, SeededRng(b"r"))
    assert move == {"aktion": "glasermeister"}


def test_advise_gives_the_strong_move_and_a_german_reason() -> None:
    module = registry.get(RULES)
    me = board(strips={1: strip(B, B, B)}, windows={3: (R,), 4: (V,)})
    state = table((me, board()), factories=((G, G, R, V), (N, N, N, B), (), (), ()), round_number=2)
    state = with_consistent_bag(state)
    view = module.view(state, 0)
    move, reason = advise(RULES, view, 0, SeededRng(b"a"))
    assert move == decide(RULES, view, 0, "strong", SeededRng(b"a"))
    assert move == {"aktion": "nehmen", "source": "schale", "schale": 1, "farbe": G, "streifen": 1}
    assert reason["key"] == "kirchenfenster.rat.nehmen"
    assert reason["text"] == (
        "Nimm 2 × Gelb aus Schale 1 auf Streifen 1: Streifen 1 wird voll (+11: Fenster 1 (2) + Fenster 3 (3) "
        "+ Fenster 4 (3), Bonusfarbe +3), nichts zerbricht."
    )


def test_a_decision_is_deterministic_given_the_rng() -> None:
    module = registry.get(RULES)
    state = module.setup({"workshop": "kirchenfenster"}, 3, b"same")
    view = module.view(state, 0)
    for level in ("easy", "normal", "strong"):
        assert decide(RULES, view, 0, level, SeededRng(b"r")) == decide(RULES, view, 0, level, SeededRng(b"r"))
