"""The Kachelwand's golden jokers ("Joker", eigene Festlegung of the rule book), one sentence per test."""

from __future__ import annotations

from collections import Counter

from libs.rules.speedmosaik import MODULE
from libs.rules.speedmosaik.kachelwand.state import KachelwandState
from libs.rules.speedmosaik.kachelwand.tiles import JOKER
from tests.rules.helpers import assert_refused_without_change
from tests.rules.speedmosaik_builders import board, free_board, lines, table

EMPTY = board()
BAG = ("gelb",) * 40


def _joker_table(*boards: object, **kwargs: object) -> KachelwandState:
    return table(tuple(boards), jokers="mit", bag=BAG, **kwargs)  # type: ignore[arg-type]


def test_ten_golden_jokers_join_the_hundred_tiles_in_the_bag() -> None:
    state = MODULE.setup({"jokers": "mit"}, 2, b"jokers")
    tiles = Counter(state.bag) + Counter(tile for factory in state.factories for tile in factory)
    assert sum(tiles.values()) == 110
    assert tiles[JOKER] == 10 and tiles["blau"] == 20
    assert MODULE.view(state, 0)["deckel"]["farben"][JOKER] == 0


def test_taking_a_colour_brings_one_joker_from_the_same_factory_into_the_same_line() -> None:
    state = _joker_table(EMPTY, EMPTY, factories=(("blau", "blau", JOKER, JOKER), (), (), (), ("rot",)))
    move = {"source": "schale", "schale": 1, "farbe": "blau", "reihe": 3}
    preview = MODULE.preview(state, 0, move)
    assert (preview["anzahl"], preview["joker"], preview["in_reihe"], preview["reihe_voll"]) == (3, 1, 3, True)
    after, effects = MODULE.apply(state, 0, move)
    assert after.boards[0].pattern_lines[2] == type(after.boards[0].pattern_lines[2])("blau", 3, 1)
    assert after.centre == (JOKER,)  # the second joker goes to the centre with the rest
    assert effects[0]["text"] == "Platz 1 nimmt 2 × Blau + Joker aus Schale 1 → Musterreihe 3"
    assert effects[0]["params"]["joker"] == 1


def test_taking_a_colour_from_the_centre_brings_one_joker_along() -> None:
    state = _joker_table(EMPTY, EMPTY, centre=("rot", JOKER, JOKER), factories=((), (), (), (), ("gelb",)))
    after, _ = MODULE.apply(state, 0, {"source": "mitte", "farbe": "rot", "reihe": 2})
    assert after.boards[0].pattern_lines[1].count == 2
    assert after.centre == (JOKER,)


def test_without_a_joker_in_the_source_nothing_comes_along() -> None:
    state = _joker_table(EMPTY, EMPTY, factories=(("blau", "blau", "rot", "rot"), (), (), (), (JOKER,)))
    after, _ = MODULE.apply(state, 0, {"source": "schale", "schale": 1, "farbe": "blau", "reihe": 3})
    assert after.boards[0].pattern_lines[2].jokers == 0 and after.boards[0].pattern_lines[2].count == 2


def test_a_joker_that_does_not_fit_falls_to_the_floor_after_the_colour_tiles() -> None:
    state = _joker_table(EMPTY, EMPTY, factories=(("blau", "blau", JOKER, "rot"), (), (), (), ("rot",)))
    after, _ = MODULE.apply(state, 0, {"source": "schale", "schale": 1, "farbe": "blau", "reihe": 2})
    assert after.boards[0].pattern_lines[1].jokers == 0
    assert after.boards[0].floor == (JOKER,)
    after, _ = MODULE.apply(state, 0, {"source": "schale", "schale": 1, "farbe": "blau", "reihe": 1})
    assert after.boards[0].floor == ("blau", JOKER)


def test_a_source_with_only_jokers_lets_one_joker_extend_a_started_line() -> None:
    started = board(pattern=lines(r4=("rot", 2)))
    state = _joker_table(started, EMPTY, factories=((JOKER, JOKER), (), (), (), ("rot",)))
    moves = [move for move in MODULE.legal_moves(state, 0) if move.get("schale") == 1]
    assert moves == [
        {"source": "schale", "schale": 1, "farbe": JOKER, "reihe": 0},
        {"source": "schale", "schale": 1, "farbe": JOKER, "reihe": 4},
    ]
    after, effects = MODULE.apply(state, 0, moves[1])
    assert after.boards[0].pattern_lines[3] == type(started.pattern_lines[3])("rot", 3, 1)
    assert after.centre == (JOKER,)  # the other joker of the factory goes to the centre
    assert effects[0]["text"] == "Platz 1 nimmt 1 × Joker aus Schale 1 → Musterreihe 4"


def test_a_lone_joker_is_refused_on_an_empty_line_and_while_colours_lie_beside_it() -> None:
    started = board(pattern=lines(r4=("rot", 2)))
    state = _joker_table(started, EMPTY, factories=((JOKER,), ("blau", JOKER), (), (), ("rot",)))
    empty_line = assert_refused_without_change(
        MODULE, state, 0, {"source": "schale", "schale": 1, "farbe": JOKER, "reihe": 2}
    )
    assert empty_line.code == "joker_needs_started_line"
    assert "ergänzt nur eine angefangene Reihe" in empty_line.reason
    beside = assert_refused_without_change(
        MODULE, state, 0, {"source": "schale", "schale": 2, "farbe": JOKER, "reihe": 4}
    )
    assert beside.code == "joker_not_alone"


def test_the_joker_is_no_colour_in_a_game_without_jokers() -> None:
    state = table((EMPTY, EMPTY), factories=(("blau",) * 4, (), (), (), ()))
    refused = assert_refused_without_change(
        MODULE, state, 0, {"source": "schale", "schale": 1, "farbe": JOKER, "reihe": 0}
    )
    assert refused.code == "unknown_colour"


def test_at_the_wall_a_colour_tile_hangs_and_the_jokers_go_to_the_box_lid() -> None:
    full = board(pattern=lines(r3=("rot", 3, 2)), score=10)
    state = _joker_table(full, EMPTY, centre=("blau",))
    after, effects = MODULE.apply(state, 0, {"source": "mitte", "farbe": "blau", "reihe": 0})
    assert after.boards[0].wall[2][4]  # Rot in row 3 of the fixed wall
    assert Counter(after.lid) == Counter({JOKER: 2, "blau": 1})
    assert "Platz 1 hängt Rot in Wandreihe 3: einzeln = 1" in [effect["text"] for effect in effects]


def test_jokers_on_the_floor_cost_like_any_tile_and_then_go_to_the_lid() -> None:
    floor = board(floor=(JOKER, JOKER, JOKER), score=10)
    state = _joker_table(floor, EMPTY, centre=("blau",), current=1)
    after, _ = MODULE.apply(state, 1, {"source": "mitte", "farbe": "blau", "reihe": 1})
    assert after.boards[0].score == 6
    assert after.lid.count(JOKER) == 3


def test_a_full_joker_line_on_the_free_wall_hangs_its_colour_in_the_chosen_column() -> None:
    full = free_board(pattern=lines(r2=("rot", 2, 1)))
    state = table((full, free_board()), wall_kind="frei", jokers="mit", bag=BAG, centre=("blau",))
    after, _ = MODULE.apply(state, 0, {"source": "mitte", "farbe": "blau", "reihe": 0})
    after, _ = MODULE.apply(after, 0, {"spalte": 2})
    assert after.boards[0].wall_colours is not None and after.boards[0].wall_colours[1][1] == "rot"
    assert after.lid.count(JOKER) == 1


def test_the_view_shows_jokers_in_lines_lid_and_displays() -> None:
    holder = board(pattern=lines(r3=("rot", 2, 1)), floor=(JOKER,))
    state = _joker_table(holder, EMPTY, factories=(("blau", JOKER), (), (), (), ()), lid=(JOKER,))
    view = MODULE.view(state, 1)
    assert view["schalen"][0] == ["blau", JOKER]
    assert view["spieler"][0]["musterreihen"][2] == {"reihe": 3, "felder": 3, "farbe": "rot", "anzahl": 2, "joker": 1}
    assert view["spieler"][0]["boden"] == [JOKER]
    assert view["deckel"]["farben"][JOKER] == 1
