"""Speedkoi's promise 5 (issue 11): what clients need, from the seat's own knowledge only; determinize."""

from __future__ import annotations

import json

from libs.rules.rng import SeededRng
from libs.rules.speedkoi.state import KoiState
from libs.rules.speedkoi.view import unseen_counts
from tests.rules.speedkoi_builders import ENGINE, board, code, play, position

HAND = ["gold 5", "gold 5", "indigo 2", "jade 10", "karmin 0", "silber 3", "silber 9", "jade 1"]


def _state() -> KoiState:
    return board(hands={0: HAND, 1: ["indigo 4", "indigo 7", "gold 1", "gold 2", "gold 3", "jade 2", "jade 3",
                                     "jade 4"]},
                 rows={0: {"gold": [2, 4], "jade": [9, 9], "silber": [6, 5]}, 1: {"indigo": [8, 7], "silber": [1]}},
                 stones={0: {"gold": 4, "jade": 2, "silber": 9}, 1: {"indigo": 6, "silber": 1}},
                 masters={0: "gold"}, clear_tiles=True, tiles={("gold", 5): "perle", ("indigo", 7): None},
                 piles={"karmin": [7, 3], "indigo": [9]}, known=((), (code("indigo 4"),)))


def test_a_hand_lantern_says_whether_it_fits_what_it_brings_and_whether_it_asks_first() -> None:
    view = ENGINE.view(position(_state()), 0)["du"]
    by_name = {(item["farbe"], item["wert"]): item for item in view["hand"]}
    gold = by_name[("gold", 5)]
    assert gold["passt"] and not gold["fragt"]
    assert gold["bringt"] == {"art": "schritt", "fragt": False, "pfad": "gold", "figur": "meister", "von": 4, "nach": 5,
                              "punkte": 2, "plaettchen": "perle", "teehaus": 0, "ins_ziel": False}
    # The master walks Gold already: a new path gets a pilgrim without asking.
    assert not by_name[("indigo", 2)]["fragt"] and by_name[("indigo", 2)]["bringt"]["figur"] == "pilger"
    assert by_name[("indigo", 2)]["bringt"]["art"] == "neuer_pfad" and by_name[("indigo", 2)]["bringt"]["punkte"] == -4
    assert by_name[("jade", 10)]["passt"] and by_name[("jade", 1)]["passt"]  # 9, 9 is still open both ways
    assert by_name[("silber", 3)]["bringt"]["art"] == "endstein"
    assert [step["pfad"] for step in by_name[("silber", 3)]["bringt"]["weiter"]] == ["gold", "jade"]
    assert not by_name[("silber", 9)]["passt"]
    assert view["passt_nicht"] == [{"farbe": "silber", "wert": 9}]
    free = board(hands={0: HAND})
    asked = {(item["farbe"], item["wert"]): item for item in ENGINE.view(position(free), 0)["du"]["hand"]}
    assert asked[("karmin", 0)]["fragt"] and asked[("karmin", 0)]["bringt"]["punkte_meister"] == -8


def test_whether_an_opponent_could_use_a_lantern_in_hand_or_on_a_pile() -> None:
    view = ENGINE.view(position(_state()), 0)["du"]
    by_name = {(item["farbe"], item["wert"]): item for item in view["hand"]}
    assert by_name[("indigo", 2)]["gegner"] == [1]  # Platz 2's Indigo row runs down from 8, 7
    assert by_name[("silber", 3)]["gegner"] == [1] and by_name[("gold", 5)]["gegner"] == []  # no row: says nothing
    tops = {(top["farbe"], top["wert"]): top for top in view["ablagen_oben"]}
    assert set(tops) == {("indigo", 9), ("karmin", 3)} and tops[("indigo", 9)]["gegner"] == []


def test_the_overview_counts_the_unseen_copies_of_all_55_kinds() -> None:
    state = _state()
    overview = ENGINE.view(position(state), 0)["du"]["uebersicht"]
    assert sum(len(values) for values in overview.values()) == 55
    gold5 = overview["gold"][5]
    assert gold5 == {"wert": 5, "ungesehen": 0, "in_hand": 2, "passt": True, "bekannt_bei": []}
    assert overview["jade"][9]["ungesehen"] == 0  # both in a row
    assert overview["karmin"][7]["ungesehen"] == 1  # one on a pile
    # Platz 2 was seen taking an Indigo 4: that copy is known, the other is unseen (an empty row takes it).
    assert overview["indigo"][4] == {"wert": 4, "ungesehen": 1, "in_hand": 0, "passt": True, "bekannt_bei": [1]}
    # Indigo 7: one in Platz 2's row, the other in Platz 2's hand, unseen by Platz 1.
    counts = unseen_counts(state, 0)
    assert counts[code("indigo 7")] == 1 and overview["indigo"][7]["ungesehen"] == 1


def test_the_last_move_teehaus_goal_count_and_a_spectator_sees_no_hand() -> None:
    state = _state()
    after, _ = play(state, 0, {"aktion": "anlegen", "farbe": "gold", "wert": 5})
    after, _ = play(after, 0, {"aktion": "ziehen", "von": "karmin"})
    view = ENGINE.view(position(after), 1)
    assert view["spieler"][0]["zuletzt"]["text"] == "legte Gold 5 · Meister Gold → Stein 5 · Perle · nahm Karmin 3"
    assert view["im_ziel"] == {"anzahl": 1, "ende_bei": 5}
    assert view["pfade"][0]["endstein"]["teehaus_bonus"] is None  # classic: no Teehaus bonus
    spectator = ENGINE.view(position(after), None)
    assert spectator["du"] is None
    assert spectator["spieler"][0]["hand_bekannt"] == [{"farbe": "karmin", "wert": 3}]
    text = json.dumps(spectator)
    assert '"hand": [' not in text


def test_determinize_keeps_what_was_seen_and_deals_the_rest_anew() -> None:
    state = _state()
    view = ENGINE.view(position(state), 0)
    sampled = ENGINE.determinize(json.loads(json.dumps(view)), 0, SeededRng(b"x", "d"))
    assert sampled.hands[0] == state.hands[0] and code("indigo 4") in sampled.hands[1]
    assert len(sampled.hands[1]) == 8 and len(sampled.deck) == len(state.deck) and len(sampled.aside) == 30
    assert ENGINE.view(position(sampled), 0) == view
    assert sampled.deck != state.deck
