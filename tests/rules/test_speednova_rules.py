"""Speednova's numbered promises (issue 10, points 1–3 and 8): map, Leitsterne, tiles, first placement, line scoring
in five directions, cap, Supernova and its lapse, swap offer, end, passing, ranking, immediate win, timeouts,
previews, effects and the leaderboard's points. Every move goes through the Engine.
"""

from __future__ import annotations

from collections import Counter

import pytest

from libs.rules.evolve import evolve
from libs.rules.protocol import ConfigError, Json
from libs.rules.speednova import MODULE
from libs.rules.speednova.board import FREE, board, greedy_pairs
from libs.rules.speednova.outcome import final_outcome, place_bonus, speednova_points
from libs.rules.speednova.state import PHASE_OVER, PHASE_SWAP, NovaState
from libs.rules.speednova.tiles import ALL_TILES, COLOURS, SHAPES, TILE_COLOURS
from tests.rules.helpers import play_random_game
from tests.rules.speednova_builders import (
    ENGINE,
    K,
    N,
    Z,
    cell,
    fill_all_but,
    new,
    place_move,
    position,
    set_rack,
    set_track,
    started,
    tile,
    with_stars,
)


def apply(state: NovaState, seat: int, move: Json) -> tuple[NovaState, list[Json]]:
    step = ENGINE.apply(position(state), seat, move)
    return step.position.state, step.effects


def keys(effects: list[Json]) -> list[str]:
    return [effect["key"] for effect in effects]


# ---- 1. material and map -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("seats", "cells"), [(1, 91), (2, 91), (3, 127), (4, 169)])
def test_the_map_grows_with_the_table(seats: int, cells: int) -> None:
    state = new(seats)
    assert len(state.cells) == cells == board(state.radius).size
    view = MODULE.view(state, 0)
    assert len(view["karte"]["sterne"]) == cells and len(view["karte"]["koordinaten"]) == cells


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_six_leitsterne_stand_on_the_inner_maps_corners_one_per_colour(seats: int) -> None:
    state = new(seats)
    the_board = board(state.radius)
    corners = {(5, 0), (5, -5), (0, -5), (-5, 0), (-5, 5), (0, 5)}
    assert {the_board.coords[c] for c in the_board.leitsterne} == corners
    assert [state.cells[c] for c in the_board.leitsterne] == list(range(6))
    assert sum(1 for value in state.cells if value != FREE) == 6
    view = MODULE.view(state, None)
    assert [entry["farbe"] for entry in view["karte"]["leitsterne"]] == list(COLOURS)
    assert [colour["form"] for colour in view["farben"]] == list(SHAPES)
    assert view["farben"][0] == {"farbe": "komet", "name": "Komet", "form": "Schweif"}


def test_a_leitstern_scores_like_a_placed_star() -> None:
    state = started(new(2))
    komet_star = board(5).leitsterne[K]  # at (5, 0)
    beside = cell(5, 4, 0)  # west of it
    state = set_rack(state, 0, [tile("komet", "nebel")] * 6)
    preview = ENGINE.preview(position(state), 0, place_move("komet", "nebel", beside, 3))
    assert preview["punkte"]["komet"] == 1
    komet_half = next(half for half in preview["haelften"] if half["farbe"] == "komet")
    assert komet_half["linien"] == [{"richtung": 0, "felder": [komet_star], "punkte": 1}]


def test_120_double_stars_five_per_colour_six_per_pair() -> None:
    counts = Counter(ALL_TILES)
    assert len(ALL_TILES) == 120
    assert all(counts[code] == (5 if TILE_COLOURS[code][0] == TILE_COLOURS[code][1] else 6) for code in counts)
    assert len(counts) == 21


@pytest.mark.parametrize(("seats", "rack"), [(2, 6), (3, 6), (4, 6)])
def test_racks_of_six_are_hidden_from_everyone_else(seats: int, rack: int) -> None:
    state = new(seats)
    assert all(len(r) == rack for r in state.racks) and len(state.bag) == 120 - seats * rack
    spectator = MODULE.view(state, None)
    assert spectator["du"] is None and all(p["steine"] == rack for p in spectator["spieler"])
    for seat in range(seats):
        view = MODULE.view(state, seat)
        assert [entry["stein"] for entry in view["du"]["bank"]] == [
            [COLOURS[TILE_COLOURS[c][0]], COLOURS[TILE_COLOURS[c][1]]] for c in state.racks[seat]]
        assert {k: v for k, v in view.items() if k != "du"} == {k: v for k, v in spectator.items() if k != "du"}


def test_settings_teams_only_with_four_and_solo_variants_only_alone() -> None:
    assert MODULE.normalize_config({}, 1) == {"solo": "rekordjagd"}
    assert MODULE.normalize_config({}, 2) == {} == MODULE.normalize_config({"teams": "ohne"}, 3)
    assert MODULE.normalize_config({"teams": "mit"}, 4) == {"teams": "mit"}
    with pytest.raises(ConfigError, match="zu viert"):
        MODULE.normalize_config({"teams": "mit"}, 2)
    with pytest.raises(ConfigError, match="allein"):
        MODULE.normalize_config({"solo": "klassisch"}, 2)
    with pytest.raises(ConfigError):
        MODULE.normalize_config({"teams": "ja"}, 4)
    options = MODULE.settings_options()
    assert options["teams"]["seats"] == [4] and options["solo"]["seats"] == [1]


# ---- first placement -----------------------------------------------------------------------------------------
def test_the_first_double_star_lies_beside_a_leitstern_nobody_started_at() -> None:
    state = new(2)
    the_board = board(state.radius)
    near = set().union(*the_board.leit_adjacent)
    moves = ENGINE.legal_moves(position(state), 0)
    assert moves and all(m["feld"] in near or the_board.neighbours[m["feld"]][m["richtung"]] in near for m in moves)
    assert set(MODULE.view(state, 1)["karte"]["startfelder"]) >= near
    far = cell(5, 0, 0)
    rack_tile = state.racks[0][0]
    a, b = (COLOURS[c] for c in TILE_COLOURS[rack_tile])
    with pytest.raises(Exception) as refused:
        apply(state, 0, place_move(a, b, far, 0))
    assert getattr(refused.value, "code", None) == "first_tile"
    # Seat 0 starts beside the Komet Leitstern: seat 1 may not start there any more.
    komet_side = cell(5, 4, 0)
    state, _ = apply(state, 0, place_move(a, b, komet_side, 2))
    assert state.started[0] == K
    view = MODULE.view(state, 1)
    assert view["karte"]["leitsterne"][K]["begonnen"] is True
    assert not set(view["karte"]["startfelder"]) & the_board.leit_adjacent[K]
    for move in ENGINE.legal_moves(position(state), 1):
        cells = {move["feld"], the_board.neighbours[move["feld"]][move["richtung"]]}
        assert not cells & the_board.leit_adjacent[K]


# ---- scoring -------------------------------------------------------------------------------------------------
def five_lines_state() -> NovaState:
    """Komet lines around the centre in directions 0–4 (2, 1, 3, 0: a Nebel, 1); the partner's side 5 free."""
    def c(q: int, r: int) -> int:
        return cell(5, q, r)

    stars = {c(1, 0): K, c(2, 0): K, c(3, 0): N,  # east: 2, then another colour
             c(1, -1): K,  # north-east: 1, then a free cell
             c(0, -1): K, c(0, -2): K, c(0, -3): K,  # north-west: 3
             c(-1, 0): N,  # west: another colour first: 0
             c(-1, 1): K,  # south-west: 1
             c(1, 1): N}  # beside the partner's cell (0, 1): a Nebel line of 1
    state = started(new(2))
    return set_rack(with_stars(state, stars), 0, [tile("komet", "nebel")] * 6)


def test_each_half_scores_its_five_lines_and_stops_at_gaps_other_colours_and_the_edge() -> None:
    state = five_lines_state()
    centre = cell(5, 0, 0)
    preview = ENGINE.preview(position(state), 0, place_move("komet", "nebel", centre, 5))
    assert preview["punkte"] == {"komet": 7, "nebel": 1}
    assert preview["text"]["text"] == "Komet +7 · Nebel +1"
    assert preview["rechenweg"]["text"] == "Komet 2 + 1 + 3 + 1 = 7 · Nebel 1"
    halves = {half["farbe"]: half for half in preview["haelften"]}
    lines = {line["richtung"]: line["felder"] for line in halves["komet"]["linien"]}
    assert lines == {0: [cell(5, 1, 0), cell(5, 2, 0)], 1: [cell(5, 1, -1)],
                     2: [cell(5, 0, -1), cell(5, 0, -2), cell(5, 0, -3)], 4: [cell(5, -1, 1)]}
    # The named orientation and its mirror (from the partner's cell) are the same placement.
    mirror = ENGINE.preview(position(state), 0, place_move("nebel", "komet", cell(5, 0, 1), 2))
    assert mirror == preview
    after, effects = apply(state, 0, place_move("komet", "nebel", centre, 5))
    assert after.tracks[0][K] == 7 and after.tracks[0][N] == 1
    legen = next(e for e in effects if e["key"] == "speednova.legen")
    assert legen["text"] == "Platz 1 legt Nebel/Komet: Komet +7 · Nebel +1."
    assert legen["params"]["haelften"] == preview["haelften"] and legen["params"]["punkte"] == preview["punkte"]
    assert next(e for e in effects if e["key"] == "speednova.rechenweg")["text"] == "Komet 2 + 1 + 3 + 1 = 7 · Nebel 1"


def test_the_partner_half_does_not_count_for_its_own_tile_and_same_colour_halves_add_up() -> None:
    state = started(new(2))
    a, b = cell(5, 0, 0), cell(5, 1, 0)
    state = set_rack(with_stars(state, {cell(5, -1, 0): K, cell(5, 2, 0): K}), 0, [tile("komet", "komet")] * 6)
    preview = ENGINE.preview(position(state), 0, place_move("komet", "komet", a, 0))
    assert preview["punkte"] == {"komet": 2}  # 1 west of a, 1 east of b; not each other
    assert preview["rechenweg"]["text"] == "Komet 1 + 1 = 2"
    assert [half["feld"] for half in preview["haelften"]] == [a, b]


def test_tracks_stop_at_18_and_the_rest_is_lost() -> None:
    state = set_track(five_lines_state(), 0, (15, 0, 0, 0, 0, 0))
    state = evolve(state, bag=state.bag)
    after, effects = apply(state, 0, place_move("komet", "nebel", cell(5, 0, 0), 5))
    assert after.tracks[0][K] == 18
    assert after.gains[0][K] == (15, 3)
    voll = next(e for e in effects if e["key"] == "speednova.voll")
    assert voll["text"] == "Komet steht auf 18: 4 Punkte verfallen." and voll["params"]["verfallen"] == 4
    assert "nur +3 bis 18, 4 verfallen" in next(e for e in effects if e["key"] == "speednova.rechenweg")["text"]
    # A full colour scores nothing more.
    preview = ENGINE.preview(position(after), after.current, ENGINE.legal_moves(position(after), after.current)[0])
    assert "komet" not in preview["punkte"] or preview["punkte"]["komet"] == 0


# ---- 2. Supernova --------------------------------------------------------------------------------------------
def test_a_colour_reaching_18_earns_a_bonus_placement_before_refilling() -> None:
    state = set_track(five_lines_state(), 0, (11, 0, 0, 0, 0, 0))
    bag_before = len(state.bag)
    after, effects = apply(state, 0, place_move("komet", "nebel", cell(5, 0, 0), 5))
    assert after.tracks[0][K] == 18 and after.bonus == 1
    assert "speednova.supernova" in keys(effects) and "speednova.nachziehen" not in keys(effects)
    nova = next(e for e in effects if e["key"] == "speednova.supernova")
    assert nova["text"] == "Supernova! Komet erreicht 18: Platz 1 legt sofort noch einen Stein."
    assert len(after.racks[0]) == 5 and len(after.bag) == bag_before  # not refilled yet
    pos = position(after)
    assert ENGINE.must_act(pos) == (0,)
    assert MODULE.view(after, 1)["bonuszuege"] == 1
    # The bonus placement (made by the timeout rule: the computer places bonus placements too).
    move = ENGINE.timeout_move(pos, 0)
    assert move in ENGINE.legal_moves(pos, 0)
    final, effects = apply(after, 0, move)
    assert final.bonus == 0 and final.current == 1 and len(final.racks[0]) == 6
    assert "speednova.nachziehen" in keys(effects)


def test_two_colours_reaching_18_at_once_earn_two_bonus_placements() -> None:
    state = set_track(five_lines_state(), 0, (11, 17, 0, 0, 0, 0))
    after, effects = apply(state, 0, place_move("komet", "nebel", cell(5, 0, 0), 5))
    assert after.bonus == 2 and keys(effects).count("speednova.supernova") == 2
    assert after.current == 0 and MODULE.pending(after)[0].decision != MODULE.pending(state)[0].decision


def test_the_bonus_lapses_when_the_rack_is_empty() -> None:
    state = set_track(five_lines_state(), 0, (11, 0, 0, 0, 0, 0))
    state = evolve(set_rack(state, 0, [tile("komet", "nebel")]), bag=())
    after, effects = apply(state, 0, place_move("komet", "nebel", cell(5, 0, 0), 5))
    lapse = next(e for e in effects if e["key"] == "speednova.bonus_verfaellt")
    assert lapse["text"] == "Der Bonuszug verfällt: die Bank ist leer." and lapse["params"]["grund"] == "leer"
    assert after.bonus == 0 and after.current == 1


def test_the_bonus_lapses_when_the_map_is_full_and_the_game_ends() -> None:
    state = set_track(five_lines_state(), 0, (11, 0, 0, 0, 0, 0))
    centre, partner = cell(5, 0, 0), cell(5, 0, 1)
    stars = {i: v for i, v in enumerate(state.cells) if v != FREE}
    state = with_stars(fill_all_but(state, {centre, partner}, Z), stars)
    after, effects = apply(state, 0, place_move("komet", "nebel", centre, 5))
    assert keys(effects)[-2:] == ["speednova.bonus_verfaellt", "speednova.ende"]
    assert effects[-2]["text"] == "Der Bonuszug verfällt: die Karte ist voll."
    assert after.phase == PHASE_OVER and after.end_reason == "voll"
    assert MODULE.pending(after) == ()


# ---- swap offer ----------------------------------------------------------------------------------------------
def swap_state(rack_after: list[int]) -> NovaState:
    """Seat 0 places a Riese/Riese; the bag then deals ``rack_after``'s last tile; weakest: Nebel and Zwerg."""
    state = started(new(2))
    state = set_track(state, 0, (3, 1, 2, 1, 4, 5))
    state = set_rack(state, 0, [tile("riese", "riese"), *rack_after[:5]])
    return evolve(state, bag=(rack_after[5], *state.bag[:20]))


def test_the_swap_is_offered_after_refilling_when_no_tile_holds_a_weakest_colour() -> None:
    rack = [tile("komet", "riese")] * 3 + [tile("pulsar", "quasar")] * 3
    state = swap_state(rack)
    after, effects = apply(state, 0, place_move("riese", "riese", cell(5, 0, 0), 0))
    assert after.phase == PHASE_SWAP and after.current == 0
    offer = next(e for e in effects if e["key"] == "speednova.tauschangebot")
    assert offer["text"] == ("Platz 1 hat keinen Stein mit der schwächsten Farbe (Nebel und Zwerg) und darf die Bank "
                             "tauschen.")
    pos = position(after)
    assert ENGINE.legal_moves(pos, 0) == [{"tauschen": True}, {"tauschen": False}]
    assert ENGINE.timeout_move(pos, 0) == {"tauschen": False}
    view = MODULE.view(after, 0)
    assert not any(entry["schwaechste"] for entry in view["du"]["bank"])
    kept, effects = apply(after, 0, {"tauschen": False})
    assert kept.racks[0] == after.racks[0] and kept.current == 1 and "speednova.behalten" in keys(effects)
    swapped, effects = apply(after, 0, {"tauschen": True})
    assert len(swapped.racks[0]) == 6 and len(swapped.bag) == len(after.bag) and swapped.current == 1
    assert swapped.shuffles == 1 and Counter(swapped.racks[0] + swapped.bag) == Counter(after.racks[0] + after.bag)
    private = next(e for e in effects if e["key"] == "speednova.gezogen")
    assert private["visible_to"] == [0]


def test_ties_any_weakest_colour_in_the_rack_means_no_offer() -> None:
    rack = [tile("komet", "riese")] * 3 + [tile("pulsar", "zwerg")] + [tile("pulsar", "quasar")] * 2
    after, effects = apply(swap_state(rack), 0, place_move("riese", "riese", cell(5, 0, 0), 0))
    assert after.phase != PHASE_SWAP and after.current == 1 and "speednova.tauschangebot" not in keys(effects)
    view = MODULE.view(after, 0)
    assert [entry["schwaechste"] for entry in view["du"]["bank"]].count(True) == 1


def test_a_swap_is_never_offered_twice_for_one_refill_and_never_outside_the_offer() -> None:
    rack = [tile("komet", "riese")] * 6
    after, _ = apply(swap_state(rack), 0, place_move("riese", "riese", cell(5, 0, 0), 0))
    pos = position(after)
    assert pos.state.phase == PHASE_SWAP
    done, _ = apply(after, 0, {"tauschen": True})
    assert done.phase != PHASE_SWAP and done.current == 1
    with pytest.raises(Exception) as refused:
        apply(done, 1, {"tauschen": True})
    assert getattr(refused.value, "code", None) == "no_swap"


# ---- end, passing, ranking -----------------------------------------------------------------------------------
def test_the_game_ends_when_no_two_neighbouring_cells_are_free() -> None:
    state = started(new(2))
    a, b, lonely = cell(5, 0, 0), cell(5, 1, 0), cell(5, 3, -3)
    state = fill_all_but(state, {a, b, lonely})
    assert greedy_pairs(state.cells, board(5).neighbours) == 1
    first = COLOURS[TILE_COLOURS[state.racks[0][0]][0]], COLOURS[TILE_COLOURS[state.racks[0][0]][1]]
    after, effects = apply(state, 0, place_move(first[0], first[1], a, 0))
    assert after.phase == PHASE_OVER and after.end_reason == "voll" and after.cells[lonely] == FREE
    assert effects[-1]["text"] == "Kein Paar freier Nachbarfelder mehr: die Partie ist zu Ende."
    assert ENGINE.outcome(position(after)).places


def test_players_without_tiles_pass() -> None:
    state = evolve(set_rack(started(new(3)), 1, []), bag=())
    move = ENGINE.legal_moves(position(state), 0)[0]
    after, effects = apply(state, 0, move)
    assert after.current == 2
    assert next(e for e in effects if e["key"] == "speednova.aussetzen")["text"] == \
        "Platz 2 hat keine Steine mehr und setzt aus."


def test_ranking_by_the_weakest_colour_then_the_next_weakest() -> None:
    state = new(3)
    state = set_track(state, 0, (5, 9, 6, 7, 8, 9))
    state = set_track(state, 1, (9, 5, 7, 7, 8, 9))  # same weakest, better second weakest
    state = set_track(state, 2, (4, 18, 18, 18, 18, 18))
    outcome = final_outcome(evolve(state, phase=PHASE_OVER))
    assert outcome.rank_keys == ((5, 6, 7, 8, 9, 9), (5, 7, 7, 8, 9, 9), (4, 18, 18, 18, 18, 18))
    assert outcome.places == (2, 1, 3) and outcome.scores == (5, 5, 4)
    assert outcome.summary.text == "Platz 2 gewinnt mit der schwächsten Farbe auf 5."
    assert outcome.leaderboard_points == (50 + 25, 50 + 50, 40)
    shared = final_outcome(evolve(set_track(state, 0, (9, 5, 7, 7, 8, 9)), phase=PHASE_OVER))
    assert shared.places == (1, 1, 3) and shared.leaderboard_points == (100, 100, 40)


def test_the_end_table_shows_the_weakest_colours_computation() -> None:
    state = new(2)
    tracks = list(state.tracks)
    gains = list(state.gains)
    tracks[0] = (12, 10, 9, 11, 13, 14)
    gains[0] = ((12,), (10,), (3, 2, 4), (11,), (13,), (14,))
    outcome = final_outcome(evolve(state, tracks=tuple(tracks), gains=tuple(gains), phase=PHASE_OVER))
    line = outcome.lines[0][0]
    assert line.label == "Riese 9 = 3 + 2 + 4" and line.points == 9 == outcome.scores[0]
    assert outcome.lines[1][0].label == "Komet 0"


def test_all_six_at_18_wins_at_once() -> None:
    state = set_track(five_lines_state(), 0, (17, 18, 18, 18, 18, 18))
    after, effects = apply(state, 0, place_move("komet", "nebel", cell(5, 0, 0), 5))
    assert after.phase == PHASE_OVER and after.end_reason == "sofort"
    assert effects[-1]["text"] == "Platz 1 hat alle sechs Farben auf 18 und gewinnt sofort!"
    outcome = ENGINE.outcome(position(after))
    assert outcome.places == (1, 2) and outcome.leaderboard_points[0] == 180 + 50


# ---- leaderboard, timeouts, views ----------------------------------------------------------------------------
def test_leaderboard_points_ten_per_weakest_point_plus_the_place_bonus() -> None:
    assert [place_bonus(p, 2) for p in (1, 2)] == [50, 0]
    assert [place_bonus(p, 3) for p in (1, 2, 3)] == [50, 25, 0]
    assert [place_bonus(p, 4) for p in (1, 2, 3, 4)] == [50, 25, 10, 0]
    assert place_bonus(1, 1) == 0  # alone: no win bonus (eigene Festlegung)
    assert speednova_points((7, 7, 3), (1, 1, 3)) == (120, 120, 30)


def test_on_a_timeout_the_computer_places_and_declines_the_swap() -> None:
    for config, seats in (({}, 2), ({"teams": "mit"}, 4), ({"solo": "klassisch"}, 1)):
        game = play_random_game(ENGINE, config, seats, b"timeout", b"moves")
        for pos in game.positions[:-1:7]:
            for seat in ENGINE.must_act(pos):
                move = ENGINE.timeout_move(pos, seat)
                assert move in ENGINE.legal_moves(pos, seat)
                assert ("tauschen" in move) == (pos.state.phase == PHASE_SWAP)
                if "tauschen" in move:
                    assert move == {"tauschen": False}


def test_the_timeout_placement_lifts_the_weakest_colour_first() -> None:
    state = set_track(five_lines_state(), 0, (10, 0, 5, 5, 5, 5))
    move = ENGINE.timeout_move(position(state), 0)
    preview = ENGINE.preview(position(state), 0, move)
    assert preview["punkte"].get("nebel", 0) >= 1


def test_the_view_counts_free_cells_and_warns_once_about_the_last_round() -> None:
    state = started(new(2))
    pairs = [(cell(5, 0, 0), cell(5, 1, 0)), (cell(5, 0, 2), cell(5, 1, 2)), (cell(5, -3, 0), cell(5, -2, 0))]
    state = fill_all_but(state, {c for pair in pairs for c in pair})
    view = MODULE.view(state, 0)
    assert view["karte"]["freie_felder"] == 6 and view["karte"]["passen_noch"] == 3
    assert view["karte"]["endwarnung"] is False
    a, b = (COLOURS[c] for c in TILE_COLOURS[state.racks[0][0]])
    after, effects = apply(state, 0, place_move(a, b, pairs[0][0], 0))
    warning = next(e for e in effects if e["key"] == "speednova.endwarnung")
    assert warning["params"]["passen_noch"] == 2 and "letzte Gelegenheit" in warning["text"]
    assert MODULE.view(after, 1)["karte"]["endwarnung"] is True
    a, b = (COLOURS[c] for c in TILE_COLOURS[after.racks[1][0]])
    later, effects = apply(after, 1, place_move(a, b, pairs[1][0], 0))
    assert "speednova.endwarnung" not in keys(effects) and later.warned


def test_the_rack_shows_the_weakest_colour_and_each_tiles_best_placement() -> None:
    state = set_track(five_lines_state(), 0, (0, 3, 3, 3, 3, 3))
    state = set_rack(state, 0, [tile("komet", "nebel"), tile("pulsar", "quasar")])
    bank = MODULE.view(state, 0)["du"]["bank"]
    assert [entry["schwaechste"] for entry in bank] == [True, False]
    best = bank[0]["bester_platz"]
    assert best["punkte"] == 8
    assert ENGINE.preview(position(state), 0, best["zug"])["punkte"] == {"komet": 7, "nebel": 1}


def test_the_view_says_what_a_same_coloured_half_beside_a_star_would_score_along_its_line() -> None:
    state = five_lines_state()
    hints = MODULE.view(state, None)["karte"]["linienwerte"]
    centre = cell(5, 0, 0)
    at_centre = {(h["richtung"], h["farbe"]): h["punkte"] for h in hints if h["feld"] == centre}
    assert at_centre == {(0, "komet"): 2, (1, "komet"): 1, (2, "komet"): 3, (3, "nebel"): 1, (4, "komet"): 1}
    star = next(h for h in hints if h["feld"] == centre and h["richtung"] == 2)["stern"]
    assert star == cell(5, 0, -1)


def test_the_module_refuses_what_the_rules_refuse_with_german_reasons() -> None:
    state = five_lines_state()
    pos = position(state)
    cases = [
        (place_move("komet", "nebel", cell(5, 1, 0), 0), "occupied"),
        (place_move("komet", "nebel", cell(5, 5, -2), 0), "off_board"),
        (place_move("riese", "riese", cell(5, 0, 0), 5), "not_in_rack"),
        (place_move("lila", "nebel", cell(5, 0, 0), 5), "unknown_tile"),
        (place_move("komet", "nebel", 91, 0), "unknown_cell"),
        (place_move("komet", "nebel", cell(5, 0, 0), 6), "unknown_direction"),
        ({"tauschen": True}, "no_swap"),
        ({"signal": "viel", "farbe": "komet"}, "no_teams"),
    ]
    for move, code in cases:
        with pytest.raises(Exception) as refused:
            ENGINE.apply(pos, 0, move)
        assert getattr(refused.value, "code", None) == code, (move, refused.value)
    with pytest.raises(Exception) as refused:
        ENGINE.apply(pos, 1, place_move("komet", "nebel", cell(5, 0, 0), 5))
    assert getattr(refused.value, "code", None) == "not_your_turn"


def test_random_games_in_every_setting_finish_and_never_take_a_tile_back() -> None:
    for config, seats in (({}, 2), ({}, 3), ({}, 4), ({"teams": "mit"}, 4)):
        game = play_random_game(ENGINE, config, seats, b"ganz", b"zuege")
        assert ENGINE.spec.undo_steps == 0
        for before, after in zip(game.states, game.states[1:], strict=False):
            assert all(old == FREE or new == old for old, new in zip(before.cells, after.cells, strict=True))
        final = game.final_position.state
        assert final.end_reason == "sofort" or greedy_pairs(final.cells, board(final.radius).neighbours) == 0
        assert sum(1 for value in final.cells if value != FREE) == 6 + 2 * len(final.placed)
        assert Counter(final.racks[0] + final.bag + sum(final.racks[1:], ())
                       + tuple(t for s, a, b, x, y in final.placed for t in [min(x, y) * 6 + max(x, y)])) \
            == Counter(ALL_TILES)
