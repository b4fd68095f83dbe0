"""Every game's home declaration (``GameSpec.home``) is one the services can play: modes, stages, badges.

Checked for every registered module and the tiny test game, so a new game's modes and badges are checked
the day it is registered. See docs/rules/protocol.md, "A player's home".
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from libs.rules.engine import Engine
from libs.rules.home import BOT_LEVELS, Finished, Home, ListKey, SoloMode, list_key
from libs.rules.protocol import ConfigError, RuleModule
from libs.rules.speedmosaik.home import DAILY, MASTERPIECE_POINTS
from tests.rules import tinygame
from tests.rules.helpers import case_id, every_module, play_random_game, playable

MODULES = [module for module in every_module() if module.spec.home.modes or module.spec.home.badges]
BY_ID = {module.rules_id: module for module in MODULES}


def _module(rules_id: str) -> RuleModule:
    return BY_ID[rules_id]


def _seat_counts(mode: SoloMode) -> list[int]:
    return [1 + count for count in mode.opponents]


def test_the_games_with_a_home_are_checked() -> None:
    assert {module.game for module in MODULES} >= {"speedmosaik", "tinygame"}


@pytest.mark.parametrize("rules_id", sorted(BY_ID))
def test_keys_are_unique_and_json_describes_every_mode_and_badge(rules_id: str) -> None:
    home = _module(rules_id).spec.home
    assert len({mode.key for mode in home.modes}) == len(home.modes)
    assert len({badge.key for badge in home.badges}) == len(home.badges)
    described = _module(rules_id).spec.to_json()["home"]
    assert [mode["key"] for mode in described["modes"]] == [mode.key for mode in home.modes]
    assert [badge["key"] for badge in described["badges"]] == [badge.key for badge in home.badges]
    for badge in home.badges:
        assert (badge.earned is None) != (badge.streak is None), f"{badge.key}: a game check or a streak"
        assert badge.title and badge.description and badge.book


@pytest.mark.parametrize("rules_id", sorted(BY_ID))
def test_fixed_settings_and_stages_are_playable_with_their_seat_counts(rules_id: str) -> None:
    module = _module(rules_id)
    engine = Engine(module)
    for mode in module.spec.home.modes:
        assert mode.opponents and mode.bot_levels and mode.list_order
        assert set(mode.bot_levels) <= set(BOT_LEVELS)
        if mode.settings is not None:
            for seats in _seat_counts(mode):
                engine.normalize_config(dict(mode.settings), seats)  # raises ConfigError if refused
        numbers = [stage.number for stage in mode.stages]
        assert numbers == list(range(1, len(numbers) + 1)), f"{mode.key}: stages numbered 1..n"
        for stage in mode.stages:
            assert stage.opponents and set(stage.opponents) <= set(BOT_LEVELS)
            engine.normalize_config(dict(stage.settings), 1 + len(stage.opponents))
        assert not (mode.daily and mode.is_campaign), f"{mode.key}: a daily campaign is not defined"


@pytest.mark.parametrize("rules_id", sorted(BY_ID))
def test_streak_badges_name_a_daily_mode(rules_id: str) -> None:
    home = _module(rules_id).spec.home
    for badge in home.badges:
        if badge.streak is not None:
            mode = home.mode(badge.streak.mode)
            assert mode is not None and mode.daily and badge.streak.days >= 2


CASES = [pytest.param(module.rules_id, config, seats, id=case_id(module, config, seats))
         for module in MODULES for config, seats in playable(module)]


@pytest.mark.parametrize(("rules_id", "config", "seats"), CASES)
def test_badge_checks_and_list_keys_answer_for_every_seat_of_finished_games(rules_id: str, config: dict[str, object],
                                                                           seats: int) -> None:
    module = _module(rules_id)
    home = module.spec.home
    game = play_random_game(module, config, seats, b"home-seed", b"home-moves", undo=False)
    outcome = module.outcome(game.final_position.state)
    all_seats = tuple({"kind": "human" if seat == 0 else "bot", "level": None if seat == 0 else "normal"}
                      for seat in range(seats))
    for seat in range(seats):
        finished = Finished(config=config, state=game.final_position.state, outcome=outcome, seat=seat,
                            seats=all_seats, mode=None)
        earned = home.earned(finished)
        assert set(earned) <= {badge.key for badge in home.badges if badge.earned is not None}
        if seat != 0:  # a computer's seat in a game with one human: no solo-only badge, it has another human
            assert all(not badge.solo_only for badge in home.badges if badge.key in earned)
        for mode in home.modes:
            key = list_key(outcome, seat, mode.list_order)
            assert all(isinstance(part, int) for part in key) and key


def test_list_keys_follow_the_declared_order() -> None:
    module = tinygame.MODULE
    game = play_random_game(module, {"variante": "einzeln"}, 2, b"keys", b"keys-moves", undo=False)
    outcome = module.outcome(game.final_position.state)
    assert list_key(outcome, 1, (ListKey.SCORE, ListKey.TIE_BREAK)) == (outcome.scores[1], outcome.tie_break[1])
    assert list_key(outcome, 1, (ListKey.RANK,)) == outcome.rank_key(1)
    assert list_key(outcome, 0, (ListKey.SCORE,)) == (outcome.scores[0],)


def test_solo_only_badges_need_a_game_without_other_humans() -> None:
    module = tinygame.MODULE
    finished_games = [play_random_game(module, {"variante": "einzeln"}, 2, bytes([n]) * 8, b"m", undo=False)
                      for n in range(12)]
    trick_game = next(game for game in finished_games if game.final_position.state.tricks[0] >= 1)
    state = trick_game.final_position.state
    outcome = module.outcome(state)
    alone = ({"kind": "human"}, {"kind": "bot", "level": "easy"})
    together = ({"kind": "human"}, {"kind": "human"})
    assert "erster_stich" in module.spec.home.earned(Finished({}, state, outcome, 0, alone, "frei"))
    assert "erster_stich" not in module.spec.home.earned(Finished({}, state, outcome, 0, together, None))


def test_speedmosaik_declares_the_tageswerkstatt_and_its_badges() -> None:
    home: Home = next(module for module in MODULES if module.game == "speedmosaik").spec.home
    assert home.default_mode is not None and home.default_mode.key == "solo"
    assert DAILY.daily and DAILY.settings == {"workshop": "kachelwand", "wall": "fest", "jokers": "ohne"}
    assert DAILY.opponents == (1,) and DAILY.bot_levels == ("normal",)
    assert {badge.key for badge in home.badges} == {"meisterstueck", "werkstatt_serie"}
    with pytest.raises(ConfigError):
        Engine(next(module for module in MODULES if module.game == "speedmosaik")).normalize_config(
            dict(DAILY.settings or {}), 1)  # the daily mode is never played without its computer
    assert MASTERPIECE_POINTS == 50


def test_meisterstueck_is_earned_from_fifty_points_in_a_solo_game() -> None:
    module = next(module for module in MODULES if module.game == "speedmosaik")
    config = {"workshop": "kachelwand", "wall": "fest", "jokers": "ohne"}
    game = play_random_game(module, config, 2, b"meister", b"meister-moves", undo=False)
    state, outcome = game.final_position.state, module.outcome(game.final_position.state)
    alone = ({"kind": "human"}, {"kind": "bot", "level": "normal"})
    for points, expected in ((MASTERPIECE_POINTS - 1, False), (MASTERPIECE_POINTS, True)):
        scored = replace(outcome, scores=(points, *outcome.scores[1:]))
        finished = Finished(config, state, scored, 0, alone, "solo")
        assert ("meisterstueck" in module.spec.home.earned(finished)) is expected
    with_human = ({"kind": "human"}, {"kind": "human"})
    scored = replace(outcome, scores=(MASTERPIECE_POINTS, *outcome.scores[1:]))
    assert "meisterstueck" not in module.spec.home.earned(Finished(config, state, scored, 0, with_human, None))
