"""What Speedspore's clients show (issue 12, point 8): „Was geht?“, reasons, trade plans, the Ertragstafel,
phase/gullys/pieces/offer lines, turn summaries, victory points per viewer, the end table, previews."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from libs.rules.evolve import evolve
from libs.rules.protocol import IllegalMove
from libs.rules.rng import SeededRng
from libs.rules.speedspore import dice, points, previews, rules, screens, status, summaries, whatgoes, yields
from libs.rules.speedspore.board import CORNER_EDGES, CORNER_NEIGHBOURS, FIELD_CORNERS, edge_between
from libs.rules.speedspore.building import rates, spots
from libs.rules.speedspore.material import FUNDE, HUMUS, MOOS, REGENWASSER, TOTHOLZ, WOLKE
from libs.rules.speedspore.module import MODULE
from libs.rules.speedspore.state import ENDE, WURF, Answer, Offer, SporeState
from tests.rules import speedspore_builders as builders

CONFIG = {"siegpunkte": 10, "wuerfel": "zufall", "insel": "einsteiger"}
NOTHING = (0, 0, 0, 0, 0)


def board(seats: int = 3, buildings: dict[int, tuple[int, int]] | None = None,
          threads: dict[int, int] | None = None, **changes: Any) -> SporeState:
    """A main-phase state on the Einsteiger island: ``buildings`` corner → (seat, level), ``threads`` edge → seat."""
    hands = changes.pop("hands", (NOTHING,) * seats)
    cards = changes.pop("cards", None)  # mutation codes as given, the deck left whole
    state = builders.board(seats, buildings=buildings, threads=threads, config=CONFIG, seed=b"screens",
                           hands=dict(enumerate(hands)), **changes)
    return state if cards is None else evolve(state, cards=cards)


def hand(*counts: int) -> tuple[int, ...]:
    return tuple(counts)


def entry(state: SporeState, seat: int, build: str) -> dict[str, Any]:
    found = whatgoes.what_goes(state, seat)
    assert found is not None
    return next(item for item in found if item["bau"] == build)


# ---------------------------------------------------------------------------------------------------------
# 1. „Was geht?“, reasons and trade plans


def _net() -> dict[str, Any]:
    """Seat 0: a Fruchtkörper on inland corner 24 (no gully) and two threads leading to a corner where a
    Fruchtkörper fits."""
    first = CORNER_NEIGHBOURS[24][0]
    second = next(c for c in CORNER_NEIGHBOURS[first] if c != 24)
    return {"buildings": {24: (0, 1)}, "threads": {edge_between(24, first): 0, edge_between(first, second): 0}}


def test_what_goes_buildable_with_trade_and_not_with_reasons() -> None:
    state = board(**_net(), hands=(hand(1, 6, 0, 0, 0), NOTHING, NOTHING))
    thread = entry(state, 0, "faden")
    assert thread["status"] == "baubar" and thread["plaetze"] == len(spots(state, 0, "faden")) > 0
    assert thread["text"]["text"].startswith("Myzelfaden: baubar (")
    fk = entry(state, 0, "fruchtkoerper")
    # 1 Totholz, 6 Humus: 1 Humus is spent on the build, 4 of the other 5 buy Moos, none left for Regenwasser
    assert fk["status"] == "geht_nicht"
    assert fk["grund"]["text"] == "Es fehlen 1 Moos und 1 Regenwasser – auch mit Tausch nicht genug."
    richer = evolve(state, hands=(hand(1, 9, 0, 0, 0), NOTHING, NOTHING))
    assert entry(richer, 0, "fruchtkoerper")["status"] == "mit_tausch"
    assert entry(richer, 0, "fruchtkoerper")["plaetze"] == 1
    assert screens.missing_reason(richer, 0, "fruchtkoerper") == (
        "Es fehlen 1 Moos und 1 Regenwasser – Tausch möglich: 4 Humus gegen Moos (4:1), "
        "4 Humus gegen Regenwasser (4:1).")
    plan = screens.trade_plan(richer, 0, "fruchtkoerper")
    assert plan == [{"gib": "humus", "nimm": "moos"}, {"gib": "humus", "nimm": "regenwasser"}]
    tower = entry(state, 0, "turm")
    assert tower["status"] == "geht_nicht" and tower["grund"]["key"] == "speedspore.geht.fehlt"
    mutation = entry(state, 0, "mutation")
    assert mutation["status"] == "geht_nicht" and mutation["plaetze"] is None


def test_reason_in_the_rule_books_words_with_trade() -> None:
    state = board(**_net(), hands=(hand(1, 5, 0, 0, 4), NOTHING, NOTHING))
    # Humus 5 - 1 = 4 spare: 4 Humus gegen Moos; Mineralien 4 spare: 4 Mineralien gegen Regenwasser
    assert screens.missing_reason(state, 0, "fruchtkoerper") == (
        "Es fehlen 1 Moos und 1 Regenwasser – Tausch möglich: 4 Humus gegen Moos (4:1), "
        "4 Mineralien gegen Regenwasser (4:1).")
    item = entry(state, 0, "fruchtkoerper")
    assert item["status"] == "mit_tausch"
    assert item["tausch"] == [{"gib": "humus", "nimm": "moos"}, {"gib": "mineralien", "nimm": "regenwasser"}]
    assert item["gibt"] == 8
    assert item["text"]["text"].startswith("Fruchtkörper: mit Tausch (")


def test_build_with_the_listed_trade_plan_is_legal_and_applies_it() -> None:
    state = board(**_net(), hands=(hand(1, 5, 0, 0, 4), NOTHING, NOTHING))
    plan = screens.trade_plan(state, 0, "fruchtkoerper")
    listed = [move for move in rules.legal_moves(state, 0) if "fruchtkoerper" in move]
    assert listed and all(move["tausch"] == plan for move in listed)
    after, _ = rules.apply(state, 0, listed[0])
    assert after.hands[0] == NOTHING and after.pieces[0][1] == 2
    with pytest.raises(IllegalMove) as refused:
        rules.apply(state, 0, {"fruchtkoerper": listed[0]["fruchtkoerper"]})
    assert refused.value.reason == screens.missing_reason(state, 0, "fruchtkoerper")


def test_trade_plan_uses_own_gully_rates_and_is_cheapest() -> None:
    # corner 42 touches the Moos 2:1 gully of the Einsteiger island, corner 0 a 3:1 gully
    state = board(buildings={42: (0, 1), 0: (0, 1)}, hands=(hand(0, 0, 5, 0, 4), NOTHING, NOTHING))
    assert rates(state, 0) == (3, 3, 2, 3, 3)
    plan = whatgoes.trade_plan(state, 0, "faden")
    assert plan == ((MOOS, TOTHOLZ), (MOOS, HUMUS))
    assert "4 Moos gegen Totholz (2:1)" not in whatgoes.trade_words(plan, rates(state, 0))
    assert whatgoes.trade_words(plan, rates(state, 0)) == "2 Moos gegen Totholz (2:1), 2 Moos gegen Humus (2:1)"


def test_trade_plan_keeps_what_other_builds_need() -> None:
    # Myzelfaden lacks Humus; 4 Regenwasser or 4 Mineralien could pay. Giving Mineralien keeps the
    # Regenwasser a Mutation needs (Moos + Regenwasser + Mineralien: 1 Mineralien is left), so it is chosen
    # when both leave the same number of other builds payable; here giving Regenwasser would leave the
    # Mutation unpayable, giving Mineralien keeps it payable.
    plan = whatgoes.plan_for(hand(1, 0, 1, 4, 5), "faden", (4, 4, 4, 4, 4), (19,) * 5)
    assert plan == ((4, HUMUS),)
    plan = whatgoes.plan_for(hand(1, 0, 1, 5, 4), "faden", (4, 4, 4, 4, 4), (19,) * 5)
    assert plan == ((REGENWASSER, HUMUS),)
    # equal on every count: the earlier kind gives
    plan = whatgoes.plan_for(hand(0, 1, 4, 0, 4), "faden", (4, 4, 4, 4, 4), (19,) * 5)
    assert plan is not None and len(plan) == 1 and plan[0][1] == TOTHOLZ


def test_trade_plan_respects_the_supply() -> None:
    supply = (19, 19, 0, 19, 19)
    assert whatgoes.plan_for(hand(1, 9, 0, 1, 0), "fruchtkoerper", (4,) * 5, supply) is None
    state = board(**_net(), supply=supply,
                  hands=(hand(1, 9, 0, 1, 0), NOTHING, NOTHING))
    assert screens.missing_reason(state, 0, "fruchtkoerper") == \
        "Es fehlt 1 Moos – Moos gibt es im Vorrat nicht mehr genug."


def test_wrong_phase_no_pieces_no_place_empty_deck() -> None:
    state = board(phase=WURF, rolled=False, hands=(hand(5, 5, 5, 5, 5), NOTHING, NOTHING))
    for item in whatgoes.what_goes(state, 0) or []:
        assert item["status"] == "geht_nicht" and item["grund"]["text"] == "Erst würfeln."
    assert screens.missing_reason(state, 0, "faden") == "Erst würfeln."
    assert whatgoes.what_goes(state, 1) is None
    assert screens.missing_reason(state, 1, "faden") == "Du bist nicht am Zug."
    full = board(buildings={20: (0, 1)}, hands=(hand(5, 5, 5, 5, 5), NOTHING, NOTHING),
                 pieces=((15, 1, 0), (0, 0, 0), (0, 0, 0)), deck=())
    assert entry(full, 0, "faden")["grund"]["text"] == "Alle 15 Myzelfäden sind verbaut."
    assert entry(full, 0, "fruchtkoerper")["grund"]["key"] == "speedspore.geht.kein_platz"
    assert entry(full, 0, "mutation")["grund"]["text"] == "Der Mutationsstapel ist leer."
    assert entry(full, 0, "turm")["status"] == "baubar" and entry(full, 0, "turm")["plaetze"] == 1
    no_tower = board(hands=(hand(0, 0, 0, 2, 3), NOTHING, NOTHING))
    assert entry(no_tower, 0, "turm")["grund"]["text"] == "Kein eigener Fruchtkörper, den ein Sporenturm ersetzen kann."


# ---------------------------------------------------------------------------------------------------------
# 2. The Ertragstafel


def _rolled(state: SporeState, number: int, pair: tuple[int, int]) -> SporeState:
    hands, supply, record = dice.harvest(state, number, pair)
    return evolve(state, hands=hands, supply=supply, last_yield=record, dice=pair, rolls=state.rolls + 1)


def test_yield_table_lines_tower_mold_shortage_and_dice() -> None:
    state = board()
    number_fields = [field for field, number in enumerate(state.numbers) if number == 6]
    field = number_fields[0]
    corner, other = FIELD_CORNERS[field][0], FIELD_CORNERS[field][3]  # opposite corners of the field
    state = board(buildings={corner: (0, 2), other: (1, 1)})
    table = yields.yield_table(_rolled(state, 6, (2, 4)))
    assert table is not None
    assert table["wuerfel"] == [2, 4] and table["summe"] == 6
    mine = table["spieler"][0]["zeilen"]
    assert any(line["turm"] and line["anzahl"] == 2 and "(Turm ×2)" in line["text"]["text"] for line in mine)
    assert table["spieler"][1]["summe"] >= 1
    # the mold on that field eats it: who would have got what
    moldy = yields.yield_table(_rolled(evolve(state, mold=field), 6, (3, 3)))
    assert moldy is not None and moldy["schimmel"] is not None
    assert moldy["schimmel"]["feld"] == field and {e["platz"] for e in moldy["schimmel"]["entgangen"]} >= {0, 1}
    assert "Der Schimmel frisst" in moldy["schimmel"]["text"]["text"]
    # a short kind: several owed, nobody gets it; one seat owed: it gets what is left
    kind = state.fields[field]
    low = tuple(1 if k == kind else 19 for k in range(5))
    short = yields.yield_table(_rolled(evolve(state, supply=low), 6, (1, 5)))
    assert short is not None and [item["rohstoff"] for item in short["knapp"]]
    alone = board(buildings={corner: (0, 2)}, supply=low)
    partial = yields.yield_table(_rolled(alone, 6, (1, 5)))
    assert partial is not None and partial["teilweise"][0]["erhalten"] == 1 and partial["knapp"] == []


def test_yield_table_after_a_seven() -> None:
    table = yields.yield_table(board(dice=(3, 4), rolls=5, last_yield=None))
    assert table is not None and table["sieben"] and table["text"]["text"] == "Gewürfelt: 3 + 4 = 7 – kein Ertrag."
    assert yields.yield_table(board(dice=())) is None


# ---------------------------------------------------------------------------------------------------------
# 3. Phase, gullys, pieces, deck, offer


def test_phase_gullys_pieces_deck_and_offer() -> None:
    state = board(buildings={10: (1, 1)}, threads={CORNER_EDGES[10][0]: 1})
    assert status.phase_json(state)["text"]["text"] == "Zug 1: Platz 1 handelt und baut."
    assert status.phase_json(evolve(state, phase=WURF))["text"]["text"] == "Zug 1: Platz 1 würfelt."
    gully = status.gullys_json(state)[1]  # Einsteiger, speedspore@2: corners 10 and 15
    assert gully["kurs"] == "2:1" and gully["rohstoff"] == "mineralien" and gully["angeschlossen"] == [1]
    assert gully["text"]["text"] == "Gully: Mineralien 2:1 – angeschlossen: Platz 2"
    rest = status.pieces_json(state)[1]
    assert (rest["faeden"], rest["fruchtkoerper"], rest["tuerme"]) == (14, 4, 4)
    assert status.deck_json(state)["anzahl"] == 25
    offer = Offer(2, hand(0, 2, 0, 0, 0), hand(0, 0, 1, 0, 0),
                  (Answer("-"), Answer("ja"), Answer("gegen", hand(0, 0, 1, 0, 0), hand(0, 3, 0, 0, 0))))
    answers = status.offer_json(evolve(state, offer=offer))
    assert answers is not None
    assert [a["text"]["text"] for a in answers["antworten"]] == [
        "Platz 2: ja", "Platz 3: Gegenangebot: gibt 1 Moos für 3 Humus"]
    four = board(seats=4, offer=Offer(1, hand(1, 0, 0, 0, 0), hand(0, 1, 0, 0, 0),
                                      (Answer("-"), Answer("nein"), Answer(""), Answer("ja"))))
    words = [a["text"]["text"] for a in (status.offer_json(four) or {})["antworten"]]
    assert words == ["Platz 2: nein", "Platz 3: überlegt noch", "Platz 4: ja"]


# ---------------------------------------------------------------------------------------------------------
# 4. Turn summaries


def test_turn_summary_merges_and_hides() -> None:
    log = (("wurf", 8), ("faden", 3), ("faden", 4), ("fruchtkoerper", 12), ("vorrat", HUMUS, 4, MOOS),
           ("kauft",), ("spielt", FUNDE[0]), ("spielt", WOLKE), ("schimmel", 9, 2))
    state = board(turn_log=(log, (), ()))
    card = summaries.turn_summary(state, 0)
    assert card["text"]["text"] == ("Platz 1: würfelt 8, 2 Fäden, Fruchtkörper, tauscht 4 Humus gegen Moos, "
                                    "kauft Mutation, spielt Sporenwolke, Schimmel auf Autobahnkreuz (ohne Zahl), "
                                    "nimmt Platz 3 eine Karte")
    assert "Bibliothek" not in json.dumps(card, ensure_ascii=False)
    assert "kauft Mutation" in card["text"]["text"] and "2 Fäden, Fruchtkörper" in card["text"]["text"]
    two = board(turn_log=((("vorrat", HUMUS, 4, MOOS), ("vorrat", HUMUS, 4, MOOS), ("kauft",), ("kauft",)), (), ()))
    assert summaries.turn_summary(two, 0)["text"]["text"] == "Platz 1: tauscht 8 Humus gegen 2 Moos, kauft 2 Mutationen"
    assert summaries.turn_summary(two, 1)["text"]["text"] == "Platz 2: noch nichts"


# ---------------------------------------------------------------------------------------------------------
# 5. Victory points and the end table


def test_points_breakdown_hides_others_funde() -> None:
    state = board(buildings={20: (0, 2), 10: (0, 1)}, cards=((FUNDE[0], FUNDE[2], WOLKE), (), ()),
                  longest_holder=0, trail=(5, 0, 0))
    own = points.breakdown(state, 0, 0)
    assert own["punkte"] == 1 + 2 + 2 + 2 and not own["funde_verdeckt"]
    assert [line["art"] for line in own["zeilen"]] == ["fruchtkoerper", "tuerme", "geflecht", "wolke", "funde"]
    seen = points.breakdown(state, 0, 1)
    assert seen["punkte"] == 5 and seen["funde_verdeckt"]
    text = json.dumps(seen, ensure_ascii=False)
    assert "funde" not in [line["art"] for line in seen["zeilen"]] and "bibliothek" not in text
    assert points.breakdown(state, 0, None)["punkte"] == 5
    assert points.end_table(state) is None


def test_end_table_counts_up_and_ranks() -> None:
    state = board(buildings={20: (0, 2), 10: (0, 1), 40: (1, 1)}, cards=((FUNDE[0],), (FUNDE[1],), ()),
                  phase=ENDE, winner=0, harvest=(30, 20, 10), trades=(4, 2, 0),
                  hands=(NOTHING, hand(1, 0, 0, 0, 0), NOTHING))
    table = points.end_table(state)
    assert table is not None
    rows = table["zeilen"]
    assert [row["platz"] for row in rows] == [0, 1, 2] and [row["rang"] for row in rows] == [1, 2, 3]
    first = rows[0]
    assert first["punkte"] == 4 and first["hochzaehlen"][-1]["stand"] == 4
    assert [step["stand"] for step in first["hochzaehlen"]] == [1, 3, 3, 3, 4]
    assert (first["geerntet"], first["getauscht"], first["bauten"]["tuerme"]) == (30, 4, 1)
    assert points.breakdown(state, 1, 0)["funde_verdeckt"] is False  # the end reveals Funde


# ---------------------------------------------------------------------------------------------------------
# 6. Previews


def test_preview_of_a_build_with_trades_and_of_a_mutation_draw() -> None:
    state = board(**_net(), hands=(hand(1, 5, 0, 0, 4), NOTHING, NOTHING))
    move = next(m for m in rules.legal_moves(state, 0) if "fruchtkoerper" in m)
    after, _ = rules.apply(state, 0, move)
    body = previews.describe(state, after, 0, move)
    assert body["punkte_nachher"] == body["punkte_vorher"] + 1 and len(body["tausch"]) == 2
    assert "4 Humus gegen Moos (4:1)" in body["text"]["text"]
    buyer = evolve(state, hands=(hand(0, 0, 1, 1, 1), NOTHING, NOTHING))
    bodies = []
    for top in (FUNDE[0], WOLKE):
        drawn = evolve(buyer, deck=(*buyer.deck[:-1], top))
        new, _ = rules.apply(drawn, 0, {"mutation": True})
        bodies.append(previews.describe(drawn, new, 0, {"mutation": True}))
    assert bodies[0] == bodies[1] and bodies[0]["zufall"]


# ---------------------------------------------------------------------------------------------------------
# Seeded games: nothing hidden shows through, and it is fast


def _play(seed: bytes, seats: int, limit: int = 400) -> list[SporeState]:
    rng = SeededRng(seed, "test/screens")
    state = MODULE.setup({"insel": "zufall"}, seats, seed)
    states = [state]
    while not MODULE.is_over(state) and len(states) < limit:
        pending = [p.seat for p in MODULE.pending(state) if p.must] or [p.seat for p in MODULE.pending(state)]
        seat = rng.choice(pending)
        state, _ = MODULE.apply(state, seat, rng.choice(MODULE.legal_moves(state, seat)))
        states.append(state)
    return states


@pytest.mark.parametrize(("seed", "seats"), [(b"a", 4), (b"b", 3)])
def test_extras_equal_in_every_determinized_world(seed: bytes, seats: int) -> None:
    """What a seat's screens show depends only on what it may see: equal in any state its view allows."""
    rng = SeededRng(seed, "test/screens/worlds")
    for state in _play(seed, seats)[::7]:
        for seat in range(seats):
            world = MODULE.determinize(MODULE.view(state, seat), seat, rng)
            assert screens.extras(world, seat) == screens.extras(state, seat)
        json.dumps(screens.extras(state, None))


def test_others_never_read_hidden_kinds_or_funde() -> None:
    for state in _play(b"c", 4, 1200)[::5]:
        for seat in range(4):
            for viewer in (None, *(v for v in range(4) if v != seat)):
                seen = points.breakdown(state, seat, viewer)
                if state.phase != ENDE:
                    assert seen["punkte"] == sum(state.pieces[seat][1:2]) + 2 * state.pieces[seat][2] \
                        + 2 * (state.longest_holder == seat) + 2 * (state.largest_holder == seat)


def test_place_counts_match_the_rules_and_extras_are_fast() -> None:
    states = _play(b"d", 4, 1500)
    for state in states:
        for seat in range(4):
            for build in ("faden", "fruchtkoerper", "turm"):
                assert whatgoes.place_count(state, seat, build) == len(spots(state, seat, build))
    started = time.perf_counter()
    for state in states:
        screens.extras(state, state.current)
    assert (time.perf_counter() - started) / len(states) < 0.003  # ~0.4 ms on an idle machine
