"""Speedspore: one rule test per numbered promise of issue 12 (points 1–7, 9, 10; point 8 is
test_speedspore_screens.py), asserting what a player would notice, through the Engine where a refusal,
a pending decision or a timeout matters."""

from __future__ import annotations

from collections import Counter
from typing import Any

from libs.rules.engine import UNDO_MOVE, visible_effects
from libs.rules.evolve import evolve
from libs.rules.rng import SeededRng
from libs.rules.speedspore import building, rules, scoring
from libs.rules.speedspore.board import CORNER_FIELDS, EDGE_CORNERS, FIELD_CORNERS, edge_between, gully_frame
from libs.rules.speedspore.material import (
    ANY,
    DESERT,
    FIELD_STOCK,
    FUNDE,
    KIND_COUNT,
    MUTATION_DECK,
    NAEHRQUELLE,
    NETZSOG,
    NUMBER_TOKENS,
    WOLKE,
    WUCHSSCHUB,
)
from libs.rules.speedspore.module import MODULE
from libs.rules.speedspore.state import ABWERFEN, ENDE, GRUENDUNG, HAUPT, SCHIMMEL, WURF
from libs.rules.speedspore.state import WUCHSSCHUB as WUCHS_PHASE
from tests.rules.helpers import assert_refused_without_change
from tests.rules.speedspore_builders import (
    ENGINE,
    board,
    dice_deck,
    hand,
    path_edges,
    play,
    position,
)

FK = hand(1, 1, 1, 1, 0)
"""What a Fruchtkörper costs."""


def _roll_ready(**changes: Any) -> Any:
    """Return a state before seat 0's roll ("ausgeglichen" so a test picks the roll)."""
    base: dict[str, Any] = {"phase": WURF, "rolled": False, "config": {"wuerfel": "ausgeglichen"}}
    base.update(changes)
    return board(**base)


# ---------------------------------------------------------------------------------------------------------
# 1. Island


def test_1_island_stock_tokens_gullys_mold_and_zufall_per_seed() -> None:
    layouts = set()
    for island in ("einsteiger", "zufall"):
        for seed in (b"a", b"b", b"c"):
            state = MODULE.setup({"insel": island}, 3, seed)
            assert len(state.fields) == 19
            assert tuple(state.fields.count(kind) for kind in range(6)) == FIELD_STOCK
            desert = state.fields.index(DESERT)
            assert state.numbers[desert] == 0 and state.mold == desert  # the mold starts on the Autobahnkreuz
            assert sorted(n for n in state.numbers if n) == sorted(NUMBER_TOKENS) and len(NUMBER_TOKENS) == 18
            assert state.supply == (19,) * 5
            assert state.gullys.count(ANY) == 4 and sorted(g for g in state.gullys if g != ANY) == list(range(5))
            view = MODULE.view(state, 0)
            assert [g["art"] for g in view["gullys"]].count("3:1") == 4
            if island == "zufall":
                layouts.add((state.fields, state.numbers, state.gullys))
    assert len(layouts) == 3  # a new island each game
    # the Autobahnkreuz yields nothing: a second Fruchtkörper beside it gets only the other two fields
    state = MODULE.setup({"insel": "einsteiger"}, 2, b"x")
    for corner, edge_to in ((0, 3), (50, 53)):
        seat = state.current
        state = rules.apply(state, seat, {"fruchtkoerper": corner})[0]
        state = rules.apply(state, seat, {"faden": edge_between(corner, edge_to)})[0]
    seat = state.current
    state = rules.apply(state, seat, {"fruchtkoerper": 18})[0]  # fields 4 (Deponie), 5 (Stadion), 9 (Kreuz)
    assert CORNER_FIELDS[18] == (4, 5, 9)
    assert state.hands[seat] == hand(humus=1, moos=1)


# ---------------------------------------------------------------------------------------------------------
# 2. Turn


def test_2_trading_building_and_ending_refused_before_the_roll() -> None:
    state = _roll_ready(hands={0: hand(4, 4, 1, 1, 0)}, buildings={12: (0, 1)}, threads={edge_between(12, 17): 0})
    for move in ({"vorrat": {"gib": "totholz", "nimm": "moos"}}, {"faden": edge_between(17, 22)},
                 {"angebot": {"gib": {"humus": 1}, "nimm": {"moos": 1}}}, {"zug_beenden": True},
                 {"mutation": True}):
        refused = assert_refused_without_change(ENGINE, state, 0, move)
        assert "würfeln" in refused.reason
    assert rules.legal_moves(state, 0) == [{"wuerfeln": True}]


def test_2_zufall_dice_come_from_the_seed() -> None:
    def rolls(seed: bytes) -> list[tuple[int, ...]]:
        state = board(seed=seed, phase=WURF, rolled=False, rolls=0, dice=())
        seen = []
        for _ in range(6):
            state = rules.apply(state, 0, {"wuerfeln": True})[0]
            seen.append(state.dice)
            state = board(seed=seed, phase=WURF, rolled=False, rolls=state.rolls, dice=())
        return seen

    first = rolls(b"w1")
    assert first == rolls(b"w1") and first != rolls(b"w2")
    rng = SeededRng(b"w1", "speedspore/wurf/1")
    assert first[0] == (rng.randbelow(6) + 1, rng.randbelow(6) + 1)


def test_2_ausgeglichen_plays_every_outcome_once_then_reshuffles_at_five() -> None:
    state = board(config={"wuerfel": "ausgeglichen"}, phase=WURF, rolled=False)
    assert len(state.dice_deck) == 36
    played: list[tuple[int, int]] = []
    shuffles = []
    for _ in range(62):
        state = rules.apply(state, 0, {"wuerfeln": True})[0]
        played.append((state.dice[0], state.dice[1]))
        shuffles.append(state.shuffles)
        state = board(config={"wuerfel": "ausgeglichen"}, phase=WURF, rolled=False, rolls=state.rolls,
                      dice_deck=state.dice_deck, dice_seen=state.dice_seen, shuffles=state.shuffles)
    all_pairs = {(a, b) for a in range(1, 7) for b in range(1, 7)}
    assert len(set(played[:31])) == 31 and set(played[:31]) <= all_pairs  # each outcome at most once
    assert shuffles[29] == 0 and shuffles[30] == 1  # the 31st roll leaves five: shuffled anew
    assert len(set(played[31:62])) == 31 and shuffles[60] == 1 and shuffles[61] == 2
    sums = Counter(a + b for a, b in all_pairs)
    assert sums[7] == 6 and sums[2] == 1  # the deck holds the 36 outcomes


def test_2_yields_one_per_fruchtkoerper_two_per_tower_none_under_the_mold() -> None:
    field = 4  # Alte Deponie, 6
    a, b, c = FIELD_CORNERS[field][0], FIELD_CORNERS[field][2], FIELD_CORNERS[field][4]
    state = _roll_ready(buildings={a: (0, 1), b: (1, 2), c: (2, 1)}, dice_deck=dice_deck((3, 3)))
    pos = play(position(state), 0, {"wuerfeln": True})
    humus = [hand_[1] for hand_ in pos.state.hands]
    assert pos.state.dice == (3, 3) and humus == [1, 2, 1]
    assert pos.state.supply[1] == 19 - 4
    moldy = _roll_ready(buildings={a: (0, 1), b: (1, 2)}, dice_deck=dice_deck((3, 3)), mold=field)
    after = play(position(moldy), 0, {"wuerfeln": True}).state
    assert [sum(h) for h in after.hands] == [0, 0, 0]
    assert after.last_yield is not None and len(after.last_yield.mold) == 2  # what the mold ate is recorded


def _geflecht_board(seats: int, seat2_towers: bool) -> Any:
    """Seat 0 holds Weitestes Geflecht (trail 0-3-7-12-17-22); seat 1 (active) can put a Fruchtkörper on
    corner 12 in its middle; seat 2 (and seat 3) have trails of 5 too."""
    threads = {edge: 0 for edge in path_edges(0, 3, 7, 12, 17, 22)}
    threads[edge_between(8, 12)] = 1
    threads.update({edge: 2 for edge in path_edges(52, 48, 51, 47, 43, 38)})
    if seats == 4:
        threads.update({edge: 3 for edge in path_edges(2, 6, 10, 15, 20, 26)})
    buildings = {corner: (2, 2) for corner in (30, 41, 44, 53)} if seat2_towers else {}
    return board(seats, threads=threads, buildings=buildings, hands={1: FK}, current=1, longest_holder=0)


def test_2_win_counts_only_in_ones_own_turn() -> None:
    state = _geflecht_board(3, seat2_towers=True)
    assert scoring.points(state, 2) == 8 and state.longest_holder == 0 and state.trail == (5, 1, 5)
    pos = play(position(state), 1, {"fruchtkoerper": 12})  # breaks seat 0's trail: seat 2 alone in front
    assert pos.state.longest_holder == 2 and scoring.points(pos.state, 2) == 10
    assert not ENGINE.is_over(pos)  # reached in seat 1's turn: not yet won
    pos = play(pos, 1, {"zug_beenden": True})  # seat 2's turn begins with 10 points: it wins
    assert ENGINE.is_over(pos) and pos.state.winner == 2
    assert ENGINE.outcome(pos).places[2] == 1


# ---------------------------------------------------------------------------------------------------------
# 3. Building and mutations


def _network(**changes: Any) -> Any:
    """Seat 0: Fruchtkörper on 12, thread 12-17; seat 1: Fruchtkörper on 23 with thread 23-29."""
    threads = {edge_between(12, 17): 0, edge_between(23, 29): 1, **changes.pop("threads", {})}
    return board(buildings={12: (0, 1), 23: (1, 1)}, threads=threads, **changes)


def test_3_costs_and_connection_rules() -> None:
    state = _network(hands={0: hand(3, 3, 1, 1, 3)})
    pos = play(position(state), 0, {"faden": edge_between(17, 22)})
    assert pos.state.hands[0] == hand(2, 2, 1, 1, 3)
    assert pos.state.supply == tuple(s + c for s, c in zip(state.supply, (1, 1, 0, 0, 0), strict=True))
    pos = play(pos, 0, {"fruchtkoerper": 22})
    assert pos.state.hands[0] == hand(1, 1, 0, 0, 3) and scoring.points(pos.state, 0) == 2
    refused = [
        {"faden": edge_between(35, 40)},  # touches nothing of seat 0
        {"faden": edge_between(23, 18)},  # would pass through seat 1's Fruchtkörper
        {"fruchtkoerper": 17},  # distance rule
        {"fruchtkoerper": 30},  # no own thread there
        {"turm": 23},  # not own
        {"turm": 17},  # no Fruchtkörper there
    ]
    rich = board(buildings={12: (0, 1), 23: (1, 1)}, hands={0: hand(5, 5, 5, 5, 5)},
                 threads={edge_between(12, 17): 0, edge_between(17, 23): 0, edge_between(23, 29): 1})
    for move in refused:
        assert_refused_without_change(ENGINE, rich, 0, move)
        assert move not in rules.legal_moves(rich, 0)
    assert {"faden": edge_between(17, 22)} in rules.legal_moves(rich, 0)
    pos = play(position(rich), 0, {"turm": 12})
    assert pos.state.corner_level[12] == 2 and scoring.points(pos.state, 0) == 2
    assert pos.state.hands[0] == hand(5, 5, 5, 3, 2)


def test_3_piece_limits_15_5_4() -> None:
    assert building.pieces_left(board(), 0, "faden") == 15
    assert building.pieces_left(board(), 0, "fruchtkoerper") == 5
    assert building.pieces_left(board(), 0, "turm") == 4
    state = _network(hands={0: hand(5, 5, 5, 5, 5)}, pieces=((15, 5, 4), (1, 1, 0), (0, 0, 0)))
    for move in ({"faden": edge_between(17, 22)}, {"fruchtkoerper": 22}, {"turm": 12}):
        refused = assert_refused_without_change(ENGINE, state, 0, move)
        assert "keine" in refused.reason or "alle" in refused.reason, refused.reason
        assert move not in rules.legal_moves(state, 0)


def test_3_mutation_deck_of_25() -> None:
    deck = MODULE.setup({}, 2, b"d").deck
    counts = Counter(deck)
    assert len(deck) == 25 and counts[WOLKE] == 14 and counts[WUCHSSCHUB] == 2 and counts[NAEHRQUELLE] == 2
    assert counts[NETZSOG] == 2 and all(counts[card] == 1 for card in FUNDE)
    assert sorted(deck) == sorted(MUTATION_DECK)
    assert MODULE.setup({}, 2, b"e").deck != deck


def test_3_one_mutation_per_turn_never_the_one_bought() -> None:
    state = board(hands={0: hand(0, 0, 2, 2, 2)}, cards={0: ["naehrquelle", "netzsog"]})
    rest = list(state.deck)
    rest.remove(WUCHSSCHUB)
    pos = play(position(evolve(state, deck=(*rest, WUCHSSCHUB))), 0, {"mutation": True})  # draws the Wuchsschub
    assert pos.state.bought == (WUCHSSCHUB,) and len(pos.state.deck) == 22
    refused = assert_refused_without_change(ENGINE, pos, 0, {"ausspielen": "wuchsschub"})
    assert "gekauft" in refused.reason
    pos = play(pos, 0, {"ausspielen": "naehrquelle", "rohstoffe": ["moos", "moos"]})
    refused = assert_refused_without_change(ENGINE, pos, 0, {"ausspielen": "netzsog", "rohstoff": "moos"})
    assert "schon" in refused.reason
    assert not any("ausspielen" in move for move in ENGINE.legal_moves(pos, 0))


def test_3_sporenwolke_before_the_roll_others_not() -> None:
    state = _roll_ready(cards={0: ["sporenwolke", "naehrquelle"]})
    assert {"ausspielen": "sporenwolke"} in rules.legal_moves(state, 0)
    refused = assert_refused_without_change(ENGINE, state, 0, {"ausspielen": "naehrquelle",
                                                               "rohstoffe": ["moos", "humus"]})
    assert "Sporenwolke" in refused.reason
    pos = play(position(state), 0, {"ausspielen": "sporenwolke"})
    assert pos.state.phase == SCHIMMEL and ENGINE.view(pos, 1)["phase"] == "schimmel"  # the follow-up step
    pos = play(pos, 0, {"schimmel": 4})
    assert pos.state.phase == WURF and pos.state.mold == 4 and ENGINE.legal_moves(pos, 0) == [{"wuerfeln": True}]


def test_3_wuchsschub_two_free_threads_or_verzichten_in_the_view() -> None:
    state = _network(cards={0: ["wuchsschub", "wuchsschub"]})
    pos = play(position(state), 0, {"ausspielen": "wuchsschub"})
    view = ENGINE.view(pos, 2)
    assert view["phase"] == "wuchsschub" and view["gratis_faeden"] == 2
    assert {"verzichten": True} in ENGINE.legal_moves(pos, 0)
    pos = play(pos, 0, {"faden": edge_between(17, 22)})
    assert pos.state.phase == WUCHS_PHASE and ENGINE.view(pos, 1)["gratis_faeden"] == 1
    pos = play(pos, 0, {"faden": edge_between(22, 28)})
    assert pos.state.phase == HAUPT and pos.state.hands[0] == hand() and pos.state.pieces[0][0] == 3
    # the other Wuchsschub next turn: one thread, then "Verzichten"
    state = _network(cards={0: ["wuchsschub"]})
    pos = play(position(state), 0, {"ausspielen": "wuchsschub"})
    pos = play(pos, 0, {"faden": edge_between(17, 22)})
    pos = play(pos, 0, {"verzichten": True})
    assert pos.state.phase == HAUPT and pos.state.pieces[0][0] == 2 and pos.state.free_threads == 0


def test_3_naehrquelle_and_netzsog() -> None:
    state = board(hands={0: hand(1, 0, 0, 0, 0), 1: hand(0, 0, 3, 1, 0), 2: hand(0, 2, 2, 0, 0)},
                  cards={0: ["naehrquelle", "netzsog"]})
    pos = play(position(state), 0, {"ausspielen": "naehrquelle", "rohstoffe": ["humus", "mineralien"]})
    assert pos.state.hands[0] == hand(1, 1, 0, 0, 1) and pos.state.supply[4] == state.supply[4] - 1
    state = board(hands={0: hand(1, 0, 0, 0, 0), 1: hand(0, 0, 3, 1, 0), 2: hand(0, 2, 2, 0, 0)},
                  cards={0: ["netzsog"]})
    step = ENGINE.apply(position(state), 0, {"ausspielen": "netzsog", "rohstoff": "moos"})
    hands = step.position.state.hands
    assert hands == (hand(1, 0, 5, 0, 0), hand(0, 0, 0, 1, 0), hand(0, 2, 0, 0, 0))
    assert any(e["key"] == "speedspore.netzsog" and e["params"]["anzahl"] == 5 for e in step.effects)


def test_3_funde_hidden_from_others_until_the_end() -> None:
    state = board(buildings={12: (0, 1)}, cards={0: ["museum", "rathaus"]})
    own = ENGINE.view(position(state), 0)["spieler"][0]
    other = ENGINE.view(position(state), 1)["spieler"][0]
    assert own["punkte"] == 3 and other["punkte"] == 1 and other["funde"] is None
    assert ENGINE.view(position(state), 1)["du"]["mutationen"] == []
    assert "museum" not in str(ENGINE.view(position(state), 1)["spieler"])
    ended = board(buildings={12: (0, 1)}, cards={0: ["museum", "rathaus"]}, phase=ENDE, winner=1)
    revealed = ENGINE.view(position(ended), 1)["spieler"][0]
    assert revealed["punkte"] == 3 and sorted(revealed["funde"]) == ["museum", "rathaus"]
    assert ENGINE.outcome(position(ended)).scores[0] == 3
    # a Fund is never played: it counts by itself
    refused = assert_refused_without_change(ENGINE, state, 0, {"ausspielen": "museum"})
    assert "Fund" in refused.reason


# ---------------------------------------------------------------------------------------------------------
# 4. The seven


def test_4_seven_discards_at_once_then_the_mold_moves_and_robs() -> None:
    state = _roll_ready(hands={0: hand(2, 2, 2, 2, 0), 1: hand(3, 3, 3, 0, 0), 2: hand(1, 1, 1, 1, 3)},
                        buildings={12: (1, 1), 30: (2, 1)}, dice_deck=dice_deck((3, 4)))
    pos = play(position(state), 0, {"wuerfeln": True})
    assert pos.state.phase == ABWERFEN and pos.state.discard == (4, 4, 0)
    assert sum(map(sum, pos.state.hands)) == 8 + 9 + 7  # no yield on a seven
    assert ENGINE.must_act(pos) == (0, 1)
    began = pos.decision_of(0)
    assert began is not None and pos.decision_of(1) is not None and pos.decision_of(2) is None
    refused = assert_refused_without_change(ENGINE, pos, 1, {"abwerfen": {"totholz": 3}})
    assert "4" in refused.reason
    assert_refused_without_change(ENGINE, pos, 2, {"abwerfen": {"totholz": 1}})
    assert_refused_without_change(ENGINE, pos, 1, {"abwerfen": {"mineralien": 4}})
    pos = play(pos, 1, {"abwerfen": {"totholz": 3, "humus": 1}})  # seat 1 first: each decides on its own
    assert pos.state.phase == ABWERFEN and pos.decision_of(0) == began and ENGINE.must_act(pos) == (0,)
    pos = play(pos, 0, {"abwerfen": {"moos": 2, "regenwasser": 2}})
    assert pos.state.phase == SCHIMMEL and pos.state.hands[1] == hand(0, 2, 3, 0, 0)
    refused = assert_refused_without_change(ENGINE, pos, 0, {"schimmel": pos.state.mold})
    assert "anderes Feld" in refused.reason
    assert_refused_without_change(ENGINE, pos, 0, {"schimmel": 4})  # a victim must be named
    assert_refused_without_change(ENGINE, pos, 0, {"schimmel": 4, "opfer": 2})  # seat 2 has nothing at field 4
    step = ENGINE.apply(pos, 0, {"schimmel": 4, "opfer": 1})
    after = step.position.state
    assert after.mold == 4 and after.phase == HAUPT
    assert sum(after.hands[0]) == 5 and sum(after.hands[1]) == 4
    secret = [e for e in step.effects if e["key"] == "speedspore.raub.karte"]
    assert len(secret) == 1 and secret[0]["visible_to"] == [0, 1]
    assert secret[0] in visible_effects(step.effects, 1) and secret[0] not in visible_effects(step.effects, 2)
    assert not any("rohstoff" in e["params"] for e in visible_effects(step.effects, 2))


# ---------------------------------------------------------------------------------------------------------
# 5. Weitestes Geflecht and Größte Sporenwolke


def test_5_geflecht_first_to_five_longer_takes_tie_keeps() -> None:
    four = {edge: 0 for edge in path_edges(0, 3, 7, 12, 17)}
    rival = {edge: 1 for edge in path_edges(52, 48, 51, 47, 43, 38)}
    state = board(threads={**four, **rival}, hands={0: hand(3, 3, 0, 0, 0)}, longest_holder=1)
    assert state.longest_holder == 1
    pos = play(position(state), 0, {"faden": edge_between(17, 22)})  # 5 against 5: the holder keeps it
    assert pos.state.trail[:2] == (5, 5) and pos.state.longest_holder == 1
    pos = play(pos, 0, {"faden": edge_between(22, 28)})  # 6: longer takes it
    assert pos.state.longest_holder == 0 and scoring.public_points(pos.state, 0) == 2
    alone = board(threads=four, hands={0: hand(1, 1, 0, 0, 0)})
    assert alone.longest_holder == -1
    assert play(position(alone), 0, {"faden": edge_between(17, 22)}).state.longest_holder == 0  # first to 5


def test_5_geflecht_broken_by_a_foreign_fruchtkoerper() -> None:
    state = _geflecht_board(3, seat2_towers=False)
    after = play(position(state), 1, {"fruchtkoerper": 12}).state
    assert after.trail[0] == 3 and after.longest_holder == 2  # the one alone in front takes it
    tied = _geflecht_board(4, seat2_towers=False)
    after = play(position(tied), 1, {"fruchtkoerper": 12}).state
    assert after.trail == (3, 1, 5, 5) and after.longest_holder == -1  # several tied: nobody for now


def test_5_groesste_sporenwolke_first_to_three_more_takes_tie_keeps() -> None:
    state = board(cards={0: ["sporenwolke"]}, played=((WOLKE, WOLKE), (), ()))
    after = play(position(state), 0, {"ausspielen": "sporenwolke"}).state
    assert after.largest_holder == 0 and scoring.public_points(after, 0) == 2
    tie = board(cards={1: ["sporenwolke"]}, played=((WOLKE,) * 3, (WOLKE, WOLKE), ()), largest_holder=0, current=1)
    assert play(position(tie), 1, {"ausspielen": "sporenwolke"}).state.largest_holder == 0
    more = board(cards={1: ["sporenwolke"]}, played=((WOLKE,) * 3, (WOLKE,) * 3, ()), largest_holder=0, current=1)
    assert play(position(more), 1, {"ausspielen": "sporenwolke"}).state.largest_holder == 1
    two = board(cards={0: ["sporenwolke"]}, played=((WOLKE,), (), ()))
    assert play(position(two), 0, {"ausspielen": "sporenwolke"}).state.largest_holder == -1


# ---------------------------------------------------------------------------------------------------------
# 6. Trading


def test_6_supply_rates_4_3_2_only_through_own_connected_gullys() -> None:
    plain = board(buildings={9: (0, 1)}, hands={0: hand(humus=4)})
    corners = gully_frame(plain.gully_edges).corners  # Einsteiger, speedspore@2: the published beginner gullys
    assert corners[0] == (1, 5) and corners[1] == (10, 15) and corners[8] == (0, 3)
    assert building.rates(plain, 0) == (4, 4, 4, 4, 4)
    pos = play(position(plain), 0, {"vorrat": {"gib": "humus", "nimm": "moos"}})
    assert pos.state.hands[0] == hand(moos=1)
    short = board(buildings={9: (0, 1)}, hands={0: hand(humus=3)})
    refused = assert_refused_without_change(ENGINE, short, 0, {"vorrat": {"gib": "humus", "nimm": "moos"}})
    assert "4 Humus" in refused.reason
    three = board(buildings={3: (0, 1), 10: (1, 1)}, hands={0: hand(humus=3)})  # gully 8 (3:1) is seat 0's
    assert building.rates(three, 0) == (3, 3, 3, 3, 3) and building.rates(three, 1) == (4, 4, 4, 4, 2)
    assert play(position(three), 0, {"vorrat": {"gib": "humus", "nimm": "moos"}}).state.hands[0] == hand(moos=1)
    rain = board(buildings={5: (0, 1)}, hands={0: hand(regenwasser=2)})  # gully 0: Regenwasser 2:1
    assert play(position(rain), 0, {"vorrat": {"gib": "regenwasser", "nimm": "humus"}}).state.hands[0] == hand(humus=1)
    foreign = board(buildings={5: (1, 1)}, hands={0: hand(regenwasser=2)})  # not connected: 4:1
    assert_refused_without_change(ENGINE, foreign, 0, {"vorrat": {"gib": "regenwasser", "nimm": "humus"}})


OFFER = {"angebot": {"gib": {"totholz": 1}, "nimm": {"moos": 1}}}


def test_6_offers_answers_counter_offers_and_the_chosen_partner() -> None:
    state = board(hands={0: hand(totholz=2), 1: hand(moos=1), 2: hand(moos=2, humus=1)})
    pos = position(state)
    for seat, move in ((1, OFFER), (1, {"handeln": 2}), (2, {"vorrat": {"gib": "moos", "nimm": "humus"}})):
        assert_refused_without_change(ENGINE, pos, seat, move)  # only the active seat offers and trades
    pos = play(pos, 0, OFFER)
    assert ENGINE.must_act(pos) == (1, 2)  # everyone else must answer, each on its own clock
    assert ENGINE.may_act(pos) == (0,)  # the offering seat waits for them (it may act, no clock runs)
    names = {entry.seat: entry.decision for entry in ENGINE.pending(pos)}
    assert names[1] == names[2] and names[1] != names[0]
    assert_refused_without_change(ENGINE, pos, 1, {"angebot": {"gib": {"moos": 1}, "nimm": {"totholz": 1}}})
    assert_refused_without_change(ENGINE, pos, 1, {"handeln": 2})
    pos = play(pos, 1, {"antwort": "ja"})
    answers = ENGINE.view(pos, 2)["angebot"]["antworten"]
    assert answers[1]["art"] == "ja" and answers[2]["art"] == ""  # visible as it comes
    assert ENGINE.must_act(pos) == (2,) and ENGINE.may_act(pos) == (0,)
    pos = play(pos, 2, {"gegenangebot": {"gib": {"moos": 2}, "nimm": {"totholz": 1}}})
    assert ENGINE.must_act(pos) == (0,)  # every answer is in: the offering seat decides, on a fresh clock
    assert ENGINE.view(pos, 1)["angebot"]["antworten"][2]["art"] == "gegen"
    assert {"handeln": 1} in ENGINE.legal_moves(pos, 0) and {"handeln": 2} in ENGINE.legal_moves(pos, 0)
    pos = play(pos, 0, {"handeln": 2})  # the active seat chooses the counter-offer
    assert pos.state.hands[0] == hand(totholz=1, moos=2) and pos.state.hands[2] == hand(totholz=1, humus=1)
    assert pos.state.offer is None and pos.state.hands[1] == hand(moos=1)
    # two "ja": the active seat chooses with whom
    pos = play(position(state), 0, OFFER)
    pos = play(play(pos, 1, {"antwort": "ja"}), 2, {"antwort": "ja"})
    pos = play(pos, 0, {"handeln": 2})
    assert pos.state.hands[2] == hand(totholz=1, moos=1, humus=1) and pos.state.hands[1] == hand(moos=1)


def test_6_trades_are_checked_against_real_hands() -> None:
    state = board(hands={0: hand(totholz=4, humus=1), 1: hand(moos=1), 2: hand(humus=1)})
    pos = play(position(state), 0, {"angebot": {"gib": {"totholz": 1}, "nimm": {"moos": 1}}})
    refused = assert_refused_without_change(ENGINE, pos, 2, {"antwort": "ja"})  # seat 2 has no Moos
    assert "Karten" in refused.reason
    assert_refused_without_change(ENGINE, pos, 2, {"gegenangebot": {"gib": {"moos": 1}, "nimm": {"totholz": 1}}})
    pos = play(pos, 1, {"antwort": "ja"})
    pos = play(pos, 2, {"antwort": "nein"})
    assert_refused_without_change(ENGINE, pos, 0, {"handeln": 2})  # said "nein"
    pos = play(pos, 0, {"vorrat": {"gib": "totholz", "nimm": "regenwasser"}})  # the offered Totholz is gone
    refused = assert_refused_without_change(ENGINE, pos, 0, {"handeln": 1})
    assert "Handel" in refused.reason and {"handeln": 1} not in ENGINE.legal_moves(pos, 0)
    refused = assert_refused_without_change(ENGINE, pos, 0, {"angebot": {"gib": {"totholz": 1},
                                                                         "nimm": {"moos": 1}}})
    assert "Karten" in refused.reason


def test_6_at_most_five_offers_and_ending_the_turn_drops_the_offer() -> None:
    pos = position(board(hands={0: hand(totholz=2), 1: hand(moos=1)}))
    for _ in range(5):
        pos = play(pos, 0, OFFER)
    assert pos.state.offers_made == 5 and pos.state.offer is not None and pos.state.offer.number == 5
    refused = assert_refused_without_change(ENGINE, pos, 0, OFFER)
    assert "5" in refused.reason
    assert not any("angebot" in move for move in ENGINE.legal_moves(pos, 0))
    pos = play(pos, 0, {"zug_beenden": True})
    assert ENGINE.view(pos, 1)["angebot"] is None and ENGINE.must_act(pos) == (1,)
    assert_refused_without_change(ENGINE, pos, 2, {"antwort": "ja"})


# ---------------------------------------------------------------------------------------------------------
# 7. "Zurück"


def test_7_zurueck_three_steps_back_to_the_same_state() -> None:
    state = _network(hands={0: hand(6, 2, 1, 1, 0)})
    start = position(state)
    pos = play(start, 0, {"faden": edge_between(17, 22)})
    pos = play(pos, 0, {"vorrat": {"gib": "totholz", "nimm": "humus"}})
    pos = play(pos, 0, {"fruchtkoerper": 22})
    assert pos.state.pieces[0] == (2, 2, 0)
    for _ in range(3):
        assert ENGINE.can_undo(pos, 0)
        pos = play(pos, 0, UNDO_MOVE)
    assert pos.state == state
    refused = assert_refused_without_change(ENGINE, pos, 0, UNDO_MOVE)
    assert refused.code == "nothing_to_undo"
    # a build "mit Tausch" is one step
    plan = [{"gib": "totholz", "nimm": "moos"}, {"gib": "totholz", "nimm": "regenwasser"}]
    rich = _network(hands={0: hand(9, 1, 0, 0, 0)}, threads={edge_between(17, 22): 0})
    pos = play(position(rich), 0, {"fruchtkoerper": 22, "tausch": plan})
    assert pos.state.hands[0] == hand() and pos.state.pieces[0][1] == 2
    assert play(pos, 0, UNDO_MOVE).state == rich
    # only three steps are kept
    pos = position(_network(hands={0: hand(7, 2, 0, 0, 0)}))
    for move in ({"faden": edge_between(17, 22)}, {"faden": edge_between(22, 28)},
                 {"vorrat": {"gib": "totholz", "nimm": "humus"}}, {"faden": edge_between(12, 7)}):
        pos = play(pos, 0, move)
    for _ in range(3):
        pos = play(pos, 0, UNDO_MOVE)
    assert pos.state.pieces[0][0] == 2 and not ENGINE.can_undo(pos, 0)


def test_7_zurueck_never_across_mutation_trade_roll_or_robbery() -> None:
    thread = {"faden": edge_between(17, 22)}
    cases: list[list[tuple[int, dict[str, Any]]]] = [
        [(0, thread), (0, {"mutation": True})],
        [(0, thread), (0, {"ausspielen": "naehrquelle", "rohstoffe": ["moos", "moos"]})],
        [(0, thread), (0, OFFER), (1, {"antwort": "ja"}), (2, {"antwort": "nein"}), (0, {"handeln": 1})],
        [(0, thread), (0, {"ausspielen": "sporenwolke"}), (0, {"schimmel": 8, "opfer": 1})],
    ]
    for moves in cases:
        state = _network(hands={0: hand(3, 3, 2, 2, 2), 1: hand(moos=2)}, cards={0: ["naehrquelle", "sporenwolke"]})
        pos = position(state)
        for seat, move in moves:
            assert ENGINE.module.undoable(pos.state, seat, move) == (move is thread)
            pos = play(pos, seat, move)
        assert not ENGINE.can_undo(pos, 0)
        assert_refused_without_change(ENGINE, pos, 0, UNDO_MOVE)
    rolled = play(position(_roll_ready(dice_deck=dice_deck((2, 2)))), 0, {"wuerfeln": True})
    assert rolled.state.phase == HAUPT and not ENGINE.can_undo(rolled, 0)


# ---------------------------------------------------------------------------------------------------------
# 9. Timeouts


def test_9_timeouts_roll_end_answer_nein_verzichten_discard() -> None:
    assert ENGINE.timeout_move(position(_roll_ready()), 0) == {"wuerfeln": True}
    assert ENGINE.timeout_move(position(board()), 0) == {"zug_beenden": True}
    pos = play(position(board(hands={0: hand(totholz=1), 1: hand(moos=1)})), 0, OFFER)
    assert ENGINE.timeout_move(pos, 1) == {"antwort": "nein"} and ENGINE.timeout_move(pos, 0) == {"zug_beenden": True}
    assert ENGINE.timeout_move(pos, 1) in ENGINE.legal_moves(pos, 1)
    pos = play(position(_network(cards={0: ["wuchsschub"]})), 0, {"ausspielen": "wuchsschub"})
    assert ENGINE.timeout_move(pos, 0) == {"verzichten": True}
    state = _roll_ready(hands={1: hand(5, 0, 3, 1, 0)}, dice_deck=dice_deck((6, 1)))
    pos = play(position(state), 0, {"wuerfeln": True})
    move = ENGINE.timeout_move(pos, 1)
    assert move == {"abwerfen": {"totholz": 3, "moos": 1}} and move in ENGINE.legal_moves(pos, 1)
    assert ENGINE.timeout_move(pos, 2) is None


def test_9_founding_timeout_takes_the_richest_free_corner() -> None:
    pips = (0, 0, 1, 2, 3, 4, 5, 0, 5, 4, 3, 2, 1)
    pos = ENGINE.start(ENGINE.normalize_config({"insel": "einsteiger"}, 3), 3, b"t")
    while pos.state.phase == GRUENDUNG:
        state, seat = pos.state, pos.state.current
        move = ENGINE.timeout_move(pos, seat)
        assert move is not None and move in ENGINE.legal_moves(pos, seat)

        def dots(corner: int, st: Any = state) -> int:
            return sum(pips[st.numbers[f]] for f in CORNER_FIELDS[corner] if st.fields[f] != DESERT)

        if "fruchtkoerper" in move:
            free = building.founding_corners(state)
            best = max(dots(c) for c in free)
            assert move["fruchtkoerper"] == min(c for c in free if dots(c) == best)
        else:
            here = state.founding_corner
            ends = {edge: next(c for c in EDGE_CORNERS[edge] if c != here) for edge in building.founding_edges(
                state, here)}
            assert dots(ends[move["faden"]]) == max(dots(c) for c in ends.values())
        pos = play(pos, seat, move)
    assert pos.state.phase == WURF
    corners = [c for c in range(54) if pos.state.corner_owner[c] != -1]
    assert len(corners) == 6 and 0 not in corners  # no longer simply the first listed corner


def test_9_mold_timeout_spares_own_fields_harms_most_robs_richest() -> None:
    # seat 0 (active) on 12 (fields 0, 3, 4); seat 1 on 23 (4, 8, 9) and 40 (13, 14, 17); seat 2 tower on 30
    # (9, 10, 14). Field 14 (Klärwerk 4, three dots) costs seat 2 six and seat 1 three: the most.
    layout = {12: (0, 1), 23: (1, 1), 40: (1, 1), 30: (2, 2)}
    state = board(buildings=layout, hands={1: hand(2, 2, 0, 0, 0), 2: hand(1, 0, 0, 0, 0)}, phase=SCHIMMEL)
    pos = position(state)
    move = ENGINE.timeout_move(pos, 0)
    assert move == {"schimmel": 14, "opfer": 1} and move in ENGINE.legal_moves(pos, 0)
    richer2 = board(buildings=layout, hands={1: hand(1, 0, 0, 0, 0), 2: hand(1, 1, 0, 0, 0)}, phase=SCHIMMEL)
    assert ENGINE.timeout_move(position(richer2), 0) == {"schimmel": 14, "opfer": 2}
    tie = board(buildings=layout, hands={1: hand(1, 0, 0, 0, 0), 2: hand(0, 1, 0, 0, 0)}, phase=SCHIMMEL)
    assert ENGINE.timeout_move(position(tie), 0) == {"schimmel": 14, "opfer": 1}
    # already on field 14: the next most harmful field that does not touch seat 0
    moved = board(buildings=layout, hands={1: hand(1, 0, 0, 0, 0)}, phase=SCHIMMEL, mold=14)
    choice = ENGINE.timeout_move(position(moved), 0)
    assert choice is not None and choice["schimmel"] == 17 and choice in ENGINE.legal_moves(position(moved), 0)
    assert not any(state.corner_owner[c] == 0 for c in FIELD_CORNERS[choice["schimmel"]])


# ---------------------------------------------------------------------------------------------------------
# 10. Leaderboard


def _ended(seats: int, pieces: tuple[tuple[int, int, int], ...], hands: dict[int, tuple[int, ...]],
           winner: int = 0, cards: dict[int, list[str]] | None = None) -> Any:
    return board(seats, hands=hands, pieces=pieces, cards=cards, phase=ENDE, winner=winner)


def test_10_leaderboard_points_and_places_after_the_winner() -> None:
    # 4 seats: winner 10 points; seats 1–3 six points each: seat 3 has more towers, seats 1 and 2 tie on
    # towers, seat 2 holds more cards.
    state = _ended(4, ((0, 2, 4), (0, 4, 1), (0, 4, 1), (0, 2, 2)), {1: hand(totholz=1), 2: hand(totholz=2)})
    outcome = ENGINE.outcome(position(state))
    assert outcome.scores == (10, 6, 6, 6)
    assert outcome.places == (1, 4, 3, 2)
    assert outcome.leaderboard_points == (5 * 10 + 30, 5 * 6, 5 * 6 + 5, 5 * 6 + 15)
    shared = _ended(4, ((0, 2, 4), (0, 4, 1), (0, 4, 1), (0, 2, 2)), {1: hand(humus=2), 2: hand(totholz=2)})
    assert ENGINE.outcome(position(shared)).places == (1, 3, 3, 2)  # still equal: shared place
    # 3 seats: place 2 gets 15, place 3 nothing; 2 seats: place 2 nothing. Funde count at the end.
    three = _ended(3, ((0, 2, 4), (0, 3, 0), (0, 2, 0)), {}, cards={2: ["museum", "rathaus"]})
    out3 = ENGINE.outcome(position(three))
    assert out3.scores == (10, 3, 4) and out3.places == (1, 3, 2)
    assert out3.leaderboard_points == (80, 15, 20 + 15)
    two = _ended(2, ((0, 2, 4), (0, 5, 1)), {})
    assert ENGINE.outcome(position(two)).leaderboard_points == (80, 35)
    # the winner is first even with fewer points than another (it reached the target in its own turn)
    late = _ended(3, ((0, 0, 4), (0, 1, 4), (0, 0, 0)), {}, winner=0)
    out = ENGINE.outcome(position(late))
    assert out.places[0] == 1 and out.scores[1] > out.scores[0]
    assert KIND_COUNT == 5 and scoring.LEADERBOARD.place_bonus == (30, 15, 5)


def test_9_every_timeout_move_is_legal_along_random_games() -> None:
    for seats, island in ((3, "zufall"), (4, "einsteiger")):
        pos = ENGINE.start(ENGINE.normalize_config({"insel": island, "wuerfel": "ausgeglichen"}, seats), seats,
                           b"timeouts%d" % seats)
        rng = SeededRng(b"timeout-moves", str(seats))
        for _ in range(700):
            if ENGINE.is_over(pos):
                break
            for entry in ENGINE.pending(pos):
                move = ENGINE.timeout_move(pos, entry.seat)
                assert move is not None and move in ENGINE.legal_moves(pos, entry.seat), (pos.state.phase, move)
            seat = rng.choice(ENGINE.must_act(pos))
            moves = ENGINE.legal_moves(pos, seat)
            builds = [m for m in moves if any(k in m for k in ("faden", "fruchtkoerper", "turm", "wuerfeln"))]
            move = rng.choice(builds) if builds and rng.randbelow(3) else rng.choice(moves)
            pos = play(pos, seat, move)
