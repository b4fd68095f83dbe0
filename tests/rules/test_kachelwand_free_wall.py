"""The Kachelwand's free wall ("Freie Wand") as the rule book states it, one sentence per test."""

from __future__ import annotations

import copy

import pytest

from libs.rules.protocol import IllegalMove
from libs.rules.speedmosaik import MODULE
from libs.rules.speedmosaik.kachelwand.scoring import bonus_lines
from libs.rules.speedmosaik.kachelwand.state import KachelwandState
from libs.rules.speedmosaik.kachelwand.tiles import START_TILE
from tests.rules.helpers import assert_refused_without_change
from tests.rules.speedmosaik_builders import board, free_board, lines, must_act, table

EMPTY = free_board()
BAG = ("gelb",) * 40


def _free_table(*boards: object, **kwargs: object) -> KachelwandState:
    return table(tuple(boards), wall_kind="frei", bag=BAG, **kwargs)  # type: ignore[arg-type]


def _end_round(first: object, second: object = EMPTY, **kwargs: object) -> KachelwandState:
    """Return the state after seat 0 takes the last tile (blau from the centre) onto its floor."""
    state = _free_table(first, second, centre=("blau",), **kwargs)
    after, _ = MODULE.apply(state, 0, {"source": "mitte", "farbe": "blau", "reihe": 0})
    return after


# --- laying tiles ------------------------------------------------------------------------------------------


def test_a_setup_on_the_free_wall_has_no_colours_on_the_wall() -> None:
    state = MODULE.setup({"wall": "frei"}, 2, b"free")
    view = MODULE.view(state, 0)
    assert view["spieler"][0]["wand"][0][0] == {"farbe": None, "belegt": False}
    assert view["phase"] == "nehmen"
    assert view["spieler"][0]["wandlegen"] == {"bisher": [], "wahl": None}


def test_a_pattern_line_takes_any_colour_not_yet_hanging_in_its_wall_row() -> None:
    hung = free_board(wall_rows=("", "R...."))
    state = _free_table(hung, EMPTY, factories=(("rot", "rot", "blau", "blau"), (), (), (), ("gelb",)))
    assert {"source": "schale", "schale": 1, "farbe": "rot", "reihe": 1} in MODULE.legal_moves(state, 0)
    assert {"source": "schale", "schale": 1, "farbe": "rot", "reihe": 3} in MODULE.legal_moves(state, 0)
    refused = assert_refused_without_change(
        MODULE, state, 0, {"source": "schale", "schale": 1, "farbe": "rot", "reihe": 2}
    )
    assert refused.code == "colour_on_wall"
    assert refused.reason.startswith("In Wandreihe 2 hängt schon Rot")


def test_laying_into_a_line_whose_colour_has_no_free_column_returns_a_warning_first() -> None:
    # Row 2 has only column 5 free, and column 5 already holds Rot (row 4): Rot can never hang in row 2.
    blocked = free_board(wall_rows=("", "BGST.", "", "....R"))
    state = _free_table(blocked, EMPTY, factories=(("rot", "rot", "blau", "blau"), (), (), (), ("gelb",)))
    move = {"source": "schale", "schale": 1, "farbe": "rot", "reihe": 2}
    preview = MODULE.preview(state, 0, move)
    warning = next(w for w in preview["warnungen"] if w["key"] == "kachelwand.warnung.wand_faellt")
    assert warning["params"]["sicher"] is True
    assert "fallen alle ihre Fliesen auf den Boden" in warning["text"]
    refused = _refused_as_warning(state, 0, move)
    assert (refused.code, refused.reason) == ("warning", warning["text"])
    confirmed = {**move, "bestaetigt": True}
    assert confirmed in MODULE.legal_moves(state, 0)
    assert move not in MODULE.legal_moves(state, 0)
    after, _ = MODULE.apply(state, 0, confirmed)
    assert after.boards[0].pattern_lines[1].count == 2


def test_the_warning_also_comes_when_a_line_above_may_take_the_last_column() -> None:
    # Line 1 (Rot, full) may hang in column 3 or 4; row 2 has Rot only in column 4 left.
    wall_rows = ("GB...", "BGS..", "", "....R")
    above = free_board(wall_rows=wall_rows, pattern=lines(r1=("rot", 1)))
    state = _free_table(above, EMPTY, factories=(("rot", "rot", "blau", "blau"), (), (), (), ("gelb",)))
    preview = MODULE.preview(state, 0, {"source": "schale", "schale": 1, "farbe": "rot", "reihe": 2})
    assert [w["params"]["sicher"] for w in preview["warnungen"]] == [False]
    assert "Je nachdem, welche Spalten du für die Reihen darüber wählst" in preview["warnungen"][0]["text"]
    # Without a Rot line above, column 4 stays free for row 2: no warning.
    free = free_board(wall_rows=wall_rows)
    calm = _free_table(free, EMPTY, factories=(("rot", "rot", "blau", "blau"), (), (), (), ("gelb",)))
    assert MODULE.preview(calm, 0, {"source": "schale", "schale": 1, "farbe": "rot", "reihe": 2})["warnungen"] == []


def test_a_move_without_any_warning_needs_no_confirmation_but_may_carry_one() -> None:
    state = _free_table(EMPTY, EMPTY, factories=(("rot", "rot", "blau", "blau"), (), (), (), ("gelb",)))
    move = {"source": "schale", "schale": 1, "farbe": "rot", "reihe": 2}
    assert move in MODULE.legal_moves(state, 0)
    plain, _ = MODULE.apply(state, 0, move)
    confirmed, _ = MODULE.apply(state, 0, {**move, "bestaetigt": True})
    assert plain == confirmed


def test_the_preview_of_a_completing_line_shows_its_best_column() -> None:
    start = free_board(wall_rows=("BG...",))
    state = _free_table(start, EMPTY, factories=(("rot", "blau", "blau", "blau"), (), (), (), ("gelb",)))
    preview = MODULE.preview(state, 0, {"source": "schale", "schale": 1, "farbe": "rot", "reihe": 1})
    assert preview["wandpunkte"]["punkte"] == 3
    assert preview["wandpunkte"]["spalte"] == 3
    assert preview["wandpunkte"]["rechenweg"]["label"] == "Reihe 1, Rot: 3 waagerecht"


# --- choosing the column at the round end ------------------------------------------------------------------


def test_at_round_end_a_full_line_with_several_free_columns_waits_for_its_owner() -> None:
    after = _end_round(free_board(pattern=lines(r1=("rot", 1)), score=10))
    assert must_act(after) == (0,)
    assert MODULE.legal_moves(after, 0) == [{"spalte": column} for column in range(1, 6)]
    assert MODULE.legal_moves(after, 1) == []
    view = MODULE.view(after, 0)
    assert view["phase"] == "wand" and view["am_zug"] == [0] and view["beginnt_naechste_runde"] == 0
    choice = view["spieler"][0]["wandlegen"]["wahl"]
    assert (choice["reihe"], choice["farbe"]) == (1, "rot")
    assert [option["spalte"] for option in choice["spalten"]] == [1, 2, 3, 4, 5]
    done, effects = MODULE.apply(after, 0, {"spalte": 3})
    assert done.boards[0].wall_colours is not None and done.boards[0].wall_colours[0][2] == "rot"
    assert done.round == 2 and must_act(done) == (0,)
    # Wall +1, floor −2 (start tile and Blau).
    assert done.boards[0].score == 9
    assert effects[0]["text"] == "Platz 1 hängt Rot in Wandreihe 1, Spalte 3: einzeln = 1"


def test_taking_tiles_is_refused_while_the_walls_are_tiled() -> None:
    after = _end_round(free_board(pattern=lines(r1=("rot", 1))))
    refused = assert_refused_without_change(MODULE, after, 0, {"source": "mitte", "farbe": "blau", "reihe": 0})
    assert refused.code == "malformed"
    # Seat 1 has no column to choose: the engine refuses it like any seat without a decision.
    refused = assert_refused_without_change(MODULE, after, 1, {"spalte": 1})
    assert (refused.code, refused.reason) == ("not_your_turn", "Platz 1 ist am Zug, nicht du.")


def test_seats_choose_their_columns_in_parallel() -> None:
    first = free_board(pattern=lines(r1=("rot", 1), r2=("blau", 2)))
    second = free_board(pattern=lines(r1=("gelb", 1)))
    after = _end_round(first, second)
    assert must_act(after) == (0, 1)
    after, _ = MODULE.apply(after, 1, {"spalte": 5})
    assert must_act(after) == (0,)
    after, _ = MODULE.apply(after, 0, {"spalte": 1})
    # Line 2 of seat 0 now chooses too (Blau may go anywhere in row 2).
    assert must_act(after) == (0,)
    assert MODULE.view(after, 0)["spieler"][0]["wandlegen"]["wahl"]["reihe"] == 2
    after, _ = MODULE.apply(after, 0, {"spalte": 1})
    assert after.round == 2 and not after.tiling
    assert after.boards[0].round_points == (1,)  # 1 + 2 on the wall, −2 on the floor
    assert [line.label for line in after.boards[0].last_round_lines] == [
        "Reihe 1, Rot: einzeln",
        "Reihe 2, Blau: 2 senkrecht",
        "Boden: 2 Steine",
    ]


def test_a_line_with_exactly_one_free_column_is_placed_without_a_question() -> None:
    # Column 5 holds Rot in row 4, so Rot fits in row 2 only in column 4.
    only = free_board(wall_rows=("", "BGS..", "", "....R"), pattern=lines(r2=("rot", 2)), floor=(START_TILE,), score=5)
    state = _free_table(only, EMPTY, centre=("blau",), start_tile_in_centre=False, start_tile_holder=0, current=1)
    after, effects = MODULE.apply(state, 1, {"source": "mitte", "farbe": "blau", "reihe": 0})
    assert not after.tiling and after.round == 2  # nobody was asked
    assert after.boards[0].wall_colours is not None and after.boards[0].wall_colours[1][3] == "rot"
    assert "Platz 1 hängt Rot in Wandreihe 2, Spalte 4 (die einzige freie Spalte): 4 waagerecht = 4" in [
        effect["text"] for effect in effects
    ]


def _refused_as_warning(state: KachelwandState, seat: int, move: dict[str, object]) -> IllegalMove:
    snapshot = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as refused:
        MODULE.apply(state, seat, move)
    assert state == snapshot
    return refused.value


def test_each_colour_hangs_only_once_in_each_row_and_each_column() -> None:
    column_taken = free_board(wall_rows=("R....",), pattern=lines(r2=("rot", 2)))
    after = _end_round(column_taken)
    assert MODULE.legal_moves(after, 0) == [{"spalte": column} for column in (2, 3, 4, 5)]
    refused = assert_refused_without_change(MODULE, after, 0, {"spalte": 1})
    assert refused.code == "column_not_free"
    assert "jede Farbe nur einmal je Reihe und Spalte" in refused.reason
    occupied = free_board(wall_rows=("", "B...."), pattern=lines(r2=("rot", 2)))
    assert assert_refused_without_change(MODULE, _end_round(occupied), 0, {"spalte": 1}).code == "column_not_free"


def test_a_line_without_a_free_column_falls_to_the_floor_with_its_penalty() -> None:
    blocked = free_board(wall_rows=("", "BGST.", "", "....R"), pattern=lines(r2=("rot", 2)), score=10)
    state = _free_table(EMPTY, blocked, centre=("blau",))
    after, effects = MODULE.apply(state, 0, {"source": "mitte", "farbe": "blau", "reihe": 0})
    fallen = next(effect for effect in effects if effect["key"] == "kachelwand.gefallen")
    assert fallen["text"] == "Platz 2: In Wandreihe 2 ist keine Spalte für Rot frei – 2 Fliesen fallen auf den Boden."
    assert after.boards[1].score == 8  # two floor tiles: −1 −1
    assert [line.label for line in after.boards[1].last_round_lines] == [
        "Reihe 2, Rot: keine Spalte frei – 2 Fliesen auf den Boden",
        "Boden: 2 Steine",
    ]
    assert after.boards[1].pattern_lines[1].count == 0
    assert after.lid.count("rot") == 2


def test_fallen_tiles_beyond_the_seventh_floor_space_go_to_the_box_lid() -> None:
    crowded = free_board(
        wall_rows=("", "", "BGST.", "....R"), pattern=lines(r3=("rot", 3)), floor=("gelb",) * 6, score=30
    )
    state = _free_table(EMPTY, crowded, centre=("blau",))
    after, _ = MODULE.apply(state, 0, {"source": "mitte", "farbe": "blau", "reihe": 0})
    assert after.boards[1].score == 30 - 14
    # Seat 2's six Gelb, its fallen Rot (one on the floor, two straight to the lid) and seat 1's Blau.
    assert sorted(after.lid) == sorted(("gelb",) * 6 + ("rot",) * 3 + ("blau",))


def test_a_line_above_can_take_the_last_column_so_its_column_choice_warns_first() -> None:
    # Line 1 Rot may hang in column 3 or 4; column 4 is the last one where Rot fits in row 2.
    risky = free_board(wall_rows=("GB...", "BGS..", "", "....R"), pattern=lines(r1=("rot", 1), r2=("rot", 2)))
    after = _end_round(risky)
    assert MODULE.legal_moves(after, 0) == [{"spalte": 3}, {"spalte": 4, "bestaetigt": True}]
    preview = MODULE.preview(after, 0, {"spalte": 4})
    assert preview["faellt"] == 1
    assert preview["warnungen"][0]["key"] == "kachelwand.warnung.spalte_faellt"
    refused = _refused_as_warning(after, 0, {"spalte": 4})
    assert (refused.code, refused.reason) == ("warning", preview["warnungen"][0]["text"])
    fell, effects = MODULE.apply(after, 0, {"spalte": 4, "bestaetigt": True})
    assert any(effect["key"] == "kachelwand.gefallen" for effect in effects)
    assert fell.boards[0].round_points == (0,)
    kept, effects = MODULE.apply(after, 0, {"spalte": 3})
    assert kept.boards[0].wall_colours is not None and kept.boards[0].wall_colours[1][3] == "rot"
    assert "(die einzige freie Spalte)" in effects[1]["text"]


def test_the_next_round_is_started_by_the_start_tile_holder_after_all_choices() -> None:
    state = _free_table(free_board(pattern=lines(r1=("rot", 1))), EMPTY, centre=("blau",), current=1)
    after, _ = MODULE.apply(state, 1, {"source": "mitte", "farbe": "blau", "reihe": 0})
    assert must_act(after) == (0,)
    after, effects = MODULE.apply(after, 0, {"spalte": 2})
    assert after.current == 1 and after.boards[1].floor == ()
    assert effects[-1]["text"] == "Runde 2 beginnt, Platz 2 fängt an."


def test_a_bot_view_during_the_choice_determinizes_to_the_same_table() -> None:
    from collections import Counter
    from dataclasses import replace

    from libs.rules.rng import SeededRng
    from libs.rules.speedmosaik.kachelwand.view import hidden_bag_counts

    after = _end_round(
        free_board(pattern=lines(r1=("rot", 1), r2=("blau", 2))), free_board(pattern=lines(r1=("gelb", 1)))
    )
    hidden: Counter[str] = hidden_bag_counts(MODULE.view(replace(after, bag=()), 1))
    after = replace(after, bag=tuple(tile for tile, count in hidden.items() for _ in range(count + 0)))
    view = MODULE.view(after, 1)
    rebuilt = MODULE.determinize(view, 1, SeededRng(b"bot"))
    assert MODULE.view(rebuilt, 1) == view
    assert must_act(rebuilt) == (0, 1)
    assert MODULE.legal_moves(rebuilt, 1) == MODULE.legal_moves(after, 1)


# --- scoring -----------------------------------------------------------------------------------------------


def test_five_tiles_of_one_colour_anywhere_on_the_free_wall_score_ten() -> None:
    scattered = free_board(wall_rows=("R....", "..R..", "....R", ".R...", "...R."))
    assert [line.points for line in bonus_lines(scattered.wall, scattered.wall_colours)] == [0, 0, 10]
    full_row = free_board(wall_rows=("RGBST",))
    assert [line.points for line in bonus_lines(full_row.wall, full_row.wall_colours)] == [2, 0, 0]
    full_column = free_board(wall_rows=("R....", "G....", "B....", "S....", "T...."))
    assert [line.points for line in bonus_lines(full_column.wall, full_column.wall_colours)] == [0, 7, 0]


def test_free_wall_tiles_score_their_chains_like_the_fixed_wall() -> None:
    chains = free_board(wall_rows=("..S..", "BG..."), pattern=lines(r2=("rot", 2)), score=10)
    after = _end_round(chains)
    # Column 3 continues the row (3 waagerecht) and touches Schwarz above (2 senkrecht); others score less.
    options = {o["spalte"]: o["punkte"] for o in MODULE.view(after, 0)["spieler"][0]["wandlegen"]["wahl"]["spalten"]}
    assert options == {3: 5, 4: 1, 5: 1}
    done, _ = MODULE.apply(after, 0, {"spalte": 3})
    assert done.boards[0].last_round_lines[0].label == "Reihe 2, Rot: 3 waagerecht + 2 senkrecht"


def test_the_fixed_wall_view_has_no_free_wall_keys() -> None:
    state = table((board(), board()), factories=(("rot",) * 4, (), (), (), ()))
    view = MODULE.view(state, 0)
    assert "phase" not in view and "wandlegen" not in view["spieler"][0]
    assert "joker" not in view["spieler"][0]["musterreihen"][0]
    assert START_TILE not in view["spieler"][0]["boden"]


@pytest.mark.parametrize(
    "move", [{"spalte": 0}, {"spalte": "1"}, {"spalte": 1, "farbe": "rot"}, {"spalte": 1, "bestaetigt": "ja"}]
)
def test_broken_column_moves_are_refused(move: object) -> None:
    after = _end_round(free_board(pattern=lines(r1=("rot", 1))))
    with pytest.raises(IllegalMove):
        MODULE.apply(after, 0, move)  # type: ignore[arg-type]
    assert_refused_without_change(MODULE, after, 0, move)
