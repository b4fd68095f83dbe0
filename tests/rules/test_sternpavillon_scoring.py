"""Sternpavillon end scoring, ranking, the view a seat sees, previews and determinization."""

from __future__ import annotations

import json

import pytest

from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik import MODULE
from libs.rules.speedmosaik.sternpavillon.scoring import apply_end_scoring, final_outcome
from libs.rules.speedmosaik.sternpavillon.state import PHASE_KEEP, PHASE_PLACE, SternpavillonState
from tests.rules.speedmosaik_builders import must_act
from tests.rules.sternpavillon_builders import board, hand, stars, table

CONFIG: Json = {"workshop": "sternpavillon"}


@pytest.mark.parametrize(
    ("star", "bonus"),
    [("mitte", 12), ("rot", 14), ("blau", 15), ("gelb", 16), ("orange", 17), ("gruen", 18), ("lila", 20)],
)
def test_a_full_star_scores_its_bonus_at_the_end(star: str, bonus: int) -> None:
    pattern = "rbyogl" if star == "mitte" else "XXXXXX"
    scored = apply_end_scoring(board(star_spaces=stars(**{star: pattern})))
    assert scored.score == 5 + bonus
    assert scored.end_lines[0].points == bonus


@pytest.mark.parametrize(("number", "bonus"), [(1, 4), (2, 8), (3, 12), (4, 16)])
def test_all_spaces_of_a_number_in_all_seven_stars_score_4_8_12_16(number: int, bonus: int) -> None:
    outer = "".join("X" if n == number else "." for n in range(1, 7))
    centre = "".join("r" if n == number else "." for n in range(1, 7))
    spaces = stars(mitte=centre, **{colour: outer for colour in ("rot", "blau", "gelb", "orange", "gruen", "lila")})
    scored = apply_end_scoring(board(star_spaces=spaces))
    assert scored.score == 5 + bonus
    almost = stars(**{colour: outer for colour in ("rot", "blau", "gelb", "orange", "gruen", "lila")})
    assert apply_end_scoring(board(star_spaces=almost)).score == 5


def test_fives_and_sixes_earn_no_number_bonus() -> None:
    outer = "....XX"
    spaces = stars(mitte="....rb", **{colour: outer for colour in ("rot", "blau", "gelb", "orange", "gruen", "lila")})
    assert apply_end_scoring(board(star_spaces=spaces)).score == 5


def test_leftover_tiles_cost_one_point_each() -> None:
    scored = apply_end_scoring(board(tiles=hand(rot=2, lila=1), score=30))
    assert scored.score == 27


def test_outcome_lines_sum_to_the_score_and_name_every_source() -> None:
    player = board(star_spaces=stars(rot="XXXXXX"), tiles=hand(blau=2), score=30)
    player = apply_end_scoring(
        type(player)(**{**player.__dict__, "centre_penalty": 3, "keep_cost": 1, "placement_points": 29})
    )
    outcome = final_outcome((player, apply_end_scoring(board())))
    labels = [line.label for line in outcome.lines[0]]
    assert labels == [
        "Start", "Gelegte Steine", "Zuerst aus der Mitte", "Mehr als 4 Steine behalten", "Stern Rot voll",
        "Übrige Steine: 2 × −1",
    ]
    assert sum(line.points for line in outcome.lines[0]) == outcome.scores[0] == 5 + 29 - 3 - 1 + 14 - 2


def test_ties_go_to_more_filled_spaces_and_otherwise_share_the_place() -> None:
    more = board(star_spaces=stars(rot="XX...."), score=20)
    fewer = board(star_spaces=stars(rot="X....."), score=20)
    outcome = final_outcome((fewer, more, fewer))
    assert outcome.places == (2, 1, 2)
    assert outcome.tie_break == (1, 2, 1)
    assert outcome.leaderboard_points == (35, 50, 35)
    shared = final_outcome((more, more))
    assert shared.places == (1, 1)
    assert "teilen sich den ersten Platz" in shared.summary.text


# --- View, preview, determinization ------------------------------------------------------------------------


def test_the_view_shows_the_table_and_every_hand_but_never_the_bag_or_the_seed() -> None:
    seed = b"secret-seed-value"
    state = MODULE.setup(CONFIG, 3, seed)
    view = MODULE.view(state, 1)
    assert view["ich"] == 1 and view["phase"] == "nehmen" and view["am_zug"] == [0]
    assert len(view["schalen"]) == 7 and len(view["vorrat"]) == 10
    assert view["beutel"] == {"anzahl": 132 - 28 - 10, "aus_turm": 0}
    assert {"hand", "punkte", "sterne", "umschlossen", "rechenweg", "gepasst"} <= set(view["spieler"][0])
    assert len(view["bonusorte"]) == 18
    text = json.dumps(view)
    assert seed.hex() not in text and "bag" not in text
    assert MODULE.view(state, 0)["spieler"] == view["spieler"]


def test_the_placement_preview_shows_cost_tiles_points_and_bonus_tiles() -> None:
    spaces = stars(rot="...XX.")
    state = table((board(star_spaces=spaces, tiles=hand(rot=4, lila=3)), board()), phase=PHASE_PLACE)
    preview = MODULE.preview(state, 0, {"aktion": "legen", "stern": "rot", "feld": 6, "joker": 2})
    assert preview["kosten"] == 6
    assert preview["steine"] == {"farbe": "rot", "echt": 4, "joker": 2, "jokerfarbe": "lila"}
    assert preview["punkte"] == 3
    assert preview["bonussteine"] == 3
    assert [place["id"] for place in preview["umschlossen"]] == ["fenster-rot"]
    assert state.boards[0].hand == hand(rot=4, lila=3)


def test_the_take_preview_warns_about_the_start_tile() -> None:
    state = table((board(score=7), board()), factories=((), ("blau",), (), (), ()), centre=("rot", "rot", "lila"))
    preview = MODULE.preview(state, 0, {"aktion": "nehmen", "quelle": "mitte", "farbe": "rot"})
    assert preview["anzahl"] == 2 and preview["joker"] == 1
    assert preview["startstein"] and preview["verlust"] == 3
    assert preview["warnungen"][0]["key"] == "sternpavillon.warnung.startstein"


def test_the_pass_and_keep_previews_show_the_question_the_suggestion_and_the_cost() -> None:
    state = table((board(tiles=hand(rot=3, blau=3)), board()), phase=PHASE_PLACE)
    preview = MODULE.preview(state, 0, {"aktion": "passen"})
    assert preview["frage_behalten"] and sum(preview["vorschlag"].values()) == 4
    asked = table((board(tiles=hand(rot=3, blau=3), has_passed=True), board()), phase=PHASE_KEEP)
    keep = MODULE.preview(asked, 0, {"aktion": "behalten", "steine": {"rot": 3, "blau": 3}})
    assert keep["kosten"] == 2 and keep["in_den_turm"] == 0


def test_determinized_states_show_the_same_view_in_every_phase() -> None:
    state = MODULE.setup(CONFIG, 2, b"determinize")
    rng = SeededRng(b"moves")
    phases: set[str] = set()
    step = 0
    while not MODULE.is_over(state):
        seat = must_act(state)[0]
        view = MODULE.view(state, seat)
        phases.add(view["phase"])
        sampled = MODULE.determinize(view, seat, SeededRng(b"bot", str(step)))
        assert isinstance(sampled, SternpavillonState)
        assert MODULE.view(sampled, seat) == view
        assert MODULE.legal_moves(sampled, seat) == MODULE.legal_moves(state, seat)
        state, _ = MODULE.apply(state, seat, rng.choice(MODULE.legal_moves(state, seat)))
        step += 1
    assert {"nehmen", "legen", "bonus", "behalten"} <= phases
