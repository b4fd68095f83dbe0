"""Speedkoi's promise 4 and the leaderboard (issue 11, points 4 and 8): the end, its warning, the scoring."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from libs.rules.protocol import IllegalMove
from libs.rules.speedkoi import scoring
from libs.rules.speedkoi.material import pearl_points
from libs.rules.speedkoi.state import KoiState
from tests.rules.speedkoi_builders import ENGINE, board, play, position, texts

HAND = ["gold 7", "jade 1", "jade 2", "jade 3", "jade 4", "silber 1", "silber 2", "karmin 1"]


def _warned(state: KoiState, seat: int, move: dict[str, Any]) -> IllegalMove:
    """Assert apply refuses the move with code "warning" and changes nothing; return the refusal."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(position(state), seat, move)
    assert refused.value.code == "warning" and state == before
    return refused.value


def _four_in_goal(**changes: Any) -> KoiState:
    """Four figures in the goal area; seat 0's Gold figure on stone 6 would be the fifth."""
    return board(hands={0: HAND}, rows={0: {"gold": [1, 2, 3, 4, 5, 6]}},
                 stones={0: {"gold": 6, "indigo": 7, "jade": 9}, 1: {"indigo": 8, "karmin": 7}},
                 clear_tiles=True, **changes)


def test_the_fifth_figure_in_the_goal_area_is_warned_with_the_standings_after_and_ends_at_once() -> None:
    state = _four_in_goal()
    move = {"aktion": "anlegen", "farbe": "gold", "wert": 7}
    points_after = (scoring.score(state, 0) + 3, scoring.score(state, 1))  # stone 6 (3) → stone 7 (6)
    refused = _warned(state, 0, move)
    assert refused.reason.startswith("Achtung, damit endet die Partie – deine Figur wäre die fünfte im Zielbereich:")
    ordinal = "Erster" if points_after[0] > points_after[1] else "Zweiter"
    assert f"du {scoring.number(points_after[0])}, Platz 2 {scoring.number(points_after[1])} → du würdest {ordinal}" \
        in refused.reason
    preview = ENGINE.preview(position(state), 0, move)
    assert preview["endet"] and preview["warnung"]["text"] == refused.reason
    assert preview["warnung"]["params"]["punkte"] == list(points_after)
    assert {**move, "bestaetigt": True} in ENGINE.legal_moves(position(state), 0)
    after, effects = play(state, 0, {**move, "bestaetigt": True})
    assert ENGINE.is_over(position(after)) and after.end_reason == "ziel" and after.ended_by == 0
    assert texts(effects)[-1] == "Die fünfte Figur steht im Zielbereich: Die Partie ist vorbei."
    assert ENGINE.outcome(position(after)).scores == points_after


def test_a_dragonfly_step_into_the_goal_area_is_warned_too_and_other_moves_are_not() -> None:
    state = _four_in_goal(phase="libelle")
    assert {"aktion": "schritt", "pfad": "gold", "bestaetigt": True} in ENGINE.legal_moves(position(state), 0)
    _warned(state, 0, {"aktion": "schritt", "pfad": "gold"})
    discard = {"aktion": "abwerfen", "farbe": "jade", "wert": 1}
    assert ENGINE.preview(position(_four_in_goal()), 0, discard)["warnung"] is None


def test_drawing_the_last_hidden_lantern_is_warned_and_ends_the_game() -> None:
    state = board(hands={0: HAND}, deck=["indigo 5"], phase="ziehen", piles={"silber": [4]})
    move = {"aktion": "ziehen", "von": "stapel"}
    refused = _warned(state, 0, move)
    assert "du ziehst die letzte verdeckte Laterne" in refused.reason
    assert ENGINE.legal_moves(position(state), 0) == [{**move, "bestaetigt": True},
                                                      {"aktion": "ziehen", "von": "silber"}]
    after, effects = play(state, 0, {**move, "bestaetigt": True})
    assert after.end_reason == "stapel" and ENGINE.is_over(position(after))
    assert texts(effects)[-1] == "Die letzte verdeckte Laterne ist gezogen: Die Partie ist vorbei."
    pile, _ = play(state, 0, {"aktion": "ziehen", "von": "silber"})
    assert not ENGINE.is_over(position(pile))


def test_final_scoring_stones_master_double_negatives_too_pearls_blossoms_teehaus() -> None:
    assert [pearl_points(n) for n in range(8)] == [-4, -3, 2, 3, 6, 10, 10, 10]
    state = board(spielart="laternenfest", stones={0: {"gold": 9, "indigo": 2, "jade": 5}, 1: {"karmin": 1}},
                  masters={0: "indigo", 1: "karmin"}, taken=((2, 0, 1, 0, 0), (0, 0, 0, 0, 0)),
                  blossoms=(3, 0), teahouse=(3, 0), phase="ende", end_reason="stapel")
    outcome = ENGINE.outcome(position(state))
    # Seat 0: Gold 9 = 10, master Indigo 2 = −3 × 2 = −6, Jade 5 = 2, pearls 2 → +2, blossoms 3, Teehaus 3.
    assert outcome.scores == (10 - 6 + 2 + 2 + 3 + 3, -8 - 4)
    labels = [line.label for line in outcome.lines[0]]
    assert labels == ["Pilger Gold: Stein 9 = +10", "Meister Indigo: Stein 2 = −3 × 2 = −6",
                      "Pilger Jade: Stein 5 = +2", "Perlen: 2 → +2", "Kirschblüten: +3", "Teehaus-Bonus: +3"]
    assert [line.label for line in outcome.lines[1]] == ["Meister Karmin: Stein 1 = −4 × 2 = −8", "Perlen: 0 → −4",
                                                         "Kirschblüten: 0", "Teehaus-Bonus: 0"]
    assert all(sum(line.points for line in lines) == score for lines, score in zip(outcome.lines, outcome.scores,
                                                                                   strict=True))
    assert outcome.places == (1, 2) and outcome.tie_break == (2, 0)
    assert outcome.leaderboard_points == (10 * 14 + 50, 0 + 25)
    assert outcome.summary.text == "Platz 1 gewinnt mit 14 Punkten."


def test_ties_go_to_more_pearls_then_share_the_place_and_its_bonus() -> None:
    base = dict(stones={0: {"gold": 7}, 1: {"gold": 7}, 2: {"gold": 7}}, blossoms=(0, 1, 0), phase="ende",
                end_reason="stapel", seats=3)
    # Seat 0: 6 + 2 (2 pearls) = 8; seat 1: 6 − 3 (1 pearl) + 1 = 4 … set pearls so that points tie.
    state = board(**base, taken=((2, 0, 0, 0, 0), (3, 0, 0, 0, 0), (3, 0, 0, 0, 0)))  # type: ignore[arg-type]
    outcome = ENGINE.outcome(position(state))
    assert outcome.scores == (8, 10, 9)
    tied = board(**{**base, "blossoms": (1, 0, 0)},  # type: ignore[arg-type]
                 taken=((2, 0, 0, 0, 0), (2, 0, 0, 0, 0), (0, 0, 0, 0, 0)))
    outcome = ENGINE.outcome(position(tied))
    assert outcome.scores == (9, 8, 2)
    tied = board(**base, taken=((3, 0, 0, 0, 0), (2, 0, 0, 0, 0), (3, 0, 0, 0, 0)),  # type: ignore[arg-type]
                 )
    outcome = ENGINE.outcome(position(tied))
    assert outcome.scores == (9, 9, 9) and outcome.tie_break == (3, 2, 3)
    assert outcome.places == (1, 3, 1)  # seat 1 has fewer pearls; seats 0 and 2 share place 1
    assert outcome.leaderboard_points == (90 + 50, 90 + 10, 90 + 50)
    assert outcome.summary.text == "Platz 1 und Platz 3 teilen sich den ersten Platz mit je 9 Punkten und 3 Perlen."


def test_leaderboard_points_never_go_below_zero_and_place_four_gets_no_bonus() -> None:
    assert scoring.leaderboard_points((-5, 3, 2, 1), (4, 1, 2, 3)) == (0, 80, 45, 20)
    assert scoring.leaderboard_points((-5, -6), (1, 2)) == (50, 25)
