"""The Kachelwand as the rule book states it, one sentence per test."""

from __future__ import annotations

from dataclasses import replace

import pytest

from libs.rules.protocol import ConfigError, IllegalMove
from libs.rules.speedmosaik import MODULE
from libs.rules.speedmosaik.kachelwand.scoring import bonus_lines, final_outcome, score_round
from libs.rules.speedmosaik.kachelwand.state import Board
from libs.rules.speedmosaik.kachelwand.tiles import COLOURS, START_TILE, wall_colour, wall_column
from tests.rules.helpers import assert_refused_without_change
from tests.rules.speedmosaik_builders import board, lines, must_act, table

EMPTY = board()


def _take(source: str, farbe: str, reihe: int, schale: int | None = None) -> dict[str, object]:
    move: dict[str, object] = {"source": source, "farbe": farbe, "reihe": reihe}
    if schale is not None:
        move["schale"] = schale
    return move


# --- the wall and its points -------------------------------------------------------------------------------


def test_the_fixed_wall_is_the_published_diagonal_pattern() -> None:
    assert [wall_colour(0, c) for c in range(5)] == ["blau", "gelb", "rot", "schwarz", "tuerkis"]
    assert [wall_colour(1, c) for c in range(5)] == ["tuerkis", "blau", "gelb", "rot", "schwarz"]
    assert [wall_colour(r, r) for r in range(5)] == ["blau"] * 5


def test_a_single_tile_scores_one() -> None:
    result = score_round(board(pattern=lines(r1=("blau", 1))))
    assert result.delta == 1
    assert result.board.wall[0][0]
    assert [line.label for line in result.board.last_round_lines] == ["Reihe 1, Blau: einzeln"]


def test_horizontal_and_vertical_chains_are_counted_together() -> None:
    # Row 2 (index 1) gets gelb in column 3; two tiles left of it, one above it.
    start = board(wall_rows=("..X..", "XX..."), pattern=lines(r2=("gelb", 2)))
    result = score_round(start)
    assert result.delta == 5
    line = result.board.last_round_lines[0]
    assert (line.label, line.points) == ("Reihe 2, Gelb: 3 waagerecht + 2 senkrecht", 5)


def test_a_chain_in_one_direction_counts_its_length_only() -> None:
    result = score_round(board(wall_rows=("XXX..",), pattern=lines(r1=("schwarz", 1))))
    assert result.delta == 4
    assert result.board.last_round_lines[0].label == "Reihe 1, Schwarz: 4 waagerecht"


def test_full_lines_are_tiled_from_top_to_bottom_and_see_each_other() -> None:
    # Line 1 blau goes to (0,0), then line 2 tuerkis to (1,0): vertical chain of 2.
    result = score_round(board(pattern=lines(r1=("blau", 1), r2=("tuerkis", 2))))
    assert [line.points for line in result.board.last_round_lines] == [1, 2]
    assert result.to_lid == ("tuerkis",)


def test_incomplete_pattern_lines_stay_for_the_next_round() -> None:
    result = score_round(board(pattern=lines(r3=("rot", 2))))
    assert result.board.pattern_lines[2].count == 2
    assert result.delta == 0


@pytest.mark.parametrize(
    ("tiles", "penalty"), [(0, 0), (1, -1), (2, -2), (3, -4), (4, -6), (5, -8), (6, -11), (7, -14)]
)
def test_floor_penalties_are_minus_one_one_two_two_two_three_three(tiles: int, penalty: int) -> None:
    result = score_round(board(floor=("rot",) * tiles, score=50))
    assert result.delta == penalty
    assert result.to_lid == ("rot",) * tiles
    assert result.board.floor == ()


def test_score_never_drops_below_zero() -> None:
    result = score_round(board(floor=("rot",) * 7, score=2))
    assert result.board.score == 0
    assert result.delta == -2
    assert sum(line.points for line in result.board.last_round_lines) == -2
    assert result.board.last_round_lines[-1].label == "Nicht unter 0"


# --- taking tiles ------------------------------------------------------------------------------------------


def test_taking_from_a_factory_moves_the_rest_to_the_centre() -> None:
    state = table((EMPTY, EMPTY), factories=(("blau", "blau", "rot", "gelb"), (), (), (), ("rot",)))
    after, effects = MODULE.apply(state, 0, _take("schale", "blau", 2, schale=1))
    assert after.factories[0] == ()
    assert after.centre == ("gelb", "rot")
    assert after.boards[0].pattern_lines[1].count == 2
    assert effects[0]["text"] == "Platz 1 nimmt 2 × Blau aus Schale 1 → Musterreihe 2"
    assert after.current == 1


def test_zero_for_the_floor_puts_every_taken_tile_on_the_floor() -> None:
    state = table((EMPTY, EMPTY), factories=(("blau", "blau", "blau", "rot"), (), (), (), ("rot",)))
    assert {"source": "schale", "schale": 1, "farbe": "blau", "reihe": 0} in MODULE.legal_moves(state, 0)
    preview = MODULE.preview(state, 0, _take("schale", "blau", 0, schale=1))
    assert preview["auf_boden"] == 3 and preview["bodenstrafe"] == -4
    assert preview["warnungen"][0]["text"] == "Alle 3 Fliesen fallen auf den Boden."
    after, _ = MODULE.apply(state, 0, _take("schale", "blau", 0, schale=1))
    assert after.boards[0].floor == ("blau", "blau", "blau")


def test_tiles_that_do_not_fit_fall_to_the_floor() -> None:
    state = table((EMPTY, EMPTY), factories=(("rot",) * 4, (), (), (), ("gelb",)))
    after, effects = MODULE.apply(state, 0, _take("schale", "rot", 2, schale=1))
    assert after.boards[0].pattern_lines[1].count == 2
    assert after.boards[0].floor == ("rot", "rot")
    assert "(2 auf den Boden)" in effects[0]["text"]


def test_tiles_beyond_the_seventh_floor_space_go_to_the_box_lid() -> None:
    crowded = board(floor=("gelb",) * 6)
    state = table((crowded, EMPTY), factories=(("rot",) * 3 + ("blau",), (), (), (), ("gelb",)))
    preview = MODULE.preview(state, 0, _take("schale", "rot", 0, schale=1))
    assert (preview["auf_boden"], preview["in_deckel"], preview["bodenstrafe"]) == (1, 2, -3)
    after, _ = MODULE.apply(state, 0, _take("schale", "rot", 0, schale=1))
    assert len(after.boards[0].floor) == 7
    assert after.lid == ("rot", "rot")


def test_a_line_holds_only_one_colour() -> None:
    holder = board(pattern=lines(r3=("rot", 1)))
    state = table((holder, EMPTY), factories=(("blau", "gelb", "gelb", "gelb"), (), (), (), ("rot",)))
    refused = assert_refused_without_change(MODULE, state, 0, _take("schale", "blau", 3, schale=1))
    assert refused.code == "line_other_colour"
    assert refused.reason == "In Musterreihe 3 liegt schon Rot – in einer Reihe liegt nur eine Farbe."


def test_a_colour_already_on_the_wall_row_is_refused_for_that_line() -> None:
    hung = board(wall_rows=("X....",))  # blau hangs in wall row 1
    state = table((hung, EMPTY), factories=(("blau", "gelb", "gelb", "gelb"), (), (), (), ("rot",)))
    refused = assert_refused_without_change(MODULE, state, 0, _take("schale", "blau", 1, schale=1))
    assert refused.code == "colour_on_wall"
    assert "In Wandreihe 1 hängt schon Blau" in refused.reason
    assert _take("schale", "blau", 1, schale=1) not in MODULE.legal_moves(state, 0)


def test_a_full_line_takes_no_more_tiles() -> None:
    full = board(pattern=lines(r1=("blau", 1)))
    state = table((full, EMPTY), factories=(("blau", "gelb", "gelb", "gelb"), (), (), (), ("rot",)))
    assert assert_refused_without_change(MODULE, state, 0, _take("schale", "blau", 1, schale=1)).code == "line_full"


def test_a_colour_must_lie_in_the_chosen_source() -> None:
    state = table((EMPTY, EMPTY), factories=(("blau", "gelb", "gelb", "gelb"), (), (), (), ("rot",)))
    refused = assert_refused_without_change(MODULE, state, 0, _take("schale", "rot", 1, schale=1))
    assert (refused.code, refused.reason) == ("colour_not_in_source", "In Schale 1 liegt kein Rot.")
    refused = assert_refused_without_change(MODULE, state, 0, _take("mitte", "rot", 1))
    assert refused.reason == "In der Mitte liegt kein Rot."


def test_unknown_colours_factories_and_lines_are_refused() -> None:
    state = table((EMPTY, EMPTY), factories=(("blau", "gelb", "gelb", "gelb"), (), (), (), ("rot",)))
    assert assert_refused_without_change(MODULE, state, 0, _take("schale", "lila", 1, 1)).code == "unknown_colour"
    assert assert_refused_without_change(MODULE, state, 0, _take("schale", "blau", 6, 1)).code == "no_such_line"
    assert assert_refused_without_change(MODULE, state, 0, _take("schale", "blau", 1, 6)).code == "no_such_factory"
    refused = assert_refused_without_change(MODULE, state, 1, _take("schale", "blau", 1, 1))
    assert (refused.code, refused.reason) == ("not_your_turn", "Platz 1 ist am Zug, nicht du.")


def test_the_first_to_take_from_the_centre_gets_the_start_tile_and_starts_next_round() -> None:
    state = table((EMPTY, EMPTY), centre=("blau", "rot", "rot"), current=1, bag=("gelb",) * 40)
    preview = MODULE.preview(state, 1, _take("mitte", "rot", 2))
    assert preview["startstein"] and preview["bodenstrafe"] == -1
    after, effects = MODULE.apply(state, 1, _take("mitte", "rot", 2))
    assert after.boards[1].floor == (START_TILE,)
    assert after.start_tile_holder == 1 and not after.start_tile_in_centre
    assert any(effect["key"] == "kachelwand.startstein" for effect in effects)
    after, effects = MODULE.apply(after, 0, _take("mitte", "blau", 1))
    # Round over: seat 1 scored its row-2 line and paid −1 for the start tile; it starts round 2.
    assert after.round == 2 and after.current == 1
    assert after.boards[1].round_points == (0,)  # 1 wall point − 1 start tile
    assert after.boards[0].round_points == (1,)
    assert after.start_tile_in_centre
    assert effects[-1]["text"] == "Runde 2 beginnt, Platz 2 fängt an."


def test_the_start_tile_takes_a_floor_space_even_on_a_full_floor() -> None:
    crowded = board(floor=("gelb",) * 7)
    state = table((crowded, EMPTY), centre=("rot",), bag=("gelb",) * 40, factories=(("blau",) * 4, (), (), (), ()))
    after, _ = MODULE.apply(state, 0, _take("mitte", "rot", 1))
    assert after.boards[0].floor == ("gelb",) * 6 + (START_TILE,)
    assert after.lid == ("gelb",)


# --- round end, bag and lid --------------------------------------------------------------------------------


def test_the_bag_is_refilled_from_the_box_lid_when_it_runs_empty() -> None:
    state = table((EMPTY, EMPTY), centre=("rot",), bag=("blau",) * 3, lid=("gelb",) * 10 + ("schwarz",) * 10)
    after, effects = MODULE.apply(state, 0, _take("mitte", "rot", 1))
    assert after.round == 2
    drawn = [tile for factory in after.factories for tile in factory]
    assert len(drawn) == 20 and drawn.count("blau") == 3
    assert len(after.bag) == 3 and after.lid == ()
    assert any(effect["key"] == "kachelwand.beutel_nachgefuellt" for effect in effects)


def test_factories_stay_partly_empty_when_bag_and_lid_run_out() -> None:
    state = table((EMPTY, EMPTY), centre=("rot",), bag=("blau",) * 3, lid=("gelb",) * 3)
    after, _ = MODULE.apply(state, 0, _take("mitte", "rot", 1))
    assert [len(factory) for factory in after.factories] == [4, 2, 0, 0, 0]
    assert after.bag == () and after.lid == ()


def test_leftover_tiles_of_full_lines_and_the_floor_go_to_the_lid() -> None:
    full = board(pattern=lines(r3=("rot", 3)), floor=("gelb", "gelb"))
    state = table((full, EMPTY), centre=("blau",), bag=("schwarz",) * 40)
    after, _ = MODULE.apply(state, 0, _take("mitte", "blau", 0))
    assert sorted(after.lid) == sorted(("rot", "rot", "gelb", "gelb", "blau"))


# --- game end ----------------------------------------------------------------------------------------------


def test_the_game_ends_after_the_round_in_which_a_wall_row_is_completed() -> None:
    almost = board(wall_rows=("XXXX.",), pattern=lines(r1=("tuerkis", 1)))
    other = board(pattern=lines(r2=("rot", 1)))
    state = table((almost, other), centre=("rot", "schwarz"), current=1, bag=("blau",) * 40)
    after, _ = MODULE.apply(state, 1, _take("mitte", "rot", 2))
    assert not MODULE.is_over(after)
    after, effects = MODULE.apply(after, 0, _take("mitte", "schwarz", 0))
    assert MODULE.is_over(after)
    assert must_act(after) == ()
    assert after.boards[1].wall[1][wall_column(1, "rot")]  # the round was finished for everybody
    assert any(effect["key"] == "kachelwand.spielende" for effect in effects)
    outcome = MODULE.outcome(after)
    # Seat 0: 5 waagerecht = 5, floor −1 (schwarz; seat 1 holds the start tile), full row +2.
    assert outcome.scores[0] == 6
    assert [line.label for line in outcome.lines[0]][-3:] == [
        "Volle Reihen: 1 × 2",
        "Volle Spalten: 0 × 7",
        "Alle Fliesen einer Farbe: 0 × 10",
    ]


def test_a_full_row_scores_two_a_full_column_seven_and_a_full_colour_ten() -> None:
    assert [line.points for line in bonus_lines(board(wall_rows=("XXXXX",)).wall)] == [2, 0, 0]
    column = board(wall_rows=("X....",) * 5).wall
    assert [line.points for line in bonus_lines(column)] == [0, 7, 0]  # column 1 holds five colours
    diagonal = board(wall_rows=("X....", ".X...", "..X..", "...X.", "....X")).wall
    assert [line.points for line in bonus_lines(diagonal)] == [0, 0, 10]
    assert bonus_lines(diagonal)[2].label == "Alle Fliesen einer Farbe: 1 × 10"


def test_ties_are_broken_by_more_complete_rows_then_shared() -> None:
    two_rows = Board(wall=board(wall_rows=("XXXXX", "XXXXX")).wall, score=40)
    one_row = Board(wall=board(wall_rows=("XXXXX",)).wall, score=40)
    outcome = final_outcome((one_row, two_rows))
    assert outcome.places == (2, 1)
    assert outcome.tie_break == (1, 2)
    assert outcome.leaderboard_points == (55, 70)
    shared = final_outcome((one_row, one_row, replace(one_row, score=10)))
    assert shared.places == (1, 1, 3)
    assert shared.leaderboard_points == (70, 70, 15)
    assert "teilen sich den ersten Platz" in shared.summary.text


# --- preview, view and settings ----------------------------------------------------------------------------


def test_preview_shows_the_wall_points_of_a_line_that_completes() -> None:
    start = board(wall_rows=("XX...",))
    state = table((start, EMPTY), factories=(("rot", "blau", "blau", "blau"), (), (), (), ("gelb",)))
    preview = MODULE.preview(state, 0, _take("schale", "rot", 1, schale=1))
    assert preview["reihe_voll"]
    assert preview["wandpunkte"]["punkte"] == 3
    assert preview["wandpunkte"]["rechenweg"]["label"] == "Reihe 1, Rot: 3 waagerecht"


def test_the_view_shows_the_fixed_wall_colours_and_hides_the_bag_order() -> None:
    state = table((EMPTY, EMPTY), factories=(("rot",) * 4, (), (), (), ()), bag=tuple(COLOURS) * 4)
    view = MODULE.view(state, 0)
    assert view["spieler"][0]["wand"][1][0] == {"farbe": "tuerkis", "belegt": False}
    assert view["beutel"] == {"anzahl": 20}
    assert MODULE.view(replace(state, bag=state.bag[::-1]), 0) == view
    assert "builder-seed" not in str(view)


def test_the_view_carries_the_rechenweg_of_the_last_round() -> None:
    start = board(wall_rows=("..X..", "XX..."), pattern=lines(r2=("gelb", 2)))
    state = table((start, EMPTY), centre=("schwarz",), bag=("blau",) * 40)
    after, _ = MODULE.apply(state, 0, _take("mitte", "schwarz", 0))
    rechenweg = MODULE.view(after, None)["spieler"][0]["rechenweg"]
    assert rechenweg[0]["label"] == "Reihe 2, Gelb: 3 waagerecht + 2 senkrecht" and rechenweg[0]["points"] == 5


def test_defaults_are_kachelwand_fixed_wall_without_jokers() -> None:
    assert MODULE.normalize_config({}, 3) == {"workshop": "kachelwand", "wall": "fest", "jokers": "ohne"}


def test_the_free_wall_and_the_jokers_are_playable_in_every_combination() -> None:
    kachelwand = [config for config in MODULE.valid_configs() if config["workshop"] == "kachelwand"]
    assert [(config["wall"], config["jokers"]) for config in kachelwand] == [
        ("fest", "ohne"),
        ("fest", "mit"),
        ("frei", "ohne"),
        ("frei", "mit"),
    ]
    assert MODULE.normalize_config({"wall": "frei", "jokers": "mit"}, 2)["wall"] == "frei"


def test_unknown_settings_and_player_counts_are_refused() -> None:
    with pytest.raises(ConfigError, match="gibt es bei Speedmosaik nicht"):
        MODULE.normalize_config({"farben": "6"}, 2)
    with pytest.raises(ConfigError, match="gibt es nur"):
        MODULE.normalize_config({"wall": "schief"}, 2)
    for seats in (1, 5):
        with pytest.raises(ConfigError, match="zu zweit, zu dritt oder zu viert"):
            MODULE.normalize_config({}, seats)


def test_an_illegal_move_is_an_illegal_move() -> None:
    state = table((EMPTY, EMPTY), factories=(("rot",) * 4, (), (), (), ()))
    with pytest.raises(IllegalMove):
        MODULE.apply(state, 0, {"source": "mitte", "farbe": "rot", "reihe": 1})
