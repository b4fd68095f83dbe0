"""Speedkoi's promise 6 (issue 11): Freie Partie, Tagesgarten, Gärten-Reise and the Gartenbuch's 20 stamps."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from typing import Any

from libs.rules.home import Finished, ListKey
from libs.rules.speedkoi import MODULE
from libs.rules.speedkoi.home import DAILY, FREE, GARDENS, JOURNEY, STAMPS
from libs.rules.speedkoi.setup import new_game
from tests.rules.speedkoi_builders import ENGINE, board, position

LEVEL = {"easy": 0, "normal": 1, "strong": 2}
ALONE_VS_THREE_STRONG = ({"kind": "human"}, *({"kind": "bot", "level": "strong"},) * 3)


def test_the_modes_the_text_names() -> None:
    home = MODULE.spec.home
    assert [mode.key for mode in home.modes] == ["frei", "tagesgarten", "reise"]
    assert home.default_mode is FREE and FREE.settings is None and FREE.opponents == (1, 2, 3)
    assert DAILY.daily and DAILY.settings == {"spielart": "klassisch"}
    assert DAILY.opponents == (2,) and DAILY.bot_levels == ("strong",)
    assert DAILY.list_order == (ListKey.SCORE, ListKey.TIE_BREAK)


def test_the_daily_garden_deals_the_same_lanterns_tiles_and_start_player_for_everyone() -> None:
    seed = bytes.fromhex("ab" * 32)
    first, second = new_game("klassisch", 3, seed), new_game("klassisch", 3, seed)
    assert (first.hands, first.deck, first.tiles, first.start) == \
        (second.hands, second.deck, second.tiles, second.start)


def test_ten_gardens_with_more_and_stronger_opponents_two_of_them_laternenfest() -> None:
    assert JOURNEY.is_campaign and [garden.number for garden in GARDENS] == list(range(1, 11))
    assert [garden.number for garden in GARDENS if garden.settings["spielart"] == "laternenfest"] == [5, 9]
    for before, after in pairwise(GARDENS):
        assert len(after.opponents) >= len(before.opponents)
        assert sum(LEVEL[level] for level in after.opponents) >= sum(LEVEL[level] for level in before.opponents)
    assert GARDENS[-1].opponents == ("strong", "strong", "strong")
    for garden in GARDENS:
        ENGINE.normalize_config(dict(garden.settings), 1 + len(garden.opponents))


def _strongest_first(levels: tuple[str, ...]) -> list[int]:
    return sorted((LEVEL[level] for level in levels), reverse=True)


def test_the_opponents_never_get_weaker_from_one_garden_to_the_next() -> None:
    """"immer mehr und stärkeren Gegnern": the number of computers never drops, the strongest never gets weaker,
    and (strongest first) no computer is weaker than the one in the same place of the garden before."""
    for before, after in pairwise(GARDENS):
        old, new = _strongest_first(before.opponents), _strongest_first(after.opponents)
        assert len(new) >= len(old), (before.title, after.title)
        assert new[0] >= old[0], (before.title, after.title)
        assert all(mine >= theirs for mine, theirs in zip(new, old, strict=False)), (before.title, after.title)
    assert [garden.opponents for garden in GARDENS] == [
        ("easy",), ("normal",), ("easy", "normal"), ("normal", "normal"), ("normal", "normal"),
        ("normal", "normal", "normal"), ("strong", "normal", "normal"), ("strong", "strong", "normal"),
        ("strong", "strong", "normal"), ("strong", "strong", "strong")]


def test_a_garden_is_its_number_and_keeps_its_name_so_kept_progress_keeps_its_meaning() -> None:
    """Progress is stored as the numbers of the gardens won (the lobby's ``CampaignWin.stage``): number and name
    are pinned here, a reordering would have to move stored wins with it."""
    assert [(garden.number, garden.title) for garden in GARDENS] == list(enumerate(
        ("Moosgarten", "Bambushain", "Kiesgarten", "Ahornhang", "Laternenufer", "Irisbeet", "Steingarten",
         "Kirschhain", "Mondsee", "Kaisergarten"), start=1))
    assert all(JOURNEY.stage(garden.number) is garden for garden in GARDENS)


def test_the_garden_list_is_no_part_of_the_rules_a_log_replays_with() -> None:
    """A game of the Reise starts with its garden's settings and seats (computers with their levels); the rules see
    only the normalised config and the seat count, both in the log's GameStarted, never the garden list (the
    garden's number rides along in the platform part for the lobby's progress): replay needs nothing of it."""
    for garden in GARDENS:
        config = ENGINE.normalize_config(dict(garden.settings), 1 + len(garden.opponents))
        assert config == ENGINE.normalize_config({"spielart": garden.settings["spielart"]}, 1 + len(garden.opponents))


def test_the_gartenbuch_has_twenty_stamps_the_texts_four_first() -> None:
    assert len(STAMPS) == 20 and len({stamp.key for stamp in STAMPS}) == 20
    assert all(stamp.book == "Gartenbuch" and stamp.solo_only and stamp.earned for stamp in STAMPS)
    assert [stamp.title for stamp in STAMPS[:4]] == ["Meister auf dem Endstein", "Fünf Perlen", "Keine Figur im Minus",
                                                     "Gegen drei Computer „stark“ gewonnen"]


def _finished(state: Any, seats: tuple[dict[str, Any], ...], mode: str | None = "frei") -> Finished:
    return Finished(config={"spielart": state.spielart}, state=state, outcome=ENGINE.outcome(position(state)),
                    seat=0, seats=seats, mode=mode)


def test_the_texts_stamps_are_earned_from_the_finished_game() -> None:
    state = board(seats=4, stones={0: {"gold": 9, "jade": 8, "silber": 7}}, masters={0: "gold"},
                  taken=((5, 0, 0, 0, 0),) + ((0, 0, 0, 0, 0),) * 3, phase="ende", end_reason="stapel")
    earned = set(MODULE.spec.home.earned(_finished(state, ALONE_VS_THREE_STRONG)))
    assert {"meister_endstein", "fuenf_perlen", "keine_figur_im_minus", "drei_starke", "erster_sieg"} <= earned
    # Master Gold 9 = 20, Jade 8 = 7, Silber 7 = 6, five pearls = 10: 43 points, one figure on an end stone.
    assert "bluehender_garten" in earned and "prachtgarten" not in earned and "drei_endsteine" not in earned
    minus = replace(state, stones=((9, 1, 8, 7, 0), *state.stones[1:]))
    assert "keine_figur_im_minus" not in MODULE.spec.home.earned(_finished(minus, ALONE_VS_THREE_STRONG))
    with_human = ({"kind": "human"}, {"kind": "human"}, *({"kind": "bot", "level": "strong"},) * 2)
    assert MODULE.spec.home.earned(_finished(state, with_human)) == ()
    mixed = ({"kind": "human"}, {"kind": "bot", "level": "normal"}, *({"kind": "bot", "level": "strong"},) * 2)
    assert "drei_starke" not in MODULE.spec.home.earned(_finished(state, mixed))


def test_the_projects_stamps_read_the_final_state_outcome_and_mode() -> None:
    state = board(seats=3, spielart="laternenfest", stones={0: {"gold": 6}, 1: {"gold": 5}},
                  teahouse=(6, 0, 0), blossoms=(6, 0, 0), taken=((0, 3, 0, 0, 0),) + ((0, 0, 0, 0, 0),) * 2,
                  phase="ende", end_reason="ziel", ended_by=0)
    seats = ({"kind": "human"}, {"kind": "bot", "level": "strong"}, {"kind": "bot", "level": "strong"})
    earned = set(MODULE.spec.home.earned(_finished(state, seats, "tagesgarten")))
    assert {"bluetenregen", "libellenschwarm", "ohne_perlen", "pilgerreise", "schlussstein", "teezeremonie",
            "tagesgaertner", "erster_sieg"} <= earned
    assert "tagesgaertner" not in MODULE.spec.home.earned(_finished(state, seats, "frei"))
