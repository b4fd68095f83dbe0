"""Speedspore rule tests: what a player would notice (issue 12, points 1, 2, 4, 5, 10)."""

from __future__ import annotations

from libs.rules.evolve import evolve
from libs.rules.speedspore import MODULE, rules
from libs.rules.speedspore.board import CORNER_NEIGHBOURS, FIELD_CORNERS, FIELD_NEIGHBOURS
from libs.rules.speedspore.dice import harvest
from libs.rules.speedspore.island import EINSTEIGER_FIELDS, EINSTEIGER_NUMBERS, layout
from libs.rules.speedspore.material import GULLY_STOCK, NUMBER_TOKENS
from libs.rules.speedspore.specials import longest_holder
from libs.rules.speedspore.state import WURF


def _touching(numbers: tuple[int, ...], pred: object) -> bool:
    return any(pred(numbers[a], numbers[b]) for a in range(19) for b in FIELD_NEIGHBOURS[a]  # type: ignore[operator]
               if numbers[a] and numbers[b])


def test_zufall_islands_have_all_pieces_and_no_clashes() -> None:
    for n in range(60):
        fields, numbers, gullys = layout("zufall", b"insel%d" % n, MODULE.version)
        assert sorted(fields) == sorted(EINSTEIGER_FIELDS)
        assert sorted(x for x in numbers if x) == sorted(NUMBER_TOKENS)
        assert sorted(gullys) == sorted(GULLY_STOCK)
        assert not _touching(numbers, lambda a, b: a in (6, 8) and b in (6, 8))
        assert not _touching(numbers, lambda a, b: a == b)


def test_einsteiger_has_no_6_next_to_8_and_is_fixed() -> None:
    assert not _touching(EINSTEIGER_NUMBERS, lambda a, b: a in (6, 8) and b in (6, 8))
    for version in (1, 2):
        assert layout("einsteiger", b"a", version) == layout("einsteiger", b"b", version)


def _found_all(seats: int) -> list[int]:
    state = MODULE.setup({"insel": "einsteiger"}, seats, b"gruendung")
    order = []
    while state.phase != WURF:
        order.append(state.current)
        moves = rules.legal_moves(state, state.current)
        state, _ = rules.apply(state, state.current, moves[0])
    return order[::2]


def test_founding_runs_in_snake_order() -> None:
    assert _found_all(3) == [0, 1, 2, 2, 1, 0]


def test_distance_rule_and_second_fruchtkoerper_yield() -> None:
    state = MODULE.setup({"insel": "einsteiger"}, 2, b"x")
    state, _ = rules.apply(state, 0, {"fruchtkoerper": 20})
    state, _ = rules.apply(state, 0, rules.legal_moves(state, 0)[0])
    for neighbour in CORNER_NEIGHBOURS[20]:
        assert {"fruchtkoerper": neighbour} not in rules.legal_moves(state, 1)
    state, _ = rules.apply(state, 1, {"fruchtkoerper": 40})
    state, _ = rules.apply(state, 1, rules.legal_moves(state, 1)[0])
    assert sum(state.hands[1]) == 0
    state, _ = rules.apply(state, 1, {"fruchtkoerper": 9})  # second: yields
    fields = [f for f in range(19) if 9 in FIELD_CORNERS[f] and state.fields[f] != 5]
    assert sum(state.hands[1]) == len(fields)


def test_shortage_goes_to_nobody_unless_one_seat_is_owed() -> None:
    state = MODULE.setup({"insel": "einsteiger"}, 3, b"x")
    field = EINSTEIGER_NUMBERS.index(12)  # Klärwerk 12 (Regenwasser)
    a, b = FIELD_CORNERS[field][0], FIELD_CORNERS[field][2]
    owners = list(state.corner_owner)
    levels = list(state.corner_level)
    owners[a], owners[b], levels[a], levels[b] = 0, 1, 2, 2
    state = evolve(state, corner_owner=tuple(owners), corner_level=tuple(levels), supply=(19, 19, 19, 3, 19))
    hands, supply, record = harvest(state, 12, (6, 6))
    assert hands[0][3] == 0 and hands[1][3] == 0 and record.short == (3,)
    owners[b], levels[b] = -1, 0
    state = evolve(state, corner_owner=tuple(owners), corner_level=tuple(levels), supply=(19, 19, 19, 1, 19))
    hands, supply, record = harvest(state, 12, (6, 6))
    assert hands[0][3] == 1 and supply[3] == 0 and record.partial == ((3, 0, 2, 1),)


def test_weitestes_geflecht_transfers() -> None:
    assert longest_holder(-1, (5, 4)) == 0
    assert longest_holder(0, (5, 5)) == 0  # ties keep the holder
    assert longest_holder(0, (5, 6)) == 1  # longer takes it
    assert longest_holder(0, (4, 3)) == -1  # below 5
    assert longest_holder(0, (4, 6, 6)) == -1  # several tied in front after a loss: nobody
    assert longest_holder(0, (4, 6, 5)) == 1


def test_random_game_ranks_winner_first() -> None:
    state = MODULE.setup({"siegpunkte": 8}, 2, b"r")
    from libs.rules.rng import SeededRng
    rng = SeededRng(b"m")
    while not MODULE.is_over(state):
        seat = rng.choice(rules.pending(state)).seat
        state, _ = rules.apply(state, seat, rng.choice(rules.legal_moves(state, seat)))
    outcome = MODULE.outcome(state)
    assert outcome.places[state.winner] == 1
    assert outcome.scores[state.winner] >= 8
    assert outcome.leaderboard_points[state.winner] == 5 * outcome.scores[state.winner] + 30
