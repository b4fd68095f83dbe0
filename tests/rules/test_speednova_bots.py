"""Sanity checks for the Speednova computer players (strength and speed are measured by the benchmark)."""

from __future__ import annotations

import pytest

from libs.rules import registry
from libs.rules.engine import Engine
from libs.rules.evolve import evolve
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speednova import MODULE
from libs.rules.speednova.scoring import analysis
from libs.rules.speednova.state import PHASE_SWAP, NovaState
from services.bot.policies import LEVELS, advise, decide
from services.bot.policies import registry as policies
from services.bot.policies.speednova_bots import POLICY
from services.bot.policies.speednova_bots.options import placements
from services.bot.policies.speednova_bots.values import raw_columns
from tests.bot.games import at_level, play, wins
from tests.rules.speednova_builders import (
    K,
    N,
    P,
    Q,
    R,
    Z,
    cell,
    new,
    position,
    set_rack,
    set_track,
    started,
    tile,
    with_stars,
)

RULES = MODULE.rules_id


def engine() -> Engine:
    return registry.engine(RULES)


def _played(state: NovaState, moves: int, seed: bytes = b"mitte") -> NovaState:
    """Return the state after ``moves`` random legal moves of the movers (a board with stars on it)."""
    rng = SeededRng(seed)
    game = position(state)
    for _ in range(moves):
        seat = engine().must_act(game)[0]
        game = engine().apply(game, seat, rng.choice(engine().legal_moves(game, seat))).position
    result: NovaState = game.state
    return result


def _decide(state: NovaState, seat: int, level: str, label: bytes = b"r") -> Json | None:
    return decide(RULES, MODULE.view(state, seat), seat, level, SeededRng(label))


# ---- the registry and the candidates ----------------------------------------------------------------------
def test_speednova_has_its_own_policy() -> None:
    view = MODULE.view(new(), 0)
    assert policies.policy_for(RULES, view) is POLICY


def test_the_bots_placements_are_exactly_the_legal_ones_in_their_order() -> None:
    for state in (new(), _played(new(), 12), _played(new(4, {"teams": "mit"}), 9), _played(new(1), 5)):
        seat = state.current
        raws = raw_columns(analysis(state.radius, state.cells))
        assert [option.move() for option in placements(state, seat, raws)] == \
            [move for move in MODULE.legal_moves(state, seat) if "signal" not in move]


# ---- whole games -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("config", "levels"), [
    ({}, ("strong", "easy")),
    ({}, ("normal", "strong", "easy")),
    ({"teams": "mit"}, ("strong", "normal", "easy", "normal")),
    ({"teams": "ohne"}, ("easy", "normal", "easy", "normal")),
    ({"solo": "rekordjagd"}, ("strong",)),
    ({"solo": "klassisch"}, ("normal",)),
], ids=["2", "3", "4-teams", "4", "solo-rekordjagd", "solo-klassisch"])
def test_every_level_plays_whole_games_with_legal_moves_only(config: Json, levels: tuple[str, ...]) -> None:
    places = play(engine(), config, tuple(at_level(level) for level in levels), b"ganze-partie", label="zug-")
    assert min(places) == 1 and len(places) == len(levels)


def test_normal_beats_easy_in_most_two_player_games() -> None:
    assert wins(engine(), {}, "normal", "easy", 12, seed=lambda game: bytes([game]) * 16) >= 9


# ---- single decisions --------------------------------------------------------------------------------------
def _duel() -> NovaState:
    """Two seats past their first tile; seat 0 to move on an empty map but for a few stars."""
    state = started(new())
    radius = state.radius
    return with_stars(state, {cell(radius, 0, 0): N, cell(radius, 1, 0): N, cell(radius, 0, 2): K,
                              cell(radius, 1, 2): K, cell(radius, -2, 0): R})


def test_normal_and_strong_strengthen_the_weakest_colour() -> None:
    state = set_track(set_track(_duel(), 0, (9, 1, 9, 9, 9, 9)), 1, (5, 5, 5, 5, 5, 5))
    state = set_rack(state, 0, [tile(K, K), tile(Z, P), tile(N, Q)])
    for level in ("normal", "strong"):
        move = _decide(state, 0, level)
        assert move is not None and "nebel" in move["stein"], level
        preview = MODULE.preview(state, 0, move)
        assert preview["punkte"]["nebel"] >= 2


def test_easy_mostly_takes_the_most_points() -> None:
    state = set_track(_duel(), 0, (9, 1, 9, 9, 9, 9))
    state = set_rack(state, 0, [tile(K, K), tile(Z, P), tile(N, Q)])
    best = max(sum(MODULE.preview(state, 0, move)["punkte"].values()) for move in MODULE.legal_moves(state, 0))
    taken = [sum(MODULE.preview(state, 0, move)["punkte"].values())
             for move in (_decide(state, 0, "easy", bytes([n])) for n in range(12)) if move is not None]
    assert sum(points >= best - 2 for points in taken) >= 9


def test_normal_ignites_a_supernova_when_it_can() -> None:
    state = set_track(_duel(), 0, (16, 6, 6, 6, 6, 6))
    state = set_rack(state, 0, [tile(K, Z), tile(P, Q), tile(R, Q)])
    move = _decide(state, 0, "normal")
    assert move is not None
    assert MODULE.preview(state, 0, move)["supernova"] == [{"farbe": "komet", "wert": 18}]


def _swap_offer() -> NovaState:
    state = set_track(set_track(_played(new(), 10), 0, (2, 8, 8, 8, 8, 8)), 1, (4, 4, 4, 4, 4, 4))
    state = set_rack(state, 0, [tile(N, N), tile(R, R), tile(Z, Z), tile(P, P), tile(Q, Q), tile(N, R)])
    return evolve(state, current=0, phase=PHASE_SWAP, bonus=0)


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_decides_the_swap(level: str) -> None:
    state = _swap_offer()
    assert _decide(state, 0, level) in MODULE.legal_moves(state, 0)


def test_normal_and_strong_swap_a_rack_without_the_weakest_colour_for_fresh_tiles() -> None:
    state = _swap_offer()
    for level in ("normal", "strong"):
        assert _decide(state, 0, level) == {"tauschen": True}, level


def test_a_decision_is_deterministic_given_the_rng() -> None:
    view = MODULE.view(_played(new(), 8), 0)
    for level in LEVELS:
        assert decide(RULES, view, 0, level, SeededRng(b"r")) == decide(RULES, view, 0, level, SeededRng(b"r"))


# ---- team partners -----------------------------------------------------------------------------------------
def _team_state() -> NovaState:
    return _played(new(4, {"teams": "mit"}), 8, seed=b"team")


def test_a_computer_partner_signals_from_its_rack_and_then_settles() -> None:
    state = _team_state()
    seat = (state.current + 1) % 4
    state = set_rack(state, seat, [tile(K, K), tile(K, N), tile(K, R), tile(K, Z), tile(P, P), tile(Z, P)])
    given = []
    for _ in range(6):
        move = _decide(state, seat, "normal")
        if move is None:
            break
        assert move in MODULE.legal_moves(state, seat)
        given.append(move)
        state = MODULE.apply(state, seat, move)[0]
    assert given and given[0] == {"signal": "viel", "farbe": "komet"}
    assert len(given) <= 2  # "Ich habe viel", maybe "Brauche", then nothing more
    assert _decide(state, seat, "strong") is None


def test_a_computer_partner_takes_back_a_signal_that_no_longer_holds() -> None:
    state = _team_state()
    seat = (state.current + 1) % 4
    state = MODULE.apply(state, seat, {"signal": "viel", "farbe": "quasar"})[0]
    state = set_rack(state, seat, [tile(K, N), tile(R, Z), tile(P, P)])
    assert _decide(state, seat, "normal") == {"signal": "viel", "farbe": "quasar"}


def test_a_computer_partner_keeps_a_marked_cell_free() -> None:
    state = _team_state()
    mover = state.current
    partner = (mover + 2) % 4
    for level in ("normal", "strong"):
        chosen = _decide(state, mover, level)
        assert chosen is not None
        marked = MODULE.apply(state, partner, {"signal": "frei", "feld": chosen["feld"]})[0]
        again = _decide(marked, mover, level)
        assert again is not None and again in MODULE.legal_moves(marked, mover)
        partner_cell = MODULE.preview(marked, mover, again)["felder"]
        assert chosen["feld"] not in partner_cell, level


def test_the_mover_places_and_does_not_signal() -> None:
    state = _team_state()
    move = _decide(state, state.current, "normal")
    assert move is not None and "signal" not in move


# ---- advice ------------------------------------------------------------------------------------------------
def test_advice_names_the_placement_and_what_it_brings_in_german() -> None:
    state = set_track(set_track(_duel(), 0, (9, 1, 9, 9, 9, 9)), 1, (5, 5, 5, 5, 5, 5))
    state = set_rack(state, 0, [tile(K, K), tile(Z, P), tile(N, Q)])
    view = MODULE.view(state, 0)
    move, reason = advise(RULES, view, 0, SeededRng(b"rat"))
    assert move == decide(RULES, view, 0, "strong", SeededRng(b"rat"))
    assert reason["key"] == "speednova.rat.legen"
    assert reason["text"].startswith("Lege ") and "Nebel +" in reason["text"]
    assert "schwächste Farbe Nebel (1 →" in reason["text"]
    assert "Platz 2" in reason["text"] and "nächsten Stein" in reason["text"]


def test_advice_on_the_swap_and_on_signals() -> None:
    move, reason = advise(RULES, MODULE.view(_swap_offer(), 0), 0, SeededRng(b"rat"))
    assert move == {"tauschen": True}
    assert reason["key"] == "speednova.rat.tauschen" and "Komet" in reason["text"]
    state = _team_state()
    seat = (state.current + 1) % 4
    state = set_rack(state, seat, [tile(K, K), tile(K, N), tile(K, R), tile(K, Z), tile(P, P), tile(Z, P)])
    move, reason = advise(RULES, MODULE.view(state, seat), seat, SeededRng(b"rat"))
    assert move == {"signal": "viel", "farbe": "komet"}
    assert "„Ich habe viel Komet“" in reason["text"] and "4 Steine" in reason["text"]
