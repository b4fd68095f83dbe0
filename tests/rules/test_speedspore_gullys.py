"""Speedspore's Gullys (issue 24, point 5): since ``speedspore@2`` the nine Gullys stand on the published frame
positions, and the Einsteiger island has the published beginner board's Gullys; ``speedspore@1`` keeps its own
positions and table so that its logs replay as they were written.

The published base board (the public implementation catanatron's base map, its frame's port positions; the
beginner board with its harbours as PyCatan2 lists it) in our words: the frame's 18 sea hexes around the island
alternate between a harbour and open sea, and the harbours sit three to a third of the coast, turned by 120°
from each other. Resources map to our kinds as the decisions file maps the fields: wood (forest) → Totholz,
brick (hills) → Humus, wool (pasture) → Moos, grain (fields) → Regenwasser, ore (mountains) → Mineralien.
"""

from __future__ import annotations

import math

import pytest

from libs.rules import registry
from libs.rules.evolve import evolve
from libs.rules.rng import SeededRng
from libs.rules.speedspore import MODULE, MODULE_V1
from libs.rules.speedspore.board import (
    COAST_EDGES,
    CORNER_FIELDS,
    CORNER_NEIGHBOURS,
    CORNER_POINTS,
    EDGE_CORNERS,
    FIELD_CENTRES,
    GULLY_EDGES,
    gully_frame,
)
from libs.rules.speedspore.building import rates
from libs.rules.speedspore.island import EINSTEIGER_FIELDS, EINSTEIGER_NUMBERS, layout
from libs.rules.speedspore.material import (
    ANY,
    FIELD_KINDS,
    GULLY_STOCK,
    HUMUS,
    MINERALIEN,
    MOOS,
    REGENWASSER,
    TOTHOLZ,
)
from libs.rules.speedspore.state import SporeState
from libs.rules.speedspore.view import state_from_view

EINSTEIGER = {"siegpunkte": 10, "wuerfel": "zufall", "insel": "einsteiger"}

PUBLISHED_EINSTEIGER: tuple[tuple[tuple[int, int], tuple[str, ...], int], ...] = (
    ((1, 5), ("stadion 2", "park 9"), REGENWASSER),     # top: between Moosstadion 2 and Park 9
    ((10, 15), ("park 9", "deponie 10"), MINERALIEN),   # upper right
    ((26, 32), ("ruine 8",), ANY),                      # right: Hochhausruine 8
    ((42, 46), ("stadion 5", "stadion 11"), MOOS),      # lower right
    ((49, 52), ("klaerwerk 6", "stadion 11"), ANY),     # bottom
    ((47, 51), ("deponie 5",), ANY),                    # bottom left: Deponie 5
    ((33, 38), ("klaerwerk 9", "park 8"), HUMUS),       # lower left
    ((11, 16), ("klaerwerk 12", "klaerwerk 9"), TOTHOLZ),  # upper left
    ((0, 3), ("ruine 10",), ANY),                       # top left: Hochhausruine 10
)
"""The published beginner board's harbours in our words, clockwise from the top: the corners of the coast edge
each Gully stands on, the land fields it faces (kind and number) and its kind (-1: 3:1)."""


def _field_name(field: int) -> str:
    return f"{FIELD_KINDS[EINSTEIGER_FIELDS[field]]} {EINSTEIGER_NUMBERS[field]}"


def _sea_hex(edge: int) -> tuple[int, int]:
    """Return the centre of the frame's sea hex on the far side of a coast edge (the land field mirrored)."""
    a, b = EDGE_CORNERS[edge]
    (field,) = set(CORNER_FIELDS[a]) & set(CORNER_FIELDS[b])
    (fx, fy), (ax, ay), (bx, by) = FIELD_CENTRES[field], CORNER_POINTS[a], CORNER_POINTS[b]
    return ax + bx - fx, ay + by - fy


def _frame_ring() -> list[tuple[int, int]]:
    """Return the 18 sea hexes of the frame, clockwise from the top."""
    ring: list[tuple[int, int]] = []
    for edge in COAST_EDGES:
        sea = _sea_hex(edge)
        if sea not in ring:
            ring.append(sea)
    return ring


def _neighbouring(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return (abs(a[0] - b[0]), abs(a[1] - b[1])) in ((2, 0), (1, 3))


def _rotated(point: tuple[int, int], turns: int) -> tuple[float, float]:
    """Return a point (board units) turned by ``turns`` × 120° around the centre, in real coordinates."""
    x, y = point[0] * math.sqrt(3) / 2, point[1] / 2
    angle = turns * 2 * math.pi / 3
    return x * math.cos(angle) - y * math.sin(angle), x * math.sin(angle) + y * math.cos(angle)


def test_the_frame_has_18_sea_hexes_and_version_2_puts_a_gully_on_every_other_one() -> None:
    ring = _frame_ring()
    assert len(ring) == 18
    assert all(_neighbouring(ring[i], ring[(i + 1) % 18]) for i in range(18))
    seas = sorted(ring.index(_sea_hex(edge)) for edge in GULLY_EDGES[2])
    assert seas == list(range(0, 18, 2))  # alternating: gully, open sea, gully, …
    assert not any(_neighbouring(_sea_hex(a), _sea_hex(b)) for a in GULLY_EDGES[2] for b in GULLY_EDGES[2])
    # version 1 (kept for its logs) had three pairs of neighbouring gullys, which the frame cannot have
    pairs = {frozenset((a, b)) for a in GULLY_EDGES[1] for b in GULLY_EDGES[1]
             if a != b and _neighbouring(_sea_hex(a), _sea_hex(b))}
    assert len(pairs) == 3
    assert len(set(GULLY_EDGES[1]) & set(GULLY_EDGES[2])) == 3


def test_each_gully_serves_two_coast_corners_and_no_two_gullys_are_neighbours() -> None:
    frame = gully_frame(GULLY_EDGES[2])
    assert len(frame.edges) == len(set(frame.edges)) == 9
    for edge, (a, b) in zip(frame.edges, frame.corners, strict=True):
        assert edge in COAST_EDGES and EDGE_CORNERS[edge] == (a, b)
        assert len(CORNER_FIELDS[a]) < 3 and len(CORNER_FIELDS[b]) < 3  # both on the coast of the island
        assert frame.corner_gully[a] == frame.corner_gully[b] == frame.edges.index(edge)
    served = [corner for pair in frame.corners for corner in pair]
    assert len(served) == len(set(served)) == 18
    assert sum(1 for gully in frame.corner_gully if gully != -1) == 18
    for corner in served:  # no corner of one gully is a neighbour of a corner of another
        assert all(frame.corner_gully[other] in (-1, frame.corner_gully[corner]) for other in CORNER_NEIGHBOURS[corner])


def test_the_published_frame_turns_into_itself_by_120_degrees() -> None:
    def midpoint(edge: int, turns: int) -> tuple[float, float]:
        a, b = (_rotated(CORNER_POINTS[corner], turns) for corner in EDGE_CORNERS[edge])
        return round((a[0] + b[0]) / 2, 6) + 0.0, round((a[1] + b[1]) / 2, 6) + 0.0

    frame = {midpoint(edge, 0) for edge in GULLY_EDGES[2]}
    assert {midpoint(edge, 1) for edge in GULLY_EDGES[2]} == frame
    assert {midpoint(edge, 2) for edge in GULLY_EDGES[2]} == frame


def test_einsteiger_has_the_published_beginner_gullys_in_version_2() -> None:
    state = MODULE.setup(EINSTEIGER, 3, b"x")
    frame = gully_frame(state.gully_edges)
    found = tuple((frame.corners[gully], frozenset(_field_name(field) for corner in frame.corners[gully]
                                                   for field in CORNER_FIELDS[corner]), kind)
                  for gully, kind in enumerate(state.gullys))
    assert found == tuple((corners, frozenset(fields), kind) for corners, fields, kind in PUBLISHED_EINSTEIGER)
    assert sorted(state.gullys) == sorted(GULLY_STOCK)
    view = MODULE.view(state, None)
    assert [gully["art"] for gully in view["gullys"]] == [
        "regenwasser", "mineralien", "3:1", "moos", "3:1", "3:1", "humus", "totholz", "3:1"]


def test_the_issues_example_corner_1_trades_regenwasser_2_to_1_and_corner_0_3_to_1() -> None:
    engine = registry.engine(registry.latest("speedspore").rules_id)
    state = engine.start(EINSTEIGER, 3, b"x").state
    assert isinstance(state, SporeState)
    on_1 = _with_building(state, 1)
    assert rates(on_1, 0) == (4, 4, 4, 2, 4)  # Regenwasser 2:1 only
    on_0 = _with_building(state, 0)
    assert rates(on_0, 0) == (3, 3, 3, 3, 3)
    old = MODULE_V1.setup(EINSTEIGER, 3, b"x")  # version 1, as its logs were played
    assert rates(_with_building(old, 1), 0) == (3, 3, 3, 3, 3) and rates(_with_building(old, 0), 0) == (4,) * 5


def _with_building(state: SporeState, corner: int) -> SporeState:
    owners = list(state.corner_owner)
    owners[corner] = 0
    levels = list(state.corner_level)
    levels[corner] = 1
    return evolve(state, corner_owner=tuple(owners), corner_level=tuple(levels))


def test_version_1_keeps_its_positions_and_its_einsteiger_table() -> None:
    state = MODULE_V1.setup(EINSTEIGER, 3, b"x")
    assert state.gully_edges == GULLY_EDGES[1] == tuple(COAST_EDGES[i] for i in (0, 3, 6, 10, 13, 16, 20, 23, 26))
    assert gully_frame(state.gully_edges).corners[:2] == ((1, 5), (6, 10))
    assert state.gullys == (ANY, MOOS, ANY, ANY, HUMUS, TOTHOLZ, ANY, REGENWASSER, MINERALIEN)
    assert MODULE_V1.view(state, 0)["regeln"] == "speedspore@1"


@pytest.mark.parametrize("seed", [b"insel-1", b"insel-2", b"insel-3"])
def test_zufall_shuffles_only_the_kinds_onto_the_published_positions(seed: bytes) -> None:
    new = MODULE.setup({"insel": "zufall"}, 4, seed)
    old = MODULE_V1.setup({"insel": "zufall"}, 4, seed)
    assert new.gully_edges == GULLY_EDGES[2] and old.gully_edges == GULLY_EDGES[1]
    assert sorted(new.gullys) == sorted(GULLY_STOCK)
    assert (new.fields, new.numbers, new.gullys) == (old.fields, old.numbers, old.gullys)  # drawn as before
    assert (new.fields, new.numbers, new.gullys) == layout("zufall", seed, 2)


def test_new_games_take_version_2_and_version_1_stays_registered() -> None:
    assert registry.latest("speedspore") is MODULE and MODULE.rules_id == "speedspore@2"
    assert registry.get("speedspore@1") is MODULE_V1
    assert [module.rules_id for module in registry.latest_modules() if module.game == "speedspore"] == ["speedspore@2"]


@pytest.mark.parametrize("module", [MODULE_V1, MODULE], ids=lambda module: module.rules_id)
def test_a_seat_s_view_and_its_determinized_state_keep_the_gully_positions(module: object) -> None:
    assert module is MODULE or module is MODULE_V1
    state = module.setup(EINSTEIGER, 3, b"view")
    view = module.view(state, 1)
    assert [gully["kante"] for gully in view["gullys"]] == list(state.gully_edges)
    assert [tuple(gully["ecken"]) for gully in view["gullys"]] == list(gully_frame(state.gully_edges).corners)
    world = state_from_view(view, 1, SeededRng(b"d", "test"))
    assert world.gully_edges == state.gully_edges and world.gullys == state.gullys
    assert rates(world, 1) == rates(state, 1)
