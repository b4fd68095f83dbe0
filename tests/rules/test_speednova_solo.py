"""Speednova alone (issue 10, points 5 and 6): Rekordjagd, Tagesspiel, Klassisch on 91 cells with tracks to 36 and
no bonus placements; the modes and lists declared for a player's home; every badge.
"""

from __future__ import annotations

import pytest

from libs.rules.evolve import evolve
from libs.rules.home import Finished, ListKey, list_key
from libs.rules.speednova import MODULE
from libs.rules.speednova.board import FREE
from libs.rules.speednova.outcome import final_outcome
from libs.rules.speednova.state import PHASE_OVER, PHASE_SWAP, NovaState
from tests.rules.helpers import play_random_game
from tests.rules.speednova_builders import (
    ENGINE,
    K,
    cell,
    new,
    place_move,
    position,
    set_rack,
    set_track,
    started,
    tile,
    with_stars,
)

HOME = MODULE.spec.home
ALONE = ({"kind": "human"},)


def test_solo_plays_the_inner_map_with_tracks_to_36_and_no_bonus_placements() -> None:
    for variant in ("rekordjagd", "klassisch"):
        state = new(1, {"solo": variant})
        assert len(state.cells) == 91 and state.top == 36 and state.thresholds == ()
    state = set_track(started(new(1, {"solo": "klassisch"})), 0, (15, 0, 0, 0, 0, 0))
    state = with_stars(state, {cell(5, -1, 0): K, cell(5, -2, 0): K, cell(5, -3, 0): K})
    state = set_rack(state, 0, [tile("komet", "nebel")] * 3)
    step = ENGINE.apply(position(state), 0, place_move("komet", "nebel", cell(5, 0, 0), 0))
    after = step.position.state
    assert after.tracks[0][K] == 18 and after.bonus == 0
    assert all(effect["key"] != "speednova.supernova" for effect in step.effects)


def test_rekordjagd_has_no_rack_one_tile_from_the_bag_at_a_time_and_never_a_swap() -> None:
    state = new(1, {"solo": "rekordjagd"})
    assert len(state.racks[0]) == 1 and len(state.bag) == 119
    shown = state.racks[0][0]
    moves = ENGINE.legal_moves(position(state), 0)
    assert {tile(*move["stein"]) for move in moves} == {shown}
    assert MODULE.view(state, 0)["du"]["bank"][0]["stein"]
    game = play_random_game(ENGINE, {"solo": "rekordjagd"}, 1, b"rekord", b"zuege")
    assert all(pos.state.phase != PHASE_SWAP for pos in game.positions)
    assert all(len(pos.state.racks[0]) <= 1 for pos in game.positions)
    first_draw = game.states[0].racks[0][0]
    assert first_draw == state.bag[0] or game.start.bag[0] == first_draw


def test_the_same_seed_deals_the_same_tiles_in_the_same_order() -> None:
    """Tagesspiel: the day's seed, so everyone gets the same tiles in the same order."""
    one, two = new(1, {"solo": "rekordjagd"}, b"day"), new(1, {"solo": "rekordjagd"}, b"day")
    assert one == two and one.bag != new(1, {"solo": "rekordjagd"}, b"other day").bag


def test_klassisch_has_a_rack_of_three_refilled_to_three_with_the_swap_rule() -> None:
    state = new(1, {"solo": "klassisch"})
    assert len(state.racks[0]) == 3 and len(state.bag) == 117
    state = set_track(started(state), 0, (3, 1, 3, 3, 3, 3))
    state = set_rack(state, 0, [tile("riese", "riese"), tile("komet", "zwerg"), tile("pulsar", "quasar")])
    state = evolve(state, bag=(tile("komet", "riese"), *state.bag))
    after = ENGINE.apply(position(state), 0, place_move("riese", "riese", cell(5, 0, 0), 0)).position.state
    assert len(after.racks[0]) == 3 and after.phase == PHASE_SWAP
    swapped = ENGINE.apply(position(after), 0, {"tauschen": True}).position.state
    assert len(swapped.racks[0]) == 3 and swapped.phase != PHASE_SWAP and swapped.current == 0


def test_all_six_at_36_ends_a_solo_game() -> None:
    state = set_track(started(new(1, {"solo": "klassisch"})), 0, (35, 36, 36, 36, 36, 36))
    state = with_stars(state, {cell(5, -1, 0): K})
    state = set_rack(state, 0, [tile("komet", "nebel")] * 3)
    step = ENGINE.apply(position(state), 0, place_move("komet", "nebel", cell(5, 0, 0), 0))
    assert step.position.state.end_reason == "sofort"
    assert step.effects[-1]["text"] == "Alle sechs Farben stehen auf 36: die Partie ist zu Ende."
    outcome = ENGINE.outcome(step.position)
    assert outcome.scores == (36,) and outcome.leaderboard_points == (360,)  # no win bonus alone


# ---- the home: modes and lists -------------------------------------------------------------------------------
def test_the_three_solo_modes_with_their_own_lists() -> None:
    modes = {mode.key: mode for mode in HOME.modes}
    assert list(modes) == ["rekordjagd", "tagesspiel", "klassisch"]
    assert modes["rekordjagd"].settings == {"solo": "rekordjagd"} == modes["tagesspiel"].settings
    assert modes["klassisch"].settings == {"solo": "klassisch"}
    assert modes["tagesspiel"].daily and not modes["rekordjagd"].daily and not modes["klassisch"].daily
    assert all(mode.opponents == (0,) and mode.list_order == (ListKey.RANK,) for mode in modes.values())
    assert HOME.default_mode is modes["rekordjagd"]
    assert MODULE.spec.seat_counts == (1, 2, 3, 4)


def test_the_list_key_is_the_colours_from_the_weakest_up() -> None:
    state = set_track(new(1), 0, (12, 9, 30, 14, 9, 20))
    outcome = final_outcome(evolve(state, phase=PHASE_OVER))
    assert list_key(outcome, 0, (ListKey.RANK,)) == (9, 9, 12, 14, 20, 30)


# ---- badges --------------------------------------------------------------------------------------------------
def finished(state: NovaState, seats: tuple[dict[str, str], ...] = ALONE) -> Finished:
    state = evolve(state, phase=PHASE_OVER)
    return Finished(config=MODULE.normalize_config({}, state.seats), state=state, outcome=final_outcome(state),
                    seat=0, seats=seats, mode="rekordjagd")


@pytest.mark.parametrize(("level", "badges"), [
    (11, set()), (12, {"kleiner_wagen"}), (15, {"kleiner_wagen", "grosser_wagen"}),
    (18, {"kleiner_wagen", "grosser_wagen", "orion"}), (36, {"kleiner_wagen", "grosser_wagen", "orion"}),
])
def test_kleiner_wagen_grosser_wagen_orion(level: int, badges: set[str]) -> None:
    state = set_track(new(1), 0, (level, 30, 30, 30, 30, 30))
    assert set(HOME.earned(finished(state))) == badges


def test_sternbilder_only_in_solo_games() -> None:
    state = set_track(new(2), 0, (18,) * 6)
    assert HOME.earned(finished(state, ({"kind": "human"}, {"kind": "bot", "level": "easy"}))) == ()


def test_andromeda_after_20_tiles_no_colour_below_10() -> None:
    base = started(new(1, {"solo": "klassisch"}))
    base = with_stars(base, {cell(5, -1, 0): K})
    base = set_rack(base, 0, [tile("komet", "nebel")] * 3)
    fake = tuple((0, 0, 0, 0, 0) for _ in range(19))  # 19 tiles placed before
    for low, expected in ((10, True), (9, False)):
        state = evolve(set_track(base, 0, (low, low, 12, 12, 12, 12)), placed=fake)
        after = ENGINE.apply(position(state), 0, place_move("komet", "nebel", cell(5, 0, 0), 0)).position.state
        assert after.andromeda[0] == low
        assert ("andromeda" in HOME.earned(finished(after))) is expected
    assert new(1).andromeda == (-1,)


def test_kassiopeia_a_scored_line_of_six_equal_stars() -> None:
    for run, expected in ((5, True), (4, False)):
        state = started(new(1, {"solo": "klassisch"}))
        state = with_stars(state, {cell(5, -k, 0): K for k in range(1, run + 1)})
        state = set_rack(state, 0, [tile("komet", "nebel")] * 3)
        move = place_move("komet", "nebel", cell(5, 0, 0), 0)
        assert ENGINE.preview(position(state), 0, move)["sechserlinie"] is expected
        after = ENGINE.apply(position(state), 0, move).position.state
        assert after.six_line[0] is expected
        assert ("kassiopeia" in HOME.earned(finished(after))) is expected


def test_polarstern_is_the_tagesspiel_on_five_days_in_a_row() -> None:
    badge = HOME.badge("polarstern")
    assert badge is not None and badge.streak is not None
    assert (badge.streak.mode, badge.streak.days) == ("tagesspiel", 5)
    assert {badge.key for badge in HOME.badges} == {"kleiner_wagen", "grosser_wagen", "orion", "andromeda",
                                                   "kassiopeia", "polarstern"}


def test_a_finished_random_solo_game_answers_every_badge() -> None:
    for variant in ("rekordjagd", "klassisch"):
        game = play_random_game(ENGINE, {"solo": variant}, 1, b"abzeichen", b"z")
        state = game.final_position.state
        assert state.phase == PHASE_OVER and FREE in state.cells
        HOME.earned(Finished({"solo": variant}, state, ENGINE.outcome(game.final_position), 0, ALONE, variant))
