"""Sanity checks for the bot policies (the real strength ladder and speed live in the benchmark)."""

from __future__ import annotations

import pytest

from libs.rules import registry
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.kachelwand.tiles import JOKER
from services.bot.policies import LEVELS, advise, decide
from tests.bot.games import at_level, play, wins
from tests.rules.speedmosaik_builders import board, free_board, lines, table, with_full_bag

RULES = "speedmosaik@1"


def _play(seed: bytes, levels: tuple[str, ...], config: Json | None = None) -> tuple[int, ...]:
    """Play a whole game between bots through the Engine; every decision (columns too, any seat) must be legal."""
    return play(registry.engine(RULES), config or {}, tuple(map(at_level, levels)), seed, label="zug-")


def _wins(first: str, second: str, games: int, config: Json | None = None) -> int:
    return wins(registry.engine(RULES), config or {}, first, second, games, seed=lambda game: bytes([game]) * 16)


def test_normal_beats_easy_in_most_two_player_games() -> None:
    assert _wins("normal", "easy", 20) >= 14


def test_strong_beats_normal_in_most_two_player_games() -> None:
    assert _wins("strong", "normal", 12) >= 7


def test_strong_beats_normal_on_the_free_wall_with_jokers_too() -> None:
    assert _wins("strong", "normal", 12, {"wall": "frei", "jokers": "mit"}) >= 7


@pytest.mark.parametrize("config", [{"wall": "frei"}, {"jokers": "mit"}, {"wall": "frei", "jokers": "mit"}])
def test_four_bots_of_all_levels_play_a_whole_game_with_legal_moves_only(config: Json) -> None:
    places = _play(b"four-bots", ("normal", "easy", "strong", "easy"), config)
    assert sorted(places)[0] == 1


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_chooses_a_column_for_any_seat_at_a_free_wall_round_end(level: str) -> None:
    module = registry.get(RULES)
    # Rot in line 1 may go to column 3 or 4; column 4 would make line 2 (Rot) fall.
    risky = free_board(wall_rows=("GB...", "BGS..", "", "....R"), pattern=lines(r1=("rot", 1), r2=("rot", 2)))
    other = free_board(pattern=lines(r1=("gelb", 1)))
    state = with_full_bag(table((risky, other), wall_kind="frei", centre=("blau",)))
    state, _ = module.apply(state, 0, {"source": "mitte", "farbe": "blau", "reihe": 0})
    assert registry.engine(RULES).must_act(registry.engine(RULES).from_state(state, 2)) == (0, 1)
    for seat in (1, 0):
        move = decide(RULES, module.view(state, seat), seat, level, SeededRng(b"spalte"))
        assert move in module.legal_moves(state, seat)
    if level != "easy":
        assert decide(RULES, module.view(state, 0), 0, level, SeededRng(b"spalte")) == {"spalte": 3}


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_takes_a_lone_joker_when_only_jokers_are_left(level: str) -> None:
    module = registry.get(RULES)
    started = board(pattern=lines(r4=("rot", 2)))
    state = with_full_bag(table((started, board()), jokers="mit", factories=((JOKER,), (), (), (), ())))
    move = decide(RULES, module.view(state, 0), 0, level, SeededRng(b"joker"))
    assert move in module.legal_moves(state, 0) and move["farbe"] == JOKER
    if level != "easy":
        assert move["reihe"] == 4


def test_advice_names_the_move_and_what_it_brings_in_german() -> None:
    module = registry.get(RULES)
    state = with_full_bag(
        table((board(wall_rows=("XX...",)), board()), factories=(("rot", "blau", "blau", "blau"), (), (), (), ()))
    )
    move, reason = advise(RULES, module.view(state, 0), 0, SeededRng(b"rat"))
    assert move in module.legal_moves(state, 0)
    assert reason["key"] == "kachelwand.rat.zug"
    assert reason["text"].startswith("Nimm ")
    assert "Schale 1" in reason["text"]
    assert "Platz 2 bleibt danach höchstens 3 × Blau aus der Mitte" in reason["text"]


def test_advice_for_a_completing_line_names_its_wall_points() -> None:
    module = registry.get(RULES)
    ready = board(wall_rows=("XX...",), pattern=lines(r2=("gelb", 1)))
    state = with_full_bag(
        table(
            (ready, board()),
            factories=(("rot", "schwarz", "schwarz", "schwarz"), ("gelb", "tuerkis", "tuerkis", "tuerkis"), (), (), ()),
        )
    )
    move, reason = advise(RULES, module.view(state, 0), 0, SeededRng(b"rat"))
    assert move == {"source": "schale", "schale": 1, "farbe": "rot", "reihe": 1}
    assert "Nimm 1 × Rot aus Schale 1 in Musterreihe 1: die Reihe wird voll (+3 an der Wand)" in reason["text"]


def test_advice_at_a_free_wall_round_end_names_the_column() -> None:
    module = registry.get(RULES)
    chains = free_board(wall_rows=("..S..", "BG..."), pattern=lines(r2=("rot", 2)))
    state = with_full_bag(table((chains, free_board()), wall_kind="frei", centre=("blau",)))
    state, _ = module.apply(state, 0, {"source": "mitte", "farbe": "blau", "reihe": 0})
    move, reason = advise(RULES, module.view(state, 0), 0, SeededRng(b"rat"))
    assert move == {"spalte": 3}
    assert reason["text"] == (
        "Hänge Rot in Wandreihe 2 in Spalte 3: +5 an der Wand (3 waagerecht + 2 senkrecht), "
        "keine Musterreihe darunter fällt."
    )


def test_a_decision_is_deterministic_given_the_rng() -> None:
    module = registry.get(RULES)
    state = module.setup({"wall": "frei", "jokers": "mit"}, 3, b"same")
    view = module.view(state, 0)
    for level in LEVELS:
        first = decide(RULES, view, 0, level, SeededRng(b"r"))
        assert decide(RULES, view, 0, level, SeededRng(b"r")) == first


def test_an_unknown_level_is_refused() -> None:
    module = registry.get(RULES)
    state = module.setup({}, 2, b"level")
    with pytest.raises(ValueError, match="unknown bot level"):
        decide(RULES, module.view(state, 0), 0, "genial", SeededRng(b"r"))
