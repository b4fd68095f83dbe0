"""Sternpavillon rules as the rule book states them: setup, taking, placing, bonus tiles, passing, round end."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from libs.rules.protocol import IllegalMove, Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik import MODULE
from libs.rules.speedmosaik.sternpavillon.state import (
    PHASE_BONUS,
    PHASE_KEEP,
    PHASE_PLACE,
    PHASE_TAKE,
    SternpavillonState,
)
from libs.rules.speedmosaik.sternpavillon.tiles import BONUS_PLACES, COLOURS, WILD_ORDER, counts_of
from tests.rules.helpers import assert_refused_without_change
from tests.rules.speedmosaik_builders import must_act
from tests.rules.sternpavillon_builders import board, hand, stars, table

CONFIG: Json = {"workshop": "sternpavillon"}


def _apply(state: SternpavillonState, seat: int, move: Json) -> tuple[SternpavillonState, list[Json]]:
    after, effects = MODULE.apply(state, seat, move)
    assert isinstance(after, SternpavillonState)
    return after, effects


def _refused(state: SternpavillonState, seat: int, move: Any) -> IllegalMove:
    with pytest.raises(IllegalMove) as refused:
        MODULE.apply(state, seat, move)
    assert refused.value.reason.strip()
    return refused.value


def _all_tiles(state: SternpavillonState) -> Counter[str]:
    tiles: Counter[str] = Counter()
    for factory in state.factories:
        tiles.update(factory)
    tiles.update(state.centre)
    tiles.update(state.supply)
    tiles.update(state.bag)
    for colour, count in zip(COLOURS, state.tower, strict=True):
        tiles[colour] += count
    for player in state.boards:
        for colour, count in zip(COLOURS, player.hand, strict=True):
            tiles[colour] += count
        tiles.update(space for star in player.stars for space in star if space is not None)
    return tiles


# --- Setup -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "factories"), [(2, 5), (3, 7), (4, 9)])
def test_a_new_game_has_132_tiles_factories_of_four_and_a_supply_of_ten(seats: int, factories: int) -> None:
    state = MODULE.setup(CONFIG, seats, b"setup")
    assert len(state.factories) == factories
    assert all(len(factory) == 4 for factory in state.factories)
    assert len(state.supply) == 10
    assert _all_tiles(state) == Counter({colour: 22 for colour in COLOURS})


def test_every_player_starts_with_five_points_and_seat_one_takes_first() -> None:
    state = MODULE.setup(CONFIG, 3, b"start")
    assert [player.score for player in state.boards] == [5, 5, 5]
    assert must_act(state) == (0,)
    assert MODULE.view(state, 0)["phase"] == "nehmen"


def test_the_joker_colours_follow_the_rule_book_order() -> None:
    assert WILD_ORDER == ("lila", "gruen", "orange", "gelb", "blau", "rot")
    view = MODULE.view(MODULE.setup(CONFIG, 2, b"joker"), None)
    assert view["joker"] == {"farbe": "lila", "reihenfolge": list(WILD_ORDER)}


def test_the_board_has_six_pillars_six_statues_and_six_windows() -> None:
    kinds = Counter(place.kind for place in BONUS_PLACES)
    assert kinds == {"saeule": 6, "statue": 6, "fenster": 6}
    assert {place.reward for place in BONUS_PLACES if place.kind == "fenster"} == {3}


# --- Taking ------------------------------------------------------------------------------------------------


def _two_player_take_table(**kwargs: object) -> SternpavillonState:
    factories = (("rot", "rot", "blau", "lila"), ("lila", "lila"), ("gelb",), (), ())
    return table((board(), board()), factories=factories, **kwargs)  # type: ignore[arg-type]


def test_taking_a_colour_brings_exactly_one_joker_and_the_rest_goes_to_the_centre() -> None:
    state = _two_player_take_table()
    after, effects = _apply(state, 0, {"aktion": "nehmen", "quelle": "schale", "schale": 1, "farbe": "rot"})
    assert after.boards[0].hand == hand(rot=2, lila=1)
    assert after.centre == ("blau",)
    assert after.factories[0] == ()
    assert effects[0]["params"]["joker"] == 1
    assert must_act(after) == (1,)


def test_the_joker_colour_can_only_be_taken_alone_and_then_one_tile() -> None:
    state = _two_player_take_table()
    refused = _refused(state, 0, {"aktion": "nehmen", "quelle": "schale", "schale": 1, "farbe": "lila"})
    assert refused.code == "joker_not_alone"
    after, _ = _apply(state, 0, {"aktion": "nehmen", "quelle": "schale", "schale": 2, "farbe": "lila"})
    assert after.boards[0].hand == hand(lila=1)
    assert after.centre == ("lila",)


def test_first_from_the_centre_loses_a_point_per_tile_and_gets_the_start_tile() -> None:
    centre = ("rot", "rot", "rot", "lila")
    state = table((board(score=9), board()), factories=((), (), ("gelb",), (), ()), centre=centre)
    after, effects = _apply(state, 0, {"aktion": "nehmen", "quelle": "mitte", "farbe": "rot"})
    assert after.boards[0].score == 5
    assert after.boards[0].centre_penalty == 4
    assert after.start_tile_holder == 0 and not after.start_tile_in_centre
    assert any(effect["key"] == "sternpavillon.startstein" for effect in effects)


def test_the_centre_penalty_never_takes_the_score_below_one() -> None:
    state = table((board(score=3), board()), factories=((), (), ("gelb",), (), ()), centre=("rot",) * 5)
    after, _ = _apply(state, 0, {"aktion": "nehmen", "quelle": "mitte", "farbe": "rot"})
    assert after.boards[0].score == 1
    assert after.boards[0].centre_penalty == 2
    low = table((board(score=1), board()), factories=((), (), ("gelb",), (), ()), centre=("rot",) * 2)
    after_low, _ = _apply(low, 0, {"aktion": "nehmen", "quelle": "mitte", "farbe": "rot"})
    assert after_low.boards[0].score == 1


def test_only_the_first_take_from_the_centre_costs_points() -> None:
    state = table(
        (board(), board()), factories=((), (), ("gelb",), (), ()), centre=("rot", "blau"),
        start_tile_in_centre=False, start_tile_holder=1,
    )
    after, _ = _apply(state, 0, {"aktion": "nehmen", "quelle": "mitte", "farbe": "rot"})
    assert after.boards[0].score == 5 and after.start_tile_holder == 1


def test_when_all_tiles_are_taken_the_start_tile_holder_begins_placing() -> None:
    state = table(
        (board(), board()), factories=((), (), ("gelb",), (), ()), start_tile_in_centre=False,
        start_tile_holder=1, current=0,
    )
    after, effects = _apply(state, 0, {"aktion": "nehmen", "quelle": "schale", "schale": 3, "farbe": "gelb"})
    assert after.phase == PHASE_PLACE
    assert must_act(after) == (1,)
    assert effects[-1]["key"] == "sternpavillon.legephase"


def test_taking_refuses_missing_colours_and_unknown_factories() -> None:
    state = _two_player_take_table()
    assert _refused(state, 0, {"aktion": "nehmen", "quelle": "schale", "schale": 3, "farbe": "rot"}).code == (
        "colour_not_in_source"
    )
    assert _refused(state, 0, {"aktion": "nehmen", "quelle": "schale", "schale": 9, "farbe": "rot"}).code == (
        "no_such_factory"
    )
    assert _refused(state, 0, {"aktion": "nehmen", "quelle": "mitte", "farbe": "schwarz"}).code == "unknown_colour"
    assert _refused(state, 0, {"aktion": "passen"}).code == "wrong_phase"
    take = {"aktion": "nehmen", "quelle": "schale", "schale": 3, "farbe": "gelb"}
    assert assert_refused_without_change(MODULE, state, 1, take).code == "not_your_turn"


# --- Placing -----------------------------------------------------------------------------------------------


def _placing(player_hand: tuple[int, ...], player_stars: object = None, round_number: int = 1,
             supply: tuple[str, ...] = (), bag: tuple[str, ...] = ()) -> SternpavillonState:
    first = board(star_spaces=player_stars if player_stars is not None else stars(), tiles=player_hand)  # type: ignore[arg-type]
    return table((first, board()), phase=PHASE_PLACE, round_number=round_number, supply=supply, bag=bag)


def test_a_space_costs_its_number_in_tiles_of_the_star_colour() -> None:
    state = _placing(hand(blau=4))
    after, _ = _apply(state, 0, {"aktion": "legen", "stern": "blau", "feld": 4, "joker": 0})
    assert after.boards[0].hand == hand()
    assert after.boards[0].stars[2][3] == "blau"
    assert after.tower == counts_of(("blau",) * 3)
    refused = _refused(state, 0, {"aktion": "legen", "stern": "blau", "feld": 5, "joker": 0})
    assert refused.code == "not_enough_tiles"


def test_jokers_may_help_but_one_tile_must_have_the_real_colour() -> None:
    state = _placing(hand(blau=1, lila=5))
    after, _ = _apply(state, 0, {"aktion": "legen", "stern": "blau", "feld": 5, "joker": 4})
    assert after.boards[0].hand == hand(lila=1)
    assert after.tower == counts_of(("lila",) * 4)
    no_real = _placing(hand(lila=5))
    assert _refused(no_real, 0, {"aktion": "legen", "stern": "blau", "feld": 3, "joker": 3}).code in (
        "no_real_colour",
        "not_enough_tiles",
    )
    assert _refused(state, 0, {"aktion": "legen", "stern": "blau", "feld": 2, "joker": 2}).code == "no_real_colour"
    assert not [m for m in MODULE.legal_moves(no_real, 0) if m.get("stern") == "blau"]


def test_in_its_own_star_the_joker_colour_counts_as_real_colour() -> None:
    state = _placing(hand(lila=3))
    after, _ = _apply(state, 0, {"aktion": "legen", "stern": "lila", "feld": 3, "joker": 0})
    assert after.boards[0].stars[6][2] == "lila"
    assert _refused(state, 0, {"aktion": "legen", "stern": "lila", "feld": 3, "joker": 1}).code == "joker_is_colour"


@pytest.mark.parametrize(
    ("filled", "number", "points"),
    [
        ("......", 3, 1),
        ("XX....", 3, 3),
        (".X.X..", 3, 3),
        ("X....X", 2, 3),
        ("X...X.", 6, 3),
        ("XXXXX.", 6, 6),
    ],
)
def test_placing_scores_the_tile_plus_its_chain_in_the_star(filled: str, number: int, points: int) -> None:
    state = _placing(hand(rot=6), stars(rot=filled))
    after, effects = _apply(state, 0, {"aktion": "legen", "stern": "rot", "feld": number, "joker": 0})
    assert after.boards[0].score == 5 + points
    assert effects[0]["params"]["punkte"] == points


def test_the_centre_star_takes_each_colour_once() -> None:
    state = _placing(hand(rot=3, blau=2), stars(mitte="r....."))
    assert _refused(state, 0, {"aktion": "legen", "stern": "mitte", "feld": 2, "farbe": "rot", "joker": 0}).code == (
        "colour_in_centre_star"
    )
    after, _ = _apply(state, 0, {"aktion": "legen", "stern": "mitte", "feld": 2, "farbe": "blau", "joker": 0})
    assert after.boards[0].stars[0][:2] == ("rot", "blau")
    assert after.boards[0].score == 5 + 2


def test_taken_spaces_and_unknown_stars_are_refused() -> None:
    state = _placing(hand(rot=6), stars(rot="X....."))
    assert _refused(state, 0, {"aktion": "legen", "stern": "rot", "feld": 1, "joker": 0}).code == "space_taken"
    assert _refused(state, 0, {"aktion": "legen", "stern": "schwarz", "feld": 1, "joker": 0}).code == "no_such_star"
    assert _refused(state, 0, {"aktion": "legen", "stern": "rot", "feld": 7, "joker": 0}).code == "no_such_space"


def test_surrounding_a_window_earns_three_bonus_tiles_chosen_from_the_supply() -> None:
    supply = ("rot", "rot", "blau", "blau", "gelb", "gelb", "orange", "gruen", "lila", "lila")
    bag = ("orange", "orange", "gruen", "rot")
    state = _placing(hand(rot=6), stars(rot="....X."), supply=supply, bag=bag)
    after, effects = _apply(state, 0, {"aktion": "legen", "stern": "rot", "feld": 6, "joker": 0})
    assert after.phase == PHASE_BONUS and must_act(after) == (0,)
    assert after.boards[0].surrounded == ("fenster-rot",)
    assert any(effect["key"] == "sternpavillon.umschlossen" for effect in effects)
    assert MODULE.view(after, 0)["bonus"] == {"platz": 0, "noch": 3}
    assert MODULE.legal_moves(after, 0) == [{"aktion": "bonus", "farbe": c} for c in COLOURS]
    after, _ = _apply(after, 0, {"aktion": "bonus", "farbe": "blau"})
    after, _ = _apply(after, 0, {"aktion": "bonus", "farbe": "blau"})
    assert len(after.supply) == 8, "the supply is refilled only after the choice"
    after, _ = _apply(after, 0, {"aktion": "bonus", "farbe": "gelb"})
    assert after.boards[0].hand == hand(blau=2, gelb=1)
    assert len(after.supply) == 10
    assert after.bag == ("rot",)
    assert after.phase == PHASE_PLACE and must_act(after) == (1,)


def test_a_pillar_earns_one_bonus_tile_and_a_statue_two() -> None:
    supply = ("rot", "blau", "gelb", "orange", "gruen", "lila", "rot", "blau", "gelb", "orange")
    pillar = _placing(hand(rot=3), stars(rot=".X....", mitte="r....b"), supply=supply)
    after, _ = _apply(pillar, 0, {"aktion": "legen", "stern": "rot", "feld": 3, "joker": 0})
    assert after.boards[0].surrounded == ("saeule-rot",)
    assert MODULE.view(after, 0)["bonus"]["noch"] == 1
    statue = _placing(hand(blau=4), stars(rot="XX....", blau="..X..."), supply=supply)
    after, _ = _apply(statue, 0, {"aktion": "legen", "stern": "blau", "feld": 4, "joker": 0})
    assert after.boards[0].surrounded == ("statue-rot-blau",)
    assert MODULE.view(after, 0)["bonus"]["noch"] == 2


def test_bonus_tiles_come_without_asking_when_there_is_no_choice() -> None:
    state = _placing(hand(rot=6), stars(rot="....X."), supply=("gelb",) * 10)
    after, effects = _apply(state, 0, {"aktion": "legen", "stern": "rot", "feld": 6, "joker": 0})
    assert after.boards[0].hand == hand(gelb=3)
    assert after.phase == PHASE_PLACE and must_act(after) == (1,)
    assert [effect["params"]["automatisch"] for effect in effects if effect["key"] == "sternpavillon.bonusstein"] == [
        True,
        True,
        True,
    ]


def test_the_bag_is_refilled_from_the_tower_when_it_runs_empty() -> None:
    state = _placing(hand(rot=6), stars(rot="....X."), supply=("gelb",) * 10)
    after, effects = _apply(state, 0, {"aktion": "legen", "stern": "rot", "feld": 6, "joker": 0})
    # The tower held the five paid red tiles; three of them refill the supply.
    assert len(after.supply) == 10
    assert sum(after.tower) + len(after.bag) == 2
    assert any(effect["key"] == "sternpavillon.turm_in_beutel" for effect in effects)


# --- Passing -----------------------------------------------------------------------------------------------


def test_passing_with_four_tiles_or_fewer_keeps_them_all_without_a_question() -> None:
    state = _placing(hand(rot=2, blau=2))
    after, _ = _apply(state, 0, {"aktion": "passen"})
    assert after.boards[0].hand == hand(rot=2, blau=2) and after.boards[0].has_passed
    assert after.phase == PHASE_PLACE and must_act(after) == (1,)


def test_passing_with_more_tiles_asks_which_to_keep_and_suggests_the_most_useful() -> None:
    state = _placing(hand(rot=3, blau=2, gruen=2), stars(blau="XXXXXX"))
    after, _ = _apply(state, 0, {"aktion": "passen"})
    assert after.phase == PHASE_KEEP and must_act(after) == (0,)
    keep = MODULE.view(after, 0)["behalten"]
    assert keep["frei"] == 4 and keep["steine"] == 7
    # Round 2's joker is Grün; the full blue star needs no more blue (only the centre star might).
    assert keep["vorschlag"]["gruen"] == 2
    assert sum(keep["vorschlag"].values()) == 4
    moves = MODULE.legal_moves(after, 0)
    assert len(moves) == 4 * 3 * 3
    assert {"aktion": "behalten", "steine": {}} in moves


def test_each_tile_kept_beyond_four_costs_a_point_and_the_rest_go_to_the_tower() -> None:
    state = _placing(hand(rot=3, blau=2, gruen=2))
    after, _ = _apply(state, 0, {"aktion": "passen"})
    kept, effects = _apply(after, 0, {"aktion": "behalten", "steine": {"rot": 3, "gruen": 2, "blau": 1}})
    assert kept.boards[0].hand == hand(rot=3, blau=1, gruen=2)
    assert kept.boards[0].score == 5 - 2 and kept.boards[0].keep_cost == 2
    assert kept.tower == counts_of(("blau",))
    assert effects[0]["params"]["kosten"] == 2
    free, _ = _apply(after, 0, {"aktion": "behalten", "steine": {"rot": 3, "gruen": 1}})
    assert free.boards[0].score == 5
    assert sum(free.tower) == 3
    assert _refused(after, 0, {"aktion": "behalten", "steine": {"gelb": 1}}).code == "not_in_hand"


def test_after_everybody_passed_the_next_round_starts_with_the_start_tile_holder() -> None:
    first = board(tiles=hand(rot=1))
    second = board(has_passed=True)
    bag = tuple(colour for colour in COLOURS for _ in range(10))
    state = table((first, second), phase=PHASE_PLACE, starter=1, bag=bag, supply=("rot",) * 10)
    after, effects = _apply(state, 0, {"aktion": "passen"})
    assert after.round == 2 and after.phase == PHASE_TAKE
    assert must_act(after) == (1,)
    assert after.start_tile_in_centre and after.start_tile_holder is None
    assert all(len(factory) == 4 for factory in after.factories)
    assert not any(player.has_passed for player in after.boards)
    assert after.boards[0].hand == hand(rot=1)
    assert MODULE.view(after, None)["joker"]["farbe"] == "gruen"
    assert any(effect["key"] == "sternpavillon.runde_start" for effect in effects)


def test_in_the_last_round_passing_asks_nothing_and_leftover_tiles_cost_a_point_each() -> None:
    first = board(tiles=hand(rot=3, blau=3), score=20)
    state = table((first, board(has_passed=True)), phase=PHASE_PLACE, round_number=6)
    after, effects = _apply(state, 0, {"aktion": "passen"})
    assert MODULE.is_over(after)
    assert after.boards[0].score == 14
    outcome = MODULE.outcome(after)
    assert [line.label for line in outcome.lines[0]][-1] == "Übrige Steine: 6 × −1"
    assert effects[-2]["key"] == "sternpavillon.endwertung"


def test_malformed_moves_are_refused() -> None:
    state = _placing(hand(rot=2))
    for move in ({}, {"aktion": "legen"}, {"aktion": "passen", "x": 1},
                 {"aktion": "legen", "stern": "rot", "feld": 1, "joker": 0, "farbe": "rot"},
                 {"aktion": "legen", "stern": "mitte", "feld": 1, "joker": 0}):
        assert _refused(state, 0, move).code in ("malformed", "no_such_star")
    # A move that is no JSON object at all never reaches the rules: the engine refuses it.
    for shape in ("passen", None, ["aktion", "passen"]):
        assert assert_refused_without_change(MODULE, state, 0, shape).code == "malformed"


def test_random_games_keep_all_132_tiles_and_every_score_adds_up() -> None:
    for seats in (2, 3, 4):
        state = MODULE.setup(CONFIG, seats, f"count-{seats}".encode())
        rng = SeededRng(b"moves", str(seats))
        while not MODULE.is_over(state):
            seat = must_act(state)[0]
            state, _ = MODULE.apply(state, seat, rng.choice(MODULE.legal_moves(state, seat)))
            assert sum(_all_tiles(state).values()) == 132
            for player in state.boards:
                assert player.score == 5 + player.placement_points - player.centre_penalty - player.keep_cost + sum(
                    line.points for line in player.end_lines
                )
