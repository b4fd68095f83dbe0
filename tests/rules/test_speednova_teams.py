"""Speednova in teams (issue 10, point 4): seats 0 + 2 against 1 + 3, one shared track to 36 with Supernova at 18
and 36, swap and ranking by the team's weakest colour, and team signals only the team ever reads.
"""

from __future__ import annotations

import json

import pytest

from libs.rules.engine import Step, visible_effects
from libs.rules.evolve import evolve
from libs.rules.protocol import Json
from libs.rules.speednova import MODULE
from libs.rules.speednova.outcome import final_outcome
from libs.rules.speednova.state import PHASE_OVER, PHASE_SWAP, NovaState
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

TEAMS = {"teams": "mit"}


def team_state() -> NovaState:
    """Four seats in teams, everyone started, a Komet line of 3 west of the centre for seat 0's Komet/Nebel."""
    state = started(new(4, TEAMS))
    def c(q: int, r: int) -> int:
        return cell(7, q, r)

    state = with_stars(state, {c(-1, 0): K, c(-2, 0): K, c(-3, 0): K})
    return set_rack(state, 0, [tile("komet", "nebel")] * 6)


def apply(state: NovaState, seat: int, move: Json) -> Step:
    return ENGINE.apply(position(state), seat, move)


def test_teams_are_seats_0_2_against_1_3_and_chat_is_off() -> None:
    assert MODULE.teams(TEAMS, 4) == ((0, 2), (1, 3)) and MODULE.teams({"teams": "ohne"}, 4) == ()
    assert MODULE.spec.home.chat_allowed(TEAMS) is False and MODULE.spec.home.chat_allowed({}) is True
    state = new(4, TEAMS)
    assert len(state.tracks) == 2 and state.top == 36 and state.thresholds == (18, 36)
    assert MODULE.view(state, 1)["teams"] == [[0, 2], [1, 3]]


def test_partners_score_on_one_shared_track() -> None:
    state = team_state()
    step = apply(state, 0, place_move("komet", "nebel", cell(7, 0, 0), 0))
    after = step.position.state
    assert after.tracks[0][K] == 3 and after.tracks[1] == (0,) * 6
    assert MODULE.view(after, 2)["tafeln"][0]["werte"]["komet"] == 3
    assert [p["tafel"] for p in MODULE.view(after, None)["spieler"]] == [0, 1, 0, 1]


@pytest.mark.parametrize(("before", "threshold"), [(15, 18), (33, 36)])
def test_supernova_at_18_and_again_at_36(before: int, threshold: int) -> None:
    state = set_track(team_state(), 0, (before, 0, 0, 0, 0, 0))
    step = apply(state, 0, place_move("komet", "nebel", cell(7, 0, 0), 0))
    after = step.position.state
    assert after.tracks[0][K] == threshold and after.bonus == 1
    nova = next(e for e in step.effects if e["key"] == "speednova.supernova")
    assert nova["params"]["wert"] == threshold


def test_the_team_track_stops_at_36() -> None:
    state = set_track(team_state(), 0, (35, 0, 0, 0, 0, 0))
    after = apply(state, 0, place_move("komet", "nebel", cell(7, 0, 0), 0)).position.state
    assert after.tracks[0][K] == 36


def test_the_swap_is_judged_by_the_teams_weakest_colour() -> None:
    state = set_track(team_state(), 0, (5, 5, 5, 5, 5, 1))  # the team's weakest: Quasar
    state = set_rack(state, 0, [tile("riese", "riese")] + [tile("komet", "nebel")] * 5)
    state = evolve(state, bag=(tile("komet", "riese"), *state.bag))
    after = apply(state, 0, place_move("riese", "riese", cell(7, 0, 3), 0)).position.state
    assert after.phase == PHASE_SWAP
    # The partner's own weakest colour on another track would not matter: it's one track.
    assert after.track_of(2) == after.track_of(0)


def test_partners_share_the_teams_place_and_points() -> None:
    state = new(4, TEAMS)
    state = set_track(set_track(state, 0, (6, 7, 8, 9, 9, 9)), 1, (5, 20, 20, 20, 20, 20))
    outcome = final_outcome(evolve(state, phase=PHASE_OVER))
    assert outcome.places == (1, 3, 1, 3)
    assert outcome.scores == (6, 5, 6, 5)
    assert outcome.leaderboard_points == (110, 60, 110, 60)  # winners 50, losers place 3 of four: 10
    assert outcome.summary.text == "Das Team Platz 1 + Platz 3 gewinnt mit der schwächsten Farbe auf 6."


def test_all_six_at_36_wins_at_once_for_the_team() -> None:
    state = set_track(team_state(), 0, (33, 36, 36, 36, 36, 36))
    step = apply(state, 0, place_move("komet", "nebel", cell(7, 0, 0), 0))
    assert step.position.state.end_reason == "sofort"
    assert step.effects[-1]["text"] == "Team Platz 1 + Platz 3 hat alle sechs Farben auf 36 und gewinnt sofort!"
    assert ENGINE.outcome(step.position).places == (1, 3, 1, 3)


# ---- signals -------------------------------------------------------------------------------------------------
def views(state: NovaState) -> dict[int | None, str]:
    return {viewer: json.dumps(MODULE.view(state, viewer), sort_keys=True) for viewer in (None, 0, 1, 2, 3)}


def test_every_other_seat_may_signal_without_a_clock() -> None:
    pos = position(team_state())
    assert ENGINE.must_act(pos) == (0,) and ENGINE.may_act(pos) == (1, 2, 3)
    moves = ENGINE.legal_moves(pos, 1)
    assert {"signal": "viel", "farbe": "komet"} in moves and {"signal": "brauche", "farbe": "quasar"} in moves
    assert {"signal": "frei", "feld": cell(7, 0, 0)} in moves and {"signal": "zuruecknehmen"} not in moves
    assert not any("stein" in move for move in moves)


@pytest.mark.parametrize("move", [{"signal": "viel", "farbe": "komet"}, {"signal": "brauche", "farbe": "riese"},
                                  {"signal": "frei", "feld": 84}])
def test_a_signal_is_read_by_the_team_only(move: Json) -> None:
    state = team_state()
    before = views(state)
    step = apply(state, 1, move)
    after = step.position.state
    assert step.move_audience == (1, 3)
    assert all(effect["visible_to"] == [1, 3] for effect in step.effects)
    for outsider in (None, 0, 2):
        assert visible_effects(step.effects, outsider) == []
    now = views(after)
    assert now[None] == before[None] and now[0] == before[0] and now[2] == before[2]
    partner = MODULE.view(after, 3)["du"]["signale"]
    assert len(partner) == 1 and partner[0]["sitz"] == 1 and partner[0]["signal"] == move["signal"]
    assert MODULE.view(after, 1)["du"]["signale"] == partner
    assert "signale" not in json.dumps(MODULE.view(after, None)) or MODULE.view(after, None)["du"] is None


def test_repeating_a_signal_or_zuruecknehmen_takes_it_back() -> None:
    state = team_state()
    once = apply(state, 1, {"signal": "viel", "farbe": "komet"}).position.state
    twice = apply(once, 1, {"signal": "viel", "farbe": "komet"})
    assert twice.position.state.signals[1] == () and twice.effects[0]["key"] == "speednova.signal_zurueck"
    two = apply(apply(once, 1, {"signal": "brauche", "farbe": "nebel"}).position.state, 1, {"signal": "zuruecknehmen"})
    assert two.position.state.signals[1] == ()
    assert "nimmt alle Signale zurück" in two.effects[0]["text"]
    with pytest.raises(Exception) as refused:
        apply(state, 1, {"signal": "zuruecknehmen"})
    assert getattr(refused.value, "code", None) == "no_signal"


def test_feld_frei_halten_goes_out_when_the_cell_is_taken_and_only_the_team_reads_that() -> None:
    state = team_state()
    marked = cell(7, 0, 0)
    state = apply(state, 1, {"signal": "frei", "feld": marked}).position.state
    assert state.signals[1] == (("frei", marked),)
    step = apply(state, 0, place_move("komet", "nebel", marked, 0))
    after = step.position.state
    assert after.signals[1] == ()
    gone = next(e for e in step.effects if e["key"] == "speednova.signal_erloschen")
    assert gone["visible_to"] == [1, 3] and "erlischt" in gone["text"]
    assert all(e["key"] != "speednova.signal_erloschen" for e in visible_effects(step.effects, 0))
    assert all(e["key"] != "speednova.signal_erloschen" for e in visible_effects(step.effects, None))
    with pytest.raises(Exception) as refused:
        apply(after, 1, {"signal": "frei", "feld": marked})
    assert getattr(refused.value, "code", None) == "occupied"


def test_the_mover_deciding_a_swap_signals_afterwards() -> None:
    state = evolve(team_state(), phase=PHASE_SWAP)
    with pytest.raises(Exception) as refused:
        apply(state, 0, {"signal": "viel", "farbe": "komet"})
    assert getattr(refused.value, "code", None) == "decide_swap"


def test_determinize_keeps_the_own_teams_signals_and_drops_the_others() -> None:
    from libs.rules.rng import SeededRng

    state = team_state()
    state = apply(state, 1, {"signal": "viel", "farbe": "komet"}).position.state
    state = apply(state, 2, {"signal": "brauche", "farbe": "nebel"}).position.state
    mine = ENGINE.determinize(MODULE.view(state, 0), 0, SeededRng(b"d"))
    assert mine.signals == ((), (), (("brauche", 1),), ())
    theirs = ENGINE.determinize(MODULE.view(state, 3), 3, SeededRng(b"d"))
    assert theirs.signals == ((), (("viel", 0),), (), ())
    assert MODULE.view(mine, 0) == MODULE.view(state, 0) and MODULE.view(theirs, 3) == MODULE.view(state, 3)
