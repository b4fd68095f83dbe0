"""The Kirchenfenster as the rule book states it, one sentence per test."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from libs.rules.protocol import ConfigError
from libs.rules.speedmosaik import MODULE
from libs.rules.speedmosaik.kirchenfenster.material import (
    BREAKAGE_TRACK,
    COLOURS,
    JOKER,
    STRIP_PATTERNS,
    breakage_loss,
    step_breakage,
)
from libs.rules.speedmosaik.kirchenfenster.state import Board, KirchenfensterState, PendingWindow
from tests.rules.helpers import assert_refused_without_change
from tests.rules.kirchenfenster_builders import board, plenty_bag, strip, table
from tests.rules.speedmosaik_builders import must_act

B, G, N, R, V = "blau", "gelb", "gruen", "rot", "violett"
CONFIG = {"workshop": "kirchenfenster"}
EMPTY = board()


def take(source: str, farbe: str, streifen: int, schale: int | None = None) -> dict[str, object]:
    move: dict[str, object] = {"aktion": "nehmen", "source": source, "farbe": farbe, "streifen": streifen}
    if schale is not None:
        move["schale"] = schale
    return move


def two_players(first: Board = EMPTY, second: Board = EMPTY, **kwargs: Any) -> KirchenfensterState:
    kwargs.setdefault("factories", ((B, B, R, G), (), (), (), (V,)))
    return table((first, second), **kwargs)


# --- material and setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "factories"), [(2, 5), (3, 7), (4, 9)])
def test_setup_fills_five_seven_or_nine_factories_with_four_panes_each(seats: int, factories: int) -> None:
    state = MODULE.setup(CONFIG, seats, b"setup")
    assert len(state.factories) == factories
    assert all(len(factory) == 4 for factory in state.factories)
    everything = Counter(state.bag) + Counter(pane for factory in state.factories for pane in factory)
    assert everything == Counter({colour: 20 for colour in COLOURS})


def test_both_palace_sides_can_be_chosen_and_saeulen_is_the_default() -> None:
    assert MODULE.normalize_config(CONFIG, 2) == {"workshop": "kirchenfenster", "palace": "saeulen"}
    assert MODULE.normalize_config({**CONFIG, "palace": "fensterfarbe"}, 3)["palace"] == "fensterfarbe"
    with pytest.raises(ConfigError):
        MODULE.normalize_config({**CONFIG, "palace": "tuerme"}, 2)
    with pytest.raises(ConfigError):
        MODULE.normalize_config({**CONFIG, "wall": "frei"}, 2)


def test_every_strip_has_two_or_three_colours_in_groups_on_the_front_and_two_jokers_on_the_back() -> None:
    assert len(STRIP_PATTERNS) == 8
    for front, back in STRIP_PATTERNS:
        assert len(front) == len(back) == 5
        assert JOKER not in front and 2 <= len(set(front)) <= 3
        assert back.count(JOKER) == 2 and 2 <= len(set(back) - {JOKER}) <= 3
        for side in (front, back):
            colours = [field for field in side if field != JOKER]
            groups = [c for i, c in enumerate(side) if c != JOKER and (i == 0 or side[i - 1] != c)]
            assert len(groups) == len(set(colours)), f"colours of {side} are not in groups"
    fronts = Counter(field for front, _ in STRIP_PATTERNS for field in front)
    assert set(fronts.values()) == {8}


def test_every_player_gets_the_same_strips_in_the_same_order() -> None:
    state = MODULE.setup(CONFIG, 4, b"same-strips")
    views = [MODULE.view(state, None)["spieler"][seat]["streifen"] for seat in range(4)]
    assert all(strips == views[0] for strips in views)
    assert [s["muster"] for s in views[0]] == [list(front) for front, _ in STRIP_PATTERNS]


def test_the_six_bonus_colours_are_each_colour_once_plus_one_and_public_from_the_start() -> None:
    for seed in (b"a", b"b", b"c", b"d"):
        state = MODULE.setup(CONFIG, 2, seed)
        view = MODULE.view(state, 1)
        assert len(view["bonusfarben"]) == 6 and set(view["bonusfarben"]) == set(COLOURS)
        assert view["bonusfarbe"] == view["bonusfarben"][0]
    orders = {tuple(MODULE.view(MODULE.setup(CONFIG, 2, bytes([n])), None)["bonusfarben"]) for n in range(12)}
    assert len(orders) > 1


# --- taking panes and the Glasermeister ---------------------------------------------------------------------


def test_taking_from_a_factory_moves_the_rest_to_the_centre_and_the_panes_onto_one_strip() -> None:
    state = two_players()
    after, effects = MODULE.apply(state, 0, take("schale", B, 1, schale=1))
    assert after.factories[0] == ()
    assert after.centre == (G, R)
    assert after.boards[0].strips[0].panes == (B, B, None, None, None)
    assert effects[0]["text"] == "Platz 1 nimmt 2 × Blau aus Schale 1 → Streifen 1"
    assert after.current == 1


def test_panes_go_onto_the_strip_under_the_glasermeister_or_one_right_of_it_and_he_moves_along() -> None:
    state = two_players(first=board(glasermeister=3))
    legal = MODULE.legal_moves(state, 0)
    blue_targets = [m["streifen"] for m in legal if m.get("farbe") == B and m.get("schale") == 1]
    assert blue_targets == [5, 6, 7]  # front sides with blue fields right of the Glasermeister
    refused = assert_refused_without_change(MODULE, state, 0, take("schale", B, 1, schale=1))
    assert refused.code == "strip_not_reachable"
    after, _ = MODULE.apply(state, 0, take("schale", B, 6, schale=1))
    assert after.boards[0].glasermeister == 5
    assert MODULE.view(after, 0)["spieler"][0]["glasermeister"] == 6


def test_a_strip_without_room_for_the_colour_is_refused() -> None:
    state = two_players(first=board(glasermeister=1))
    refused = assert_refused_without_change(MODULE, state, 0, take("schale", B, 2, schale=1))
    assert refused.code == "strip_no_room"
    assert refused.reason == "Auf Streifen 2 ist kein Platz für Blau."


def test_panes_that_do_not_fit_break_and_move_the_marker_down_one_step_each() -> None:
    # Strip 1 front: B B B G G; two blue already there, so of three blue panes one fits.
    state = two_players(first=board(strips={1: strip(B, B)}), factories=((B, B, B, G), (), (), (), (V,)))
    after, effects = MODULE.apply(state, 0, take("schale", B, 1, schale=1))
    assert after.boards[0].strips[0].panes == (B, B, B, None, None)
    assert after.boards[0].breakage_field == 2
    assert after.tower == (B, B)
    assert "(2 zerbrechen)" in effects[0]["text"]


def test_a_reachable_strip_with_room_must_be_used_and_breaking_all_is_only_allowed_without_one() -> None:
    state = two_players()
    refused = assert_refused_without_change(MODULE, state, 0, take("schale", B, 0, schale=1))
    assert refused.code == "must_place"
    # Glasermeister above strip 8 (front G G N N V): no room for blue anywhere reachable.
    far_right = two_players(first=board(glasermeister=8))
    legal = MODULE.legal_moves(far_right, 0)
    assert take("schale", B, 0, schale=1) in legal
    preview = MODULE.preview(far_right, 0, take("schale", B, 0, schale=1))
    assert preview["zerbricht"] == 2 and preview["erreichbar"] == []
    after, _ = MODULE.apply(far_right, 0, take("schale", B, 0, schale=1))
    assert after.boards[0].breakage_field == 2 and after.boards[0].glasermeister == 7


def test_joker_fields_take_any_colour_after_the_fields_of_that_colour() -> None:
    # Strip 2 back: J B B N J; three blue panes fill both blue fields, then the first joker field.
    back = strip(side=1)
    state = two_players(first=board(strips={2: back}, glasermeister=2), factories=((B, B, B, R), (), (), (), (V,)))
    after, _ = MODULE.apply(state, 0, take("schale", B, 2, schale=1))
    assert after.boards[0].strips[1].panes == (B, B, B, None, None)
    red = two_players(first=board(strips={2: back}, glasermeister=2), factories=((R, R, R, G), (), (), (), (V,)))
    after, _ = MODULE.apply(red, 0, take("schale", R, 2, schale=1))
    assert after.boards[0].strips[1].panes == (R, None, None, None, R)
    assert after.boards[0].breakage_field == 1


def test_the_first_to_take_from_the_centre_gets_the_start_tile_breaks_a_pane_and_starts_next_round() -> None:
    state = two_players(factories=((), (), (), (), ()), centre=(B, R, R), current=1, bag=plenty_bag())
    preview = MODULE.preview(state, 1, take("mitte", R, 2))
    assert preview["startstein"] and preview["glasbruch"]["punkte"] == -1
    after, effects = MODULE.apply(state, 1, take("mitte", R, 2))
    assert after.boards[1].breakage_field == 1
    assert after.start_tile_holder == 1 and not after.start_tile_in_centre
    assert any(effect["key"] == "kirchenfenster.startstein" for effect in effects)
    after, effects = MODULE.apply(after, 0, take("mitte", B, 1))
    assert after.round == 2 and after.current == 1 and after.start_tile_in_centre
    assert effects[-1]["key"] == "kirchenfenster.runde_start"
    assert after.boards[0].breakage_field == 0  # the second taker from the centre breaks nothing


def test_instead_of_taking_a_player_may_bring_the_glasermeister_back_to_the_far_left() -> None:
    state = two_players(first=board(glasermeister=6))
    assert {"aktion": "glasermeister"} in MODULE.legal_moves(state, 0)
    after, effects = MODULE.apply(state, 0, {"aktion": "glasermeister"})
    assert after.boards[0].glasermeister == 0 and after.current == 1
    assert after.factories == state.factories
    assert effects[0]["text"] == "Platz 1 holt den Glasermeister ganz nach links (er stand über Streifen 6)."


def test_the_glasermeister_cannot_be_brought_back_when_he_already_stands_far_left() -> None:
    state = two_players(first=board(glasermeister=1))
    assert {"aktion": "glasermeister"} not in MODULE.legal_moves(state, 0)
    refused = assert_refused_without_change(MODULE, state, 0, {"aktion": "glasermeister"})
    assert refused.code == "glasermeister_left"


def test_malformed_moves_unknown_colours_and_wrong_seats_are_refused() -> None:
    state = two_players()
    for move, code in [
        (take("schale", "lila", 1, schale=1), "unknown_colour"),
        (take("schale", B, 9, schale=1), "no_such_strip"),
        (take("schale", B, 1, schale=6), "no_such_factory"),
        (take("schale", V, 1, schale=1), "colour_not_in_source"),
        ({"aktion": "fenster", "farbe": B}, "no_choice"),
        ({**take("schale", B, 1, schale=1), "reihe": 1}, "malformed"),
        ({"source": "schale"}, "malformed"),
    ]:
        assert assert_refused_without_change(MODULE, state, 0, move).code == code
    assert assert_refused_without_change(MODULE, state, 1, take("schale", B, 1, schale=1)).code == "not_your_turn"


# --- the breakage track ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("broken", "lost"),
    [(0, 0), (1, 1), (2, 2), (3, 3), (4, 5), (5, 7), (6, 9), (7, 11), (8, 14), (9, 18), (10, 19), (18, 36)],
)
def test_the_breakage_track_reads_0_1_2_3_5_7_9_11_14_18_and_restarts_at_the_top(broken: int, lost: int) -> None:
    field, wraps = step_breakage(0, 0, broken)
    assert breakage_loss(field, wraps) == lost
    assert BREAKAGE_TRACK == (0, -1, -2, -3, -5, -7, -9, -11, -14, -18)


def test_reaching_the_bottom_costs_eighteen_at_once_and_the_marker_starts_again_at_the_top() -> None:
    low = board(glasermeister=8, breakage_field=7, window_points=20)
    state = two_players(first=low, factories=((B, B, B, R), (), (), (), (V,)))
    preview = MODULE.preview(state, 0, take("schale", B, 0, schale=1))
    assert preview["glasbruch"]["nachher"] == {"feld": 2, "wert": -1, "umlaeufe": 1, "verloren": 19}
    assert any(w["key"] == "kirchenfenster.warnung.ganz_unten" for w in preview["warnungen"])
    after, effects = MODULE.apply(state, 0, take("schale", B, 0, schale=1))
    assert (after.boards[0].breakage_field, after.boards[0].breakage_wraps) == (1, 1)
    assert after.boards[0].score == 2
    assert any(effect["key"] == "kirchenfenster.glasbruch_unten" for effect in effects)


# --- full strips and windows --------------------------------------------------------------------------------


def test_a_full_strip_scores_one_point_per_pane_of_the_rounds_bonus_colour() -> None:
    # Round 2's bonus colour is blue; strip 1 front B B B G G gets its last two yellow panes.
    almost = board(strips={1: strip(B, B, B)})
    state = two_players(first=almost, factories=((G, G, R, R), (), (), (), (V,)), round_number=2)
    after, effects = MODULE.apply(state, 0, take("schale", G, 1, schale=1))
    assert after.boards[0].bonus_points == 3
    assert any(e["text"] == "Streifen 1 von Platz 1 ist voll: 3 × Bonusfarbe Blau = +3." for e in effects)


def test_the_player_chooses_the_window_pane_as_an_ordinary_decision() -> None:
    almost = board(strips={1: strip(B, B, B, G)})
    state = two_players(first=almost)
    after, _ = MODULE.apply(state, 0, take("schale", G, 1, schale=1))
    assert must_act(after) == (0,)
    assert after.pending == PendingWindow(0, 0)
    assert MODULE.legal_moves(after, 0) == [{"aktion": "fenster", "farbe": B}, {"aktion": "fenster", "farbe": G}]
    view = MODULE.view(after, 1)
    assert view["phase"] == "fenster"
    assert view["fensterwahl"] == {"platz": 0, "streifen": 1, "fenster": 1, "farben": [B, G], "vorschlag": B}
    refused = assert_refused_without_change(MODULE, after, 0, take("schale", V, 1, schale=5))
    assert refused.code == "choose_window_pane"
    assert assert_refused_without_change(MODULE, after, 0, {"aktion": "fenster", "farbe": R}).code == (
        "colour_not_on_strip"
    )
    done, effects = MODULE.apply(after, 0, {"aktion": "fenster", "farbe": G})
    assert done.boards[0].windows[0] == (G,)
    assert done.current == 1 and done.pending is None
    assert effects[0]["text"] == "Platz 1 setzt Gelb in Fenster 1: Fenster 1 (2) = +2 → 2 Punkte"


def test_a_strip_of_one_colour_goes_into_the_window_without_a_question() -> None:
    # Strip 3 back: J J G G B; four yellow panes already, one blue field left... use strip 1 back R R J J V.
    almost = board(strips={1: strip(V, V, V, V, side=1)}, glasermeister=1)
    state = two_players(first=almost, factories=((V, B, R, G), (), (), (), (V,)))
    after, effects = MODULE.apply(state, 0, take("schale", V, 1, schale=1))
    assert after.pending is None and after.current == 1
    assert after.boards[0].windows[0] == (V,)
    assert not any(effect["key"] == "kirchenfenster.fensterwahl" for effect in effects)


def test_window_points_count_this_window_and_every_started_window_to_the_right_gaps_or_not() -> None:
    almost = board(strips={3: strip(R, R, R, V)}, glasermeister=3, windows={2: (B,), 5: (G,), 8: (N, B)})
    state = two_players(first=almost, factories=((V, B, R, G), (), (), (), (V,)))
    preview = MODULE.preview(state, 0, take("schale", V, 3, schale=1))
    assert preview["wertung"]["fenster"] == {"fenster": 3, "wert": 3, "rechts": [5, 8], "punkte": 12}
    assert preview["wertung"]["rechenweg"] == "Fenster 3 (3) + Fenster 5 (4) + Fenster 8 (5)"
    after, _ = MODULE.apply(state, 0, take("schale", V, 3, schale=1))
    after, _ = MODULE.apply(after, 0, {"aktion": "fenster", "farbe": R})
    assert after.boards[0].window_points == 12


def test_the_window_values_are_2_2_3_3_4_4_5_5_from_left_to_right() -> None:
    view = MODULE.view(MODULE.setup(CONFIG, 2, b"values"), 0)
    assert view["fensterwerte"] == [2, 2, 3, 3, 4, 4, 5, 5]
    assert [window["wert"] for window in view["spieler"][0]["fenster"]] == [2, 2, 3, 3, 4, 4, 5, 5]


def test_the_other_panes_of_a_full_strip_go_to_the_glass_tower_and_the_strip_turns_over() -> None:
    almost = board(strips={1: strip(B, B, B, G)})
    state = two_players(first=almost, tower=(R,))
    after, _ = MODULE.apply(state, 0, take("schale", G, 1, schale=1))
    after, effects = MODULE.apply(after, 0, {"aktion": "fenster", "farbe": B})
    assert after.tower == (B, B, G, G, R)
    assert after.boards[0].strips[0].side == 1 and after.boards[0].strips[0].pane_count() == 0
    assert effects[-1]["key"] == "kirchenfenster.streifen_gedreht"
    strip_view = MODULE.view(after, 0)["spieler"][0]["streifen"][0]
    assert strip_view["seite"] == 2 and strip_view["muster"] == [R, R, JOKER, JOKER, V]


def test_after_its_second_filling_a_strip_is_done_and_takes_no_more_panes() -> None:
    almost = board(strips={1: strip(R, R, B, B, side=1)}, windows={1: (G,)})
    state = two_players(first=almost, factories=((V, B, R, G), (), (), (), (V,)))
    after, _ = MODULE.apply(state, 0, take("schale", V, 1, schale=1))
    after, effects = MODULE.apply(after, 0, {"aktion": "fenster", "farbe": B})
    assert after.boards[0].strips[0].is_done and after.boards[0].windows[0] == (G, B)
    assert effects[-1]["text"] == "Streifen 1 ist fertig."
    assert all(move.get("streifen") != 1 for move in MODULE.legal_moves(after, 0))


# --- round end, bag, game end -------------------------------------------------------------------------------


def test_the_glass_tower_refills_the_bag_when_it_runs_empty() -> None:
    state = two_players(factories=((), (), (), (), ()), centre=(R,), bag=(B,) * 3, tower=(G,) * 10 + (N,) * 10)
    after, effects = MODULE.apply(state, 0, take("mitte", R, 2))
    assert after.round == 2
    drawn = [pane for factory in after.factories for pane in factory]
    assert len(drawn) == 20 and drawn.count(B) == 3
    assert len(after.bag) == 3 and after.tower == ()
    assert any(effect["key"] == "kirchenfenster.beutel_nachgefuellt" for effect in effects)


def test_the_game_ends_after_six_rounds_with_the_end_scoring() -> None:
    state = two_players(factories=((), (), (), (), ()), centre=(R,), bag=plenty_bag(), round_number=6)
    after, effects = MODULE.apply(state, 0, take("mitte", R, 2))
    assert MODULE.is_over(after) and must_act(after) == ()
    assert effects[-3]["text"] == "Nach 6 Runden ist die Partie vorbei."
    state5 = two_players(factories=((), (), (), (), ()), centre=(R,), bag=plenty_bag(), round_number=5)
    assert not MODULE.is_over(MODULE.apply(state5, 0, take("mitte", R, 2))[0])
