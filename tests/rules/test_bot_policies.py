"""Sanity checks for the bot policies (the real strength ladder lives in a benchmark)."""

from __future__ import annotations

import time

import pytest

from libs.rules import registry
from libs.rules.rng import SeededRng
from services.bot.policies import decide

RULES = "speedmosaik@1"


def _play(seed: bytes, levels: tuple[str, ...]) -> tuple[tuple[int, ...], list[float]]:
    module = registry.get(RULES)
    state = module.setup({}, len(levels), seed)
    rng = SeededRng(seed, "bots")
    times: list[float] = []
    turn = 0
    while not module.is_over(state):
        seat = module.to_move(state)[0]
        view = module.view(state, seat)
        started = time.perf_counter()
        move = decide(RULES, view, seat, levels[seat], rng.derive(f"zug-{turn}"))
        times.append(time.perf_counter() - started)
        assert move in module.legal_moves(state, seat)
        state, _ = module.apply(state, seat, move)
        turn += 1
    return module.outcome(state).places, times


def test_normal_beats_easy_in_most_two_player_games() -> None:
    wins = 0
    for game in range(20):
        levels = ("normal", "easy") if game % 2 == 0 else ("easy", "normal")
        places, _ = _play(bytes([game]) * 16, levels)
        normal = levels.index("normal")
        wins += places[normal] == 1 and places[1 - normal] == 2
    assert wins >= 14


def test_four_bots_play_a_whole_game_with_legal_moves_only() -> None:
    # Decision speed is measured by `make bench`, not here (timed tests are not honest on a loaded CI).
    places, times = _play(b"four-bots", ("normal", "easy", "normal", "easy"))
    assert sorted(places)[0] == 1 and len(times) > 0


def test_a_decision_is_deterministic_given_the_rng() -> None:
    module = registry.get(RULES)
    state = module.setup({}, 3, b"same")
    view = module.view(state, 0)
    for level in ("easy", "normal"):
        first = decide(RULES, view, 0, level, SeededRng(b"r"))
        assert decide(RULES, view, 0, level, SeededRng(b"r")) == first


def test_an_unknown_level_is_refused() -> None:
    module = registry.get(RULES)
    state = module.setup({}, 2, b"level")
    with pytest.raises(ValueError, match="unknown bot level"):
        decide(RULES, module.view(state, 0), 0, "genial", SeededRng(b"r"))
