"""Speedkoi's computer players (issue 11, point 7): every decision, the end warning, advice, determinism.

Strength and speed are measured by ``make bench`` (tools/bench.py); here only a small ladder sanity check.
"""

from __future__ import annotations

from typing import Any

import pytest

from libs.rules import registry
from libs.rules.evolve import evolve
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedkoi import MODULE
from libs.rules.speedkoi.material import ALL_LANTERNS, PATHS, VALUES
from libs.rules.speedkoi.state import KoiState
from services.bot.policies import advise, decide
from services.bot.policies.registry import dedicated
from services.bot.policies.speedkoi_bots import POLICY
from services.bot.policies.speedkoi_bots.options import normal_options
from tests.bot.games import at_level, play, wins
from tests.rules.speedkoi_builders import board

RULES = MODULE.rules_id
LEVELS = ("easy", "normal", "strong")
JUNK = ["indigo 1", "indigo 2", "karmin 1", "karmin 2", "silber 1", "silber 2"]
"""Lanterns that fit no row of seat 0 in the scenarios below (``_blocked_rows``: they run up to 9)."""


def _decide(state: KoiState, level: str, seat: int = 0, label: bytes = b"koi") -> Json | None:
    view = MODULE.view(state, seat)
    move = decide(RULES, view, seat, level, SeededRng(label))
    assert move in MODULE.legal_moves(state, seat)
    return move


def _blocked_rows(**extra: list[int]) -> dict[str, list[int]]:
    """Rows of seat 0 in which the ``JUNK`` lanterns fit nowhere (indigo, karmin, silber run up to 9)."""
    return {"indigo": [8, 9], "karmin": [8, 9], "silber": [8, 9], **extra}


def test_speedkoi_has_its_own_policy_for_both_spielarten() -> None:
    for spielart in ("klassisch", "laternenfest"):
        view = MODULE.view(MODULE.setup({"spielart": spielart}, 2, b"x"), 0)
        assert dedicated(RULES, view) is POLICY


@pytest.mark.parametrize(("spielart", "levels"), [
    ("klassisch", ("normal", "easy", "normal")),
    ("laternenfest", ("easy", "normal")),
    ("laternenfest", ("easy", "normal", "easy", "normal")),
])
def test_bots_finish_games_of_every_size_with_legal_moves(spielart: str, levels: tuple[str, ...]) -> None:
    places = play(registry.engine(RULES), {"spielart": spielart}, tuple(map(at_level, levels)), b"koi-bots")
    assert min(places) == 1 and len(places) == len(levels)


def test_normal_beats_easy_in_most_two_player_games() -> None:
    won = wins(registry.engine(RULES), {"spielart": "klassisch"}, "normal", "easy", 10,
               seed=lambda game: bytes([game, 11]) * 8)
    assert won >= 8


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_the_master_goes_where_many_lanterns_fit(level: str) -> None:
    hand = ["gold 1", "gold 2", "gold 3", "gold 5", "gold 6", "gold 8", "jade 4", "silber 7"]
    move = _decide(board(hands={0: hand}, clear_tiles=True), level)
    assert move is not None and move["aktion"] == "anlegen" and move["farbe"] == "gold"
    assert move["figur"] == "meister"


@pytest.mark.parametrize("level", LEVELS)
def test_a_figure_on_the_end_stone_passes_its_step_on(level: str) -> None:
    rows = _blocked_rows(gold=[0, 1, 2, 3, 4, 5, 6, 7, 8])
    state = board(hands={0: ["gold 9", "gold 10", *JUNK]}, rows={0: rows},
                  stones={0: {"gold": 9, "jade": 5, "indigo": 2, "karmin": 2, "silber": 2}},
                  clear_tiles=True, tiles={("jade", 6): "bluete3"})
    move = _decide(state, level)
    assert move is not None
    if level != "easy":
        assert move in ({"aktion": "anlegen", "farbe": "gold", "wert": 9, "weiter": "jade"},
                        {"aktion": "anlegen", "farbe": "gold", "wert": 10, "weiter": "jade"})


@pytest.mark.parametrize("level", LEVELS)
def test_a_dragonfly_moves_the_figure_it_helps_most(level: str) -> None:
    state = board(stones={0: {"jade": 2, "karmin": 5}}, clear_tiles=True, tiles={("karmin", 6): "bluete3"},
                  phase="libelle")
    assert _decide(state, level) == {"aktion": "schritt", "pfad": "karmin"} or level == "easy"


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_a_steg_moves_a_figure_on_another_path(level: str) -> None:
    state = board(spielart="laternenfest", stones={0: {"gold": 4, "jade": 6}}, clear_tiles=True, phase="steg",
                  jetty_path=0)
    assert _decide(state, level) == {"aktion": "schritt", "pfad": "jade"}


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_a_koi_takes_the_pile_top_that_fits_best(level: str) -> None:
    state = board(spielart="laternenfest", rows={0: {"jade": [2, 3], "karmin": [5, 2]}},
                  stones={0: {"jade": 2, "karmin": 2}}, piles={"jade": [9, 4], "karmin": [7]}, clear_tiles=True,
                  phase="koi")
    assert _decide(state, level) == {"aktion": "koi", "farbe": "jade"}


@pytest.mark.parametrize("level", ["normal", "strong"])
def test_a_draw_takes_a_pile_top_that_continues_a_row(level: str) -> None:
    state = board(rows={0: {"jade": [0, 1, 2, 3, 4, 5]}}, stones={0: {"jade": 6}}, masters={0: "jade"},
                  piles={"jade": [6]}, clear_tiles=True,
                  phase="ziehen", hands={0: ["gold 1", "gold 2", "indigo 3", "indigo 4", "karmin 5", "karmin 6",
                                             "silber 7"]})
    assert _decide(state, level) == {"aktion": "ziehen", "von": "jade"}


def _last_dragonfly(ahead: bool) -> KoiState:
    """Four figures in the goal area; seat 0's dragonfly could move only its Gold figure 6 → 7 and end the game.

    Seat 0 would have 3 + 10 + 10 points for figures and its pearls, seat 1 13 and its pearls.
    """
    pearls = (3, 0, 0, 0, 0) if ahead else (0, 0, 0, 0, 0)
    other = (0, 0, 0, 0, 0) if ahead else (5, 0, 0, 0, 0)
    return board(stones={0: {"gold": 6, "indigo": 9, "jade": 9}, 1: {"indigo": 8, "karmin": 7}},
                 clear_tiles=True, phase="libelle", taken=(pearls, other))


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_ends_the_game_when_the_warning_says_it_wins(level: str) -> None:
    state = _last_dragonfly(ahead=True)  # the warning's standings: seat 0 29, seat 1 9
    assert _decide(state, level) == {"aktion": "schritt", "pfad": "gold", "bestaetigt": True}


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_does_not_end_the_game_when_the_warning_says_it_loses(level: str) -> None:
    assert _decide(_last_dragonfly(ahead=False), level) == {"aktion": "verzichten"}  # 22 against 23


def _one_hidden_lantern(ahead: bool) -> KoiState:
    """Seat 0 draws; one hidden lantern is left, every lantern not in a hand or set aside lies on the piles."""
    pearls, none = (4, 0, 0, 0, 0), (0, 0, 0, 0, 0)
    state = board(hands={0: ["gold 0", "gold 1", "gold 2", "gold 3", "gold 4", "gold 5", "gold 6"]},
                  deck=["silber 3"], clear_tiles=True, phase="ziehen",
                  taken=(pearls, none) if ahead else (none, pearls))
    rest = list(ALL_LANTERNS)
    for code in (*state.hands[0], *state.hands[1], *state.aside, *state.deck):
        rest.remove(code)
    piles = tuple(tuple(sorted(code % VALUES for code in rest if code // VALUES == colour)) for colour in range(PATHS))
    return evolve(state, piles=piles)


@pytest.mark.parametrize("ahead", [True, False])
def test_the_last_hidden_lantern_is_drawn_only_to_win(ahead: bool) -> None:
    state = _one_hidden_lantern(ahead)
    for level in LEVELS:
        move = _decide(state, level)
        assert move is not None and (move == {"aktion": "ziehen", "von": "stapel", "bestaetigt": True}) is ahead


def test_a_discard_that_would_help_the_opponent_is_valued_lower() -> None:
    # Neither Indigo lantern fits seat 0's row 8-9; Indigo 6 would continue seat 1's row 2-4-5 at once.
    state = board(hands={0: ["indigo 0", "indigo 6", *JUNK]}, rows={0: _blocked_rows(), 1: {"indigo": [2, 4, 5]}},
                  stones={0: {"indigo": 2, "karmin": 2, "silber": 2}, 1: {"indigo": 3}}, clear_tiles=True)
    values = {(option.move.action, option.move.colour, option.move.value): option.value
              for option in normal_options(state, 0)}
    assert values[("abwerfen", 1, 6)] < values[("abwerfen", 1, 0)]
    assert _decide(state, "normal") != {"aktion": "abwerfen", "farbe": "indigo", "wert": 6}


def test_advice_is_the_strong_move_with_a_german_reason() -> None:
    state = board(hands={0: ["gold 1", "gold 2", "gold 3", "gold 5", "gold 6", "gold 8", "jade 4", "silber 7"]},
                  clear_tiles=True)
    view = MODULE.view(state, 0)
    move, reason = advise(RULES, view, 0, SeededRng(b"rat"))
    assert move is not None and move == decide(RULES, view, 0, "strong", SeededRng(b"rat"))
    assert reason["key"] == "speedkoi.rat.anlegen"
    assert reason["text"].startswith(f"Lege Gold {move['wert']} an und stelle den Meister auf den Pfad Gold.")
    assert "gedachten Partien, je 3 Runden weitergespielt, liegst du damit im Schnitt" in reason["text"]
    assert reason["params"]["zug"] == move and reason["params"]["partien"] > 1


def test_advice_names_the_end_and_its_standings() -> None:
    _, reason = advise(RULES, MODULE.view(_last_dragonfly(ahead=True), 0), 0, SeededRng(b"rat"))
    assert reason["key"] == "speedkoi.rat.ende"
    assert reason["text"].startswith("Libelle: Ziehe Pilger Gold → Stein 7 (+3) und beende damit die Partie: du ")
    assert "→ du würdest Erster." in reason["text"]


@pytest.mark.parametrize("phase", ["legen", "ziehen"])
def test_advice_on_a_discard_or_a_draw_reads_as_a_sentence(phase: str) -> None:
    state = board(seed=b"advice", phase=phase, piles={"gold": [3]})
    move, reason = advise(RULES, MODULE.view(state, 0), 0, SeededRng(b"r"))
    assert move is not None and reason["text"].endswith(".") and reason["params"]["zug"] == move


@pytest.mark.parametrize("level", LEVELS)
def test_a_decision_is_reproducible_from_its_rng(level: str) -> None:
    state = MODULE.setup({"spielart": "laternenfest"}, 3, b"same")
    view: dict[str, Any] = MODULE.view(state, 0)
    first = decide(RULES, view, 0, level, SeededRng(b"r"))
    assert first == decide(RULES, view, 0, level, SeededRng(b"r"))
