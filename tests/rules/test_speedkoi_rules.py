"""Speedkoi's promises 1–3 (issue 11): material and setup, a turn, the tiles (classic and Laternenfest)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from libs.rules.protocol import IllegalMove
from libs.rules.speedkoi.material import (
    ALL_LANTERNS,
    CLASSIC_TILES,
    FESTIVAL_TILES,
    STONE_VALUES,
    TILE_STONES,
)
from libs.rules.speedkoi.setup import new_game
from libs.rules.speedkoi.state import KoiState
from tests.rules.helpers import assert_refused_without_change
from tests.rules.speedkoi_builders import ENGINE, board, code, play, position, texts

# ---- 1. material and setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "aside", "deck"), [(2, 30, 64), (3, 0, 86), (4, 0, 78)])
def test_110_lanterns_hands_of_eight_and_thirty_set_aside_with_two(seats: int, aside: int, deck: int) -> None:
    state = new_game("klassisch", seats, b"setup")
    assert len(ALL_LANTERNS) == 110 and Counter(ALL_LANTERNS) == {kind: 2 for kind in range(55)}
    assert all(len(hand) == 8 for hand in state.hands)
    assert (len(state.aside), len(state.deck)) == (aside, deck)
    assert Counter([c for hand in state.hands for c in hand] + list(state.deck) + list(state.aside)) == \
        Counter(ALL_LANTERNS)


def test_five_paths_of_nine_stones_with_the_decided_values() -> None:
    assert STONE_VALUES[1:] == (-4, -3, -2, 1, 2, 3, 6, 7, 10)
    view = ENGINE.view(ENGINE.start({}, 2, b"paths"), None)
    assert [path["farbe"] for path in view["pfade"]] == ["gold", "indigo", "jade", "karmin", "silber"]
    assert all([stone["wert"] for stone in path["steine"]] == [-4, -3, -2, 1, 2, 3, 6, 7, 10] for path in view["pfade"])


@pytest.mark.parametrize(("spielart", "tiles"), [("klassisch", CLASSIC_TILES), ("laternenfest", FESTIVAL_TILES)])
def test_25_tiles_lie_on_stones_2_4_6_8_9(spielart: str, tiles: tuple[str, ...]) -> None:
    state = new_game(spielart, 3, b"tiles")
    laid = [path[stone] for path in state.tiles for stone in range(10) if path[stone] is not None]
    assert Counter(laid) == Counter(tiles) and len(laid) == 25
    assert all(path[stone] is None for path in state.tiles for stone in range(10) if stone not in TILE_STONES)
    counts = Counter(tiles)
    if spielart == "klassisch":
        assert counts == {"perle": 9, "libelle": 9, "bluete1": 2, "bluete2": 3, "bluete3": 2}
    else:  # two pearls become Stege, two dragonflies become Koi
        assert counts == {"perle": 7, "steg": 2, "libelle": 7, "koi": 2, "bluete1": 2, "bluete2": 3, "bluete3": 2}


def test_four_pilgrims_and_a_master_per_player_and_the_same_seed_deals_alike() -> None:
    view = ENGINE.view(ENGINE.start({}, 3, b"daily"), 0)
    assert all(player["pilger_frei"] == 4 and player["meister_frei"] for player in view["spieler"])
    assert new_game("klassisch", 3, b"daily") == new_game("klassisch", 3, b"daily")
    assert new_game("klassisch", 3, b"daily") != new_game("klassisch", 3, b"other")


# ---- 2. a turn ---------------------------------------------------------------------------------------------


def test_a_row_runs_the_way_its_first_different_number_says_and_equal_numbers_always_fit() -> None:
    state = board(hands={0: ["gold 3", "gold 5", "gold 7", "gold 9", "jade 1", "jade 2", "jade 3", "jade 4"]},
                  rows={0: {"gold": [6, 6, 7]}}, stones={0: {"gold": 3}}, clear_tiles=True)
    refused = assert_refused_without_change(ENGINE, state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 3})
    assert refused.code == "does_not_fit" and "aufsteigend" in refused.reason
    refused = assert_refused_without_change(ENGINE, state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 5})
    assert refused.code == "does_not_fit"
    assert {"aktion": "anlegen", "farbe": "gold", "wert": 7} in ENGINE.legal_moves(position(state), 0)
    after, _ = play(state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 9})
    assert after.rows[0][0] == (6, 6, 7, 9) and after.stones[0][0] == 4
    equal = board(hands={0: ["gold 7", "gold 2", "silber 1", "jade 1", "jade 2", "jade 3", "jade 4", "jade 5"]},
                  rows={0: {"gold": [7]}}, stones={0: {"gold": 1}}, clear_tiles=True)
    after, _ = play(equal, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 7})
    after, _ = play(evolve_turn(after), 0, {"aktion": "anlegen", "farbe": "gold", "wert": 2})
    assert after.rows[0][0] == (7, 7, 2)  # equal numbers fixed no direction: the 2 makes it descending


def evolve_turn(state: KoiState) -> KoiState:
    """Give the same seat another lantern decision (tests play several lanterns in a row)."""
    from libs.rules.evolve import evolve

    return evolve(state, phase="legen", current=0, discarded=-1)


def test_discarding_puts_the_lantern_face_up_on_its_pile_and_moves_nothing() -> None:
    state = board(hands={0: ["karmin 4", "gold 1", "gold 2", "gold 3", "jade 1", "jade 2", "jade 3", "jade 4"]},
                  stones={0: {"karmin": 2}})
    after, effects = play(state, 0, {"aktion": "abwerfen", "farbe": "karmin", "wert": 4})
    assert after.piles[3] == (4,) and after.stones == state.stones and after.phase == "ziehen"
    assert texts(effects) == ["Platz 1 wirft Karmin 4 ab."]


def test_the_draw_takes_the_deck_or_a_piles_top_but_never_the_lantern_just_discarded() -> None:
    state = board(hands={0: ["karmin 4", "gold 1", "gold 2", "gold 3", "jade 1", "jade 2", "jade 3", "jade 4"]},
                  piles={"indigo": [2, 3]})
    after, _ = play(state, 0, {"aktion": "abwerfen", "farbe": "karmin", "wert": 4})
    moves = ENGINE.legal_moves(position(after), 0)
    assert moves == [{"aktion": "ziehen", "von": "stapel"}, {"aktion": "ziehen", "von": "indigo"}]
    refused = assert_refused_without_change(ENGINE, after, 0, {"aktion": "ziehen", "von": "karmin"})
    assert refused.code == "just_discarded"
    taken, effects = play(after, 0, {"aktion": "ziehen", "von": "indigo"})
    assert code("indigo 3") in taken.hands[0] and taken.piles[1] == (2,) and len(taken.hands[0]) == 8
    assert taken.known[0] == (code("indigo 3"),) and taken.current == 1 and taken.phase == "legen"
    assert "Platz 1 nimmt Indigo 3 von der Ablage." in texts(effects)
    drawn, effects = play(after, 0, {"aktion": "ziehen", "von": "stapel"})
    assert drawn.deck == after.deck[:-1] and after.deck[-1] in drawn.hands[0]
    public = [effect for effect in effects if "visible_to" not in effect]
    assert texts(public)[0] == "Platz 1 zieht eine verdeckte Laterne."
    assert [effect["visible_to"] for effect in effects if "visible_to" in effect] == [[0]]


def test_a_new_path_asks_pilgrim_or_master_while_both_are_free() -> None:
    state = board(hands={0: ["gold 3", "jade 1", "jade 2", "jade 3", "jade 4", "silber 1", "silber 2", "karmin 1"]})
    moves = ENGINE.legal_moves(position(state), 0)
    assert {"aktion": "anlegen", "farbe": "gold", "wert": 3, "figur": "pilger"} in moves
    assert {"aktion": "anlegen", "farbe": "gold", "wert": 3, "figur": "meister"} in moves
    refused = assert_refused_without_change(ENGINE, state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 3})
    assert refused.code == "choose_figure"
    after, effects = play(state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 3, "figur": "meister"})
    assert after.masters[0] == 0 and after.stones[0][0] == 1
    assert "Platz 1 stellt den Meister auf den Pfad Gold: Stein 1 (−4)." in texts(effects)
    # The master is out: the next new path sends a pilgrim without asking.
    again = evolve_turn(after)
    assert {"aktion": "anlegen", "farbe": "jade", "wert": 1} in ENGINE.legal_moves(position(again), 0)
    refused = assert_refused_without_change(
        ENGINE, again, 0, {"aktion": "anlegen", "farbe": "jade", "wert": 1, "figur": "pilger"})
    assert refused.code == "no_choice"


def test_with_four_pilgrims_out_the_fifth_path_gets_the_master_without_asking() -> None:
    state = board(hands={0: ["silber 3", "jade 1", "jade 2", "jade 3", "jade 4", "gold 1", "gold 2", "karmin 1"]},
                  stones={0: {"gold": 2, "indigo": 2, "jade": 2, "karmin": 2}})
    assert {"aktion": "anlegen", "farbe": "silber", "wert": 3} in ENGINE.legal_moves(position(state), 0)
    after, _ = play(state, 0, {"aktion": "anlegen", "farbe": "silber", "wert": 3})
    assert after.masters[0] == 4


def test_a_figure_on_the_end_stone_passes_the_step_to_a_chosen_figure_on_stones_1_to_8() -> None:
    state = board(hands={0: ["gold 9", "jade 1", "jade 2", "jade 3", "jade 4", "silber 1", "silber 2", "karmin 1"]},
                  rows={0: {"gold": [1, 2, 3, 4, 5, 6, 7, 8]}}, stones={0: {"gold": 9, "jade": 3, "silber": 9}},
                  clear_tiles=True)
    moves = [m for m in ENGINE.legal_moves(position(state), 0) if m["aktion"] == "anlegen" and m["farbe"] == "gold"]
    assert moves == [{"aktion": "anlegen", "farbe": "gold", "wert": 9, "weiter": "jade"}]
    refused = assert_refused_without_change(ENGINE, state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 9})
    assert refused.code == "choose_onward"
    refused = assert_refused_without_change(
        ENGINE, state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 9, "weiter": "silber"})
    assert refused.code == "no_figure"
    after, effects = play(state, 0, moves[0])
    assert after.stones[0] == (9, 0, 4, 0, 9)
    assert "Statt der Figur auf dem Endstein: Pilger Jade von Platz 1 → Stein 4 (+1)." in texts(effects)


def test_when_no_figure_can_move_the_lantern_only_extends_the_row_and_the_move_says_so() -> None:
    state = board(hands={0: ["gold 9", "jade 1", "jade 2", "jade 3", "jade 4", "silber 1", "silber 2", "karmin 1"]},
                  rows={0: {"gold": [8]}}, stones={0: {"gold": 9, "silber": 9}})
    assert {"aktion": "anlegen", "farbe": "gold", "wert": 9} in ENGINE.legal_moves(position(state), 0)
    after, effects = play(state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 9})
    assert after.stones == state.stones and after.rows[0][0] == (8, 9)
    assert "Keine Figur kann ziehen (nur Reihe)." in texts(effects)
    assert ENGINE.view(position(state), 0)["du"]["hand"][0]["bringt"]["nur_reihe"] is True


# ---- 3. tiles ----------------------------------------------------------------------------------------------


def _one_step(tile: str, *, spielart: str = "klassisch", stones: dict[int, dict[str, int]] | None = None,
              piles: dict[str, list[int]] | None = None) -> KoiState:
    """A state where seat 0 plays Gold 5 and its figure steps from stone 3 onto a ``tile`` on stone 4."""
    return board(spielart=spielart, hands={0: ["gold 5", "jade 1", "jade 2", "jade 3", "jade 4", "silber 1",
                                               "silber 2", "karmin 1"]},
                 rows={0: {"gold": [4]}}, stones=stones or {0: {"gold": 3}}, clear_tiles=True,
                 tiles={("gold", 4): tile, ("gold", 5): "libelle", ("jade", 3): "libelle"}, piles=piles)


def test_blossoms_and_pearls_are_taken_on_entering_the_stone() -> None:
    after, effects = play(_one_step("bluete3"), 0, {"aktion": "anlegen", "farbe": "gold", "wert": 5})
    assert after.blossoms[0] == 3 and after.tiles[0][4] is None and after.phase == "ziehen"
    assert "Platz 1 nimmt eine Kirschblüte: +3 Punkte." in texts(effects)
    after, effects = play(_one_step("perle"), 0, {"aktion": "anlegen", "farbe": "gold", "wert": 5})
    assert after.taken[0][0] == 1 and "Platz 1 nimmt eine Perle (jetzt 1)." in texts(effects)


def test_a_dragonfly_moves_one_own_figure_on_stones_1_to_8_chosen_and_chains_or_is_declined() -> None:
    state = _one_step("libelle", stones={0: {"gold": 3, "jade": 2, "silber": 9}, 1: {"karmin": 3}})
    after, effects = play(state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 5})
    assert after.phase == "libelle"
    # The figure that just landed may step again; the one on the end stone and the opponent's may not.
    assert ENGINE.legal_moves(position(after), 0) == [
        {"aktion": "schritt", "pfad": "gold"}, {"aktion": "schritt", "pfad": "jade"}, {"aktion": "verzichten"}]
    refused = assert_refused_without_change(ENGINE, after, 0, {"aktion": "schritt", "pfad": "silber"})
    assert refused.code == "no_figure"
    chained, effects = play(after, 0, {"aktion": "schritt", "pfad": "jade"})  # Jade 2 → 3: another dragonfly
    assert chained.stones[0][2] == 3 and chained.phase == "libelle"
    assert "Libelle: Pilger Jade von Platz 1 → Stein 3 (−2)." in texts(effects)
    declined, effects = play(chained, 0, {"aktion": "verzichten"})
    assert declined.phase == "ziehen" and texts(effects) == ["Platz 1 verzichtet auf die Libelle."]
    view = ENGINE.view(position(declined), 1)
    assert view["spieler"][0]["zuletzt"]["text"] == (
        "legte Gold 5 · Pilger Gold → Stein 4 · Libelle · Libelle: Pilger Jade → Stein 3 · Libelle · ohne Libelle")


def test_a_dragonfly_without_a_figure_on_stones_1_to_8_lapses() -> None:
    state = board(hands={0: ["gold 9", "jade 1", "jade 2", "jade 3", "jade 4", "silber 1", "silber 2", "karmin 1"]},
                  rows={0: {"gold": [8]}}, stones={0: {"gold": 8}}, clear_tiles=True, tiles={("gold", 9): "libelle"})
    after, effects = play(state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 9})
    assert after.phase == "ziehen" and "Libelle: Keine eigene Figur steht auf Stein 1 bis 8." in texts(effects)


def test_laternenfest_teehaus_bonus_three_for_the_first_one_for_the_second_none_after() -> None:
    def reach(arrivals: tuple[tuple[int, ...], ...], seats: int = 3) -> tuple[tuple[KoiState, list[Any]], Any]:
        state = board(seats=seats, spielart="laternenfest",
                      hands={0: ["gold 9", "jade 1", "jade 2", "jade 3", "jade 4", "silber 1", "silber 2", "karmin 1"]},
                      rows={0: {"gold": [8]}}, stones={0: {"gold": 8}}, clear_tiles=True,
                      arrivals=arrivals)
        view = ENGINE.view(position(state), 0)
        return play(state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 9}), view

    (first, effects), view = reach(((), (), (), (), ()))
    assert view["pfade"][0]["endstein"] == {"erreicht": [], "teehaus_bonus": 3, "bonus_zu_haben": True}
    assert first.teahouse[0] == 3 and first.arrivals[0] == (0,)
    assert "Platz 1 erreicht als Erster den Endstein des Pfads Gold: Teehaus-Bonus +3." in texts(effects)
    (second, _), view = reach(((1,), (), (), (), ()))
    assert second.teahouse[0] == 1 and view["pfade"][0]["endstein"]["teehaus_bonus"] == 1
    (third, _), view = reach(((1, 2), (), (), (), ()))
    assert third.teahouse[0] == 0 and view["pfade"][0]["endstein"]["bonus_zu_haben"] is False
    classic = board(hands={0: ["gold 9", "jade 1", "jade 2", "jade 3", "jade 4", "silber 1", "silber 2", "karmin 1"]},
                    rows={0: {"gold": [8]}}, stones={0: {"gold": 8}}, clear_tiles=True)
    after, _ = play(classic, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 9})
    assert after.teahouse[0] == 0 and ENGINE.view(position(classic), 0)["pfade"][0]["endstein"]["teehaus_bonus"] is None


def test_laternenfest_steg_moves_an_own_figure_on_another_path_chosen_or_declined() -> None:
    state = _one_step("steg", spielart="laternenfest", stones={0: {"gold": 3, "jade": 2, "silber": 9}})
    after, effects = play(state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 5})
    assert after.phase == "steg" and after.jetty_path == 0
    assert ENGINE.legal_moves(position(after), 0) == [{"aktion": "schritt", "pfad": "jade"}, {"aktion": "verzichten"}]
    refused = assert_refused_without_change(ENGINE, after, 0, {"aktion": "schritt", "pfad": "gold"})
    assert refused.code == "no_figure"
    stepped, effects = play(after, 0, {"aktion": "schritt", "pfad": "jade"})
    assert stepped.stones[0][2] == 3 and "Steg: Pilger Jade von Platz 1 → Stein 3 (−2)." in texts(effects)
    assert stepped.phase == "libelle"  # the Steg's step landed on a dragonfly: it chains on


def test_laternenfest_koi_takes_a_piles_top_into_the_hand_and_the_draw_still_follows() -> None:
    state = _one_step("koi", spielart="laternenfest", piles={"indigo": [2, 6], "karmin": [1]})
    after, effects = play(state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 5})
    assert after.phase == "koi"
    assert ENGINE.legal_moves(position(after), 0) == [{"aktion": "koi", "farbe": "indigo"},
                                                      {"aktion": "koi", "farbe": "karmin"}]
    took, effects = play(after, 0, {"aktion": "koi", "farbe": "indigo"})
    assert code("indigo 6") in took.hands[0] and took.piles[1] == (2,) and took.phase == "ziehen"
    assert texts(effects) == ["Koi: Platz 1 nimmt Indigo 6 von der Ablage auf die Hand."]
    drawn, _ = play(took, 0, {"aktion": "ziehen", "von": "indigo"})  # the Koi is no discard: Indigo may be drawn
    assert len(drawn.hands[0]) == 9  # one more than before, for good


def test_a_move_of_the_wrong_kind_for_the_phase_is_refused() -> None:
    state = _one_step("libelle", stones={0: {"gold": 3, "jade": 2}})
    after, _ = play(state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 5})
    for move in ({"aktion": "ziehen", "von": "stapel"}, {"aktion": "anlegen", "farbe": "jade", "wert": 1}):
        assert assert_refused_without_change(ENGINE, after, 0, move).code == "wrong_phase"
    with pytest.raises(IllegalMove):
        ENGINE.apply(position(after), 0, {"aktion": "koi", "farbe": "gold"})
