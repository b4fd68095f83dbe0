"""Who plays whom in a quick-match queue (services/lobby/match_groups.py), over random queues: nobody is in two
tables, every table is of like strength and of a size all its players accept, and computers join only players
whose own time for them has come."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from services.lobby.match_groups import Waiting, form_groups, nearest_level

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
COUNTS = st.sampled_from([(2,), (3,), (4,), (2, 3, 4)])


@st.composite
def queues(draw: st.DrawFn) -> list[Waiting]:
    size = draw(st.integers(min_value=0, max_value=30))
    return [Waiting(match_id=f"m{index:02d}", rating=draw(st.integers(min_value=800, max_value=2400)),
                    seat_counts=draw(COUNTS), since=NOW - timedelta(seconds=draw(st.integers(0, 120))),
                    fill_after=draw(st.sampled_from([None, 0, 10, 30, 60])))
            for index in range(size)]


@settings(max_examples=300, deadline=None)
@given(queues())
def test_every_table_is_of_like_strength_and_nobody_sits_twice(queue: list[Waiting]) -> None:
    groups = form_groups(queue, NOW, {"easy": 1100, "normal": 1500, "strong": 1900})

    seated = [human.match_id for group in groups for human in group.humans]
    assert len(seated) == len(set(seated))
    for group in groups:
        ratings = [human.rating for human in group.humans]
        assert max(ratings) - min(ratings) <= min(human.window(NOW) for human in group.humans)
        assert all(group.seat_count in human.seat_counts for human in group.humans)
        assert 0 <= group.computers < group.seat_count
        if group.computers:
            assert all(human.may_fill(NOW) for human in group.humans)
            assert group.bot_level == nearest_level(sum(ratings) / len(ratings),
                                                    {"easy": 1100, "normal": 1500, "strong": 1900})
        else:
            assert len(group.humans) >= 2


def test_a_lone_player_whose_time_has_come_gets_the_nearest_computers() -> None:
    alone = Waiting("m1", 1850, (3,), NOW - timedelta(seconds=31), 30)

    [group] = form_groups([alone], NOW, {"easy": 1100, "normal": 1450, "strong": 1820})

    assert group.seat_count == 3 and group.computers == 2 and group.bot_level == "strong"


def test_players_far_apart_wait_until_their_windows_meet() -> None:
    low = Waiting("m1", 1300, (2,), NOW - timedelta(seconds=5), None)
    high = Waiting("m2", 1700, (2,), NOW - timedelta(seconds=5), None)

    assert form_groups([low, high], NOW, {}) == []
    later = NOW + timedelta(seconds=30)  # ±450 for both
    assert [len(group.humans) for group in form_groups([low, high], later, {})] == [2]


def test_a_range_player_takes_the_largest_table_humans_fill() -> None:
    queue = [Waiting(f"m{index}", 1500 + index, (2, 3, 4), NOW - timedelta(seconds=index), None) for index in range(3)]

    [group] = form_groups(queue, NOW, {})

    assert group.seat_count == 3 and group.computers == 0
