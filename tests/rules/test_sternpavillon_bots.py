"""Sanity checks for the Sternpavillon computer players (strength and speed are measured by the benchmark)."""

from __future__ import annotations

import pytest

from libs.rules import registry
from libs.rules.engine import Engine
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.sternpavillon.state import PHASE_BONUS, PHASE_KEEP, PHASE_PLACE
from services.bot.policies import LEVELS, advise, decide
from tests.bot.games import Player, at_level, play, wins
from tests.rules.sternpavillon_builders import board, hand, stars, with_full_bag
from tests.rules.sternpavillon_builders import table as bare_table

RULES = "speedmosaik@1"
CONFIG: Json = {"workshop": "sternpavillon"}


def table(*args: object, **kwargs: object) -> object:
    """Return a builder table with all other tiles in the bag (bots rebuild the bag from the view)."""
    return with_full_bag(bare_table(*args, **kwargs))  # type: ignore[arg-type]


def _play(seed: bytes, levels: tuple[str, ...]) -> tuple[tuple[int, ...], set[str]]:
    phases: set[str] = set()

    def watched(level: str) -> Player:
        def player(engine: Engine, view: Json, seat: int, rng: SeededRng) -> Json | None:
            phases.add(view["phase"])
            return at_level(level)(engine, view, seat, rng)

        return player

    places = play(registry.engine(RULES), CONFIG, tuple(map(watched, levels)), seed, label="zug-")
    return places, phases


def test_every_level_plays_a_whole_four_player_game_with_legal_moves_only() -> None:
    places, phases = _play(b"four-bots", ("strong", "normal", "easy", "normal"))
    assert sorted(places)[0] == 1
    assert {"nehmen", "legen", "bonus"} <= phases


def test_normal_beats_easy_in_most_two_player_games() -> None:
    assert wins(registry.engine(RULES), CONFIG, "normal", "easy", 20, seed=lambda game: bytes([game]) * 16) >= 14


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_decides_the_bonus_tile_and_the_tiles_to_keep(level: str) -> None:
    module = registry.get(RULES)
    supply = ("rot", "rot", "blau", "gelb", "gelb", "orange", "gruen", "gruen", "lila", "lila")
    bonus = table((board(tiles=hand(rot=1)), board()), phase=PHASE_BONUS, supply=supply, bonus_owed=2)
    move = decide(RULES, module.view(bonus, 0), 0, level, SeededRng(b"bonus"))
    assert move in module.legal_moves(bonus, 0)
    keep = table((board(tiles=hand(rot=3, blau=3, gelb=2), has_passed=True), board()), phase=PHASE_KEEP)
    move = decide(RULES, module.view(keep, 0), 0, level, SeededRng(b"keep"))
    assert move in module.legal_moves(keep, 0)


def test_normal_keeps_the_suggested_tiles() -> None:
    module = registry.get(RULES)
    keep = table((board(tiles=hand(rot=3, blau=3, gruen=2), has_passed=True), board()), phase=PHASE_KEEP)
    view = module.view(keep, 0)
    move = decide(RULES, view, 0, "normal", SeededRng(b"keep"))
    suggestion = {colour: count for colour, count in view["behalten"]["vorschlag"].items() if count}
    assert move == {"aktion": "behalten", "steine": suggestion}


def test_the_bots_complete_a_star_and_its_window_when_they_can() -> None:
    module = registry.get(RULES)
    supply = ("rot", "rot", "blau", "gelb", "gelb", "orange", "gruen", "gruen", "lila", "lila")
    state = table((board(star_spaces=stars(rot="XXXXX."), tiles=hand(rot=6)), board()), phase=PHASE_PLACE,
                  supply=supply)
    for level in ("normal", "strong"):
        move = decide(RULES, module.view(state, 0), 0, level, SeededRng(b"window"))
        assert move == {"aktion": "legen", "stern": "rot", "feld": 6, "joker": 0}


def test_advice_names_the_move_and_what_it_brings_in_german() -> None:
    module = registry.get(RULES)
    supply = ("rot", "rot", "blau", "gelb", "gelb", "orange", "gruen", "gruen", "lila", "lila")
    state = table((board(star_spaces=stars(rot="XXXXX."), tiles=hand(rot=6)), board()), phase=PHASE_PLACE,
                  supply=supply)
    move, reason = advise(RULES, module.view(state, 0), 0, SeededRng(b"rat"))
    assert move in module.legal_moves(state, 0)
    assert reason["key"] == "sternpavillon.rat.legen"
    assert "Feld 6" in reason["text"] and "Bonussteine" in reason["text"]
    start = module.setup(CONFIG, 2, b"rat-start")
    move, reason = advise(RULES, module.view(start, 0), 0, SeededRng(b"rat"))
    assert move in module.legal_moves(start, 0)
    assert reason["text"].startswith("Nimm ")


def test_a_decision_is_deterministic_given_the_rng() -> None:
    module = registry.get(RULES)
    view = module.view(module.setup(CONFIG, 3, b"same"), 0)
    for level in LEVELS:
        assert decide(RULES, view, 0, level, SeededRng(b"r")) == decide(RULES, view, 0, level, SeededRng(b"r"))
