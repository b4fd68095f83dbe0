"""How results become leaderboard points, per game's text (``GameSpec.leaderboard``)."""

from __future__ import annotations

from libs.rules.protocol import PLACE_BONUS, LeaderboardRule, leaderboard_points

NOVA = LeaderboardRule(per_point=10, place_bonus=(50, 25, 10), bonus_needs_more_seats=True)
"""Speednova: 10 per point of the weakest colour, 50 for the win, 25 for place 2 from three players, 10 for
place 3 with four."""


def test_the_default_is_points_at_least_zero_plus_30_15_5() -> None:
    assert PLACE_BONUS[:3] == (30, 15, 5)
    assert leaderboard_points((40, -3, 12, 7), (1, 4, 2, 3)) == (70, 0, 27, 12)
    assert LeaderboardRule().points((9, 9), (1, 1)) == (39, 39)  # a shared place: both get its bonus


def test_a_place_bonus_can_need_more_seats_than_the_place() -> None:
    assert NOVA.points((5, 4), (1, 2)) == (100, 40)  # two players: no bonus for place 2
    assert NOVA.points((5, 4, 3), (1, 2, 3)) == (100, 65, 30)  # from three players: 25 for place 2
    assert NOVA.points((5, 4, 3, 2), (1, 2, 3, 4)) == (100, 65, 40, 20)  # with four: 10 for place 3
    assert NOVA.points((7,), (1,)) == (70,)  # alone: nobody beaten, no win bonus
    assert NOVA.points((5, 5, 1), (1, 1, 3)) == (100, 100, 10)  # tied winners both get 50


def test_per_point_never_goes_below_zero() -> None:
    koi = LeaderboardRule(per_point=10, place_bonus=(50, 25, 10))
    assert koi.points((-6, 12, 3), (3, 1, 2)) == (10, 170, 55)
    assert koi.to_json() == {"per_point": 10, "place_bonus": [50, 25, 10], "bonus_needs_more_seats": False}
