"""Kirchenfenster end scoring, ranking, view and preview, one sentence per test."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from libs.rules.rng import SeededRng
from libs.rules.speedmosaik import MODULE
from libs.rules.speedmosaik.kirchenfenster.scoring import (
    apply_end_scoring,
    end_lines,
    final_outcome,
    palace_lines,
    pillar_points,
)
from libs.rules.speedmosaik.kirchenfenster.state import Board, PendingWindow
from tests.rules.helpers import play_random_game
from tests.rules.kirchenfenster_builders import board, plenty_bag, strip, table

B, G, N, R, V = "blau", "gelb", "gruen", "rot", "violett"


def _windows(**filled: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    return tuple(filled.get(f"f{number}", ()) for number in range(1, 9))


def _ended(*boards: Board) -> tuple[Board, ...]:
    return tuple(apply_end_scoring(b, "saeulen") for b in boards)


def _finished(boards: tuple[Board, ...], palace: str = "saeulen") -> tuple[Board, ...]:
    state = table(boards, factories=((), (), (), (), ()), centre=(R,), round_number=6, palace=palace, bag=plenty_bag())
    # Seat 0 takes the last pane of round 6 to the far right, where red breaks on no strip of these boards.
    after, _ = MODULE.apply(state, 0, {"aktion": "nehmen", "source": "mitte", "farbe": R, "streifen": 0})
    assert MODULE.is_over(after)
    return tuple(after.boards)


# --- palace side "Säulen" ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("fields", "points"), [(0, 0), (1, 0), (2, 3), (3, 6), (4, 10)])
def test_a_pillar_scores_10_6_3_for_four_three_two_frame_fields(fields: int, points: int) -> None:
    panes = [B] * fields
    windows = _windows(f3=tuple(panes[:2]), f4=tuple(panes[2:]))
    assert pillar_points(windows, 1) == points


def test_each_pair_of_neighbouring_windows_frames_one_of_the_four_pillars() -> None:
    windows = _windows(f1=(B, B), f2=(G, G), f3=(R,), f4=(N, N), f6=(V,), f7=(B,), f8=(G,))
    lines = palace_lines(windows, "saeulen")
    assert [line.points for line in lines] == [10, 6, 0, 3]
    assert lines[0].label == "Säule 1 (Fenster 1 und 2): 4 von 4 Rahmenfeldern"


# --- palace side "Fensterfarbe" ----------------------------------------------------------------------------


def test_window_colour_side_scores_full_windows_times_the_most_frequent_colour() -> None:
    windows = _windows(f1=(B, B), f2=(B, G), f5=(R, B), f8=(G,))
    (line,) = palace_lines(windows, "fensterfarbe")
    assert line.points == 3 * 4
    assert line.label == "Fensterfarbe: 3 volle Fenster × 4 Blau"


def test_window_colour_side_without_full_windows_scores_nothing() -> None:
    (line,) = palace_lines(_windows(f1=(B,), f2=(B,)), "fensterfarbe")
    assert line.points == 0


# --- the end scoring and the ranking ------------------------------------------------------------------------


def test_one_point_per_three_panes_still_on_the_strips() -> None:
    loaded = board(strips={1: strip(B, B, B), 2: strip(G, G), 5: strip(N, N, B, B)}, glasermeister=8)
    lines = end_lines(loaded, "saeulen")
    assert (lines[0].label, lines[0].points) == ("Scheiben auf den Streifen: 9 ÷ 3", 3)


def test_the_whole_breakage_is_subtracted_at_the_end_wraps_included() -> None:
    broken = board(breakage_field=4, breakage_wraps=1, glasermeister=8)
    line = end_lines(broken, "saeulen")[1]
    assert line.points == -23
    assert line.label == "Glasbruch: 1 × ganz unten (−18), Leiste −5"


def test_the_outcome_lines_add_up_to_the_score_and_show_every_part() -> None:
    me = board(
        strips={1: strip(B, B, B)},
        glasermeister=8,
        windows={1: (B, B), 2: (G,)},
        breakage_field=3,
        bonus_points=4,
        window_points=17,
    )
    other = board(glasermeister=8, window_points=30)
    boards = _finished((me, other))
    outcome = final_outcome(boards)
    labels = [line.label for line in outcome.lines[0]]
    assert labels[:4] == [
        "Bonusfarben auf vollen Streifen",
        "Fensterpunkte",
        "Scheiben auf den Streifen: 3 ÷ 3",
        "Glasbruch: 0 × ganz unten (−18), Leiste −7",  # field 4, then the start tile and the red pane broke
    ]
    assert len(labels) == 8  # 4 pillars
    for score, lines in zip(outcome.scores, outcome.lines, strict=True):
        assert sum(line.points for line in lines) == score
    assert outcome.scores[0] == 4 + 17 + 1 - 7 + 6


def test_a_tie_goes_to_the_player_who_lost_fewer_points_to_breakage() -> None:
    careful = board(glasermeister=8, window_points=20, breakage_field=1)
    clumsy = board(glasermeister=8, window_points=21, breakage_field=2)
    outcome = final_outcome(_ended(careful, clumsy))
    assert outcome.scores[0] == outcome.scores[1] == 19
    assert outcome.places == (1, 2)
    assert outcome.tie_break == (-1, -2)
    assert outcome.summary.text == "Platz 1 gewinnt mit 19 Punkten."


def test_a_wrap_counts_its_eighteen_in_the_tie_break() -> None:
    wrapped = board(glasermeister=8, window_points=40, breakage_wraps=1)
    steady = board(glasermeister=8, window_points=36, breakage_field=8)
    outcome = final_outcome(_ended(wrapped, steady))
    assert outcome.scores == (22, 22)
    assert outcome.places == (2, 1)


def test_equal_score_and_equal_breakage_share_the_place() -> None:
    same = board(glasermeister=8, window_points=10)
    outcome = final_outcome(_ended(same, same, board(glasermeister=8)))
    assert outcome.places == (1, 1, 3)
    assert outcome.leaderboard_points == (40, 40, 5)
    assert "teilen sich den ersten Platz" in outcome.summary.text


def test_scores_may_go_negative_while_the_leaderboard_counts_at_least_zero() -> None:
    wrecked = board(glasermeister=8, breakage_wraps=2, breakage_field=3)
    fine = board(glasermeister=8, window_points=5)
    outcome = final_outcome(_ended(wrecked, fine))
    assert outcome.scores == (-39, 5)
    assert outcome.leaderboard_points == (15, 35)


# --- view, preview and determinization ---------------------------------------------------------------------


def test_the_view_shows_everything_the_screen_shows_and_nothing_hidden() -> None:
    state = MODULE.setup({"workshop": "kirchenfenster", "palace": "fensterfarbe"}, 3, b"view")
    view = MODULE.view(state, 2)
    assert {
        "schalen",
        "mitte",
        "startstein",
        "bonusfarben",
        "bonusfarbe",
        "beutel",
        "glasturm",
        "fensterwahl",
        "fensterwerte",
        "glasbruch_leiste",
        "streifenmuster",
        "spieler",
        "phase",
    } <= set(view)
    player = view["spieler"][2]
    assert player["glasermeister"] == 1 and len(player["streifen"]) == 8 and len(player["fenster"]) == 8
    assert player["glasbruch"] == {"feld": 1, "wert": 0, "umlaeufe": 0, "verloren": 0}
    assert player["streifen"][0] == {
        "streifen": 1,
        "seite": 1,
        "fertig": False,
        "muster": [B, B, B, G, G],
        "felder": [None] * 5,
        "scheiben": 0,
        "voll": False,
    }
    assert view["beutel"] == {"anzahl": 100 - 28}
    text = json.dumps(view)
    assert b"view".hex() not in text


def test_the_preview_shows_targets_breakage_a_full_strip_and_its_points() -> None:
    me = board(strips={3: strip(R, R, R, V)}, glasermeister=3, windows={6: (G,)})
    state = table((me, board()), factories=((V, V, R, G), (), (), (), (B,)), round_number=4)
    preview = MODULE.preview(state, 0, {"aktion": "nehmen", "source": "schale", "schale": 1, "farbe": V, "streifen": 3})
    assert preview["erreichbar"] == [
        {"streifen": 3, "platz_fuer": 1},
        {"streifen": 4, "platz_fuer": 3},
        {"streifen": 7, "platz_fuer": 2},
        {"streifen": 8, "platz_fuer": 1},
    ]
    assert (preview["eingesetzt"], preview["zerbricht"], preview["streifen_voll"]) == (1, 1, True)
    assert preview["wertung"]["bonusfarbe"] == {"farbe": N, "anzahl": 0, "punkte": 0}  # round 4: Grün
    assert preview["wertung"]["punkte"] == 3 + 4
    assert preview["wertung"]["wahl"] == [R, V] and not preview["wertung"]["ohne_nachfrage"]
    assert preview["glasbruch"]["punkte"] == -1
    assert preview["glasermeister"] == {"vorher": 3, "nachher": 3}


def test_determinize_keeps_a_pending_window_choice_and_the_public_table() -> None:
    me = board(strips={1: strip(B, B, B, G, G)})
    visible = Counter({B: 4, G: 3, V: 2, R: 1})
    bag = tuple(colour for colour in (B, G, N, R, V) for _ in range(20 - visible[colour]))
    state = table((me, board()), factories=((V, V, R, G), (), (), (), (B,)), pending=PendingWindow(0, 0), bag=bag)
    view = MODULE.view(state, 1)
    rebuilt = MODULE.determinize(view, 1, SeededRng(b"bot"))
    assert MODULE.view(rebuilt, 1) == view
    assert MODULE.legal_moves(rebuilt, 0) == MODULE.legal_moves(state, 0)


def test_a_random_game_of_each_palace_side_keeps_the_pane_count_at_one_hundred() -> None:
    for palace in ("saeulen", "fensterfarbe"):
        game = play_random_game(MODULE, {"workshop": "kirchenfenster", "palace": palace}, 4, b"count", b"m")
        for state in (game.start, *game.states[::7]):
            panes = len(state.bag) + len(state.tower) + len(state.centre)
            panes += sum(len(f) for f in state.factories)
            for b in state.boards:
                panes += sum(s.pane_count() for s in b.strips) + sum(len(w) for w in b.windows)
            assert panes == 100
