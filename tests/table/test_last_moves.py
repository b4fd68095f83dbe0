"""The view's `last_moves`: per seat, what its latest turn did (the effects of its moves since another seat last
made a move it had to make), as the viewer may read it. Boards mark an opponent's last move from it."""

from __future__ import annotations

from typing import Any

import pytest

from libs.platform.envelope import EventType
from libs.rules.engine import audience_of
from services.table.event_store import StoredEvent
from services.table.records import TURN_MOVES, replay
from services.table.views import game_view
from tools.replay_bench import GAMES, play_game


@pytest.fixture(scope="module")
async def logs() -> dict[str, list[StoredEvent]]:
    """One finished 4-seat game per rule module (Speedmosaik's three workshops each)."""
    return {label: await play_game(game, settings, 5) for label, game, settings in GAMES}


def turns_from_the_log(events: list[StoredEvent]) -> dict[int, tuple[int, list[list[dict[str, Any]]]]]:
    """Each seat's latest turn read off the log itself: a seat's moves run on while the moves between them were
    answers (folded positions tell who had to move)."""
    record = replay(events[:1])
    turns: dict[int, tuple[int, list[list[dict[str, Any]]]]] = {}
    had_to_move: int | None = None
    for stored in events[1:]:
        event = stored.event
        if event.type == EventType.MOVE_MADE:
            seat = int(event.data["seat"])
            decision = record.position.decision_of(seat)
            record = record.fold(stored)
            effects = record.last_effects
            if seat in turns and had_to_move == seat:
                turns[seat] = (event.n, [*turns[seat][1], list(effects)][-TURN_MOVES:])
            else:
                turns[seat] = (event.n, [list(effects)])
            if decision is not None and decision.must:
                had_to_move = seat
        else:
            record = record.fold(stored)
    return turns


@pytest.mark.parametrize("label", [label for label, _, _ in GAMES])
async def test_every_seat_sees_each_seats_latest_turn_and_a_spectator_only_its_public_part(
        logs: dict[str, list[StoredEvent]], label: str) -> None:
    events = logs[label]
    for cut in (len(events) // 3, len(events) // 2, len(events) - 1):
        record = replay(events[:cut])
        expected = turns_from_the_log(events[:cut])
        for viewer in [None, *range(len(record.seats))]:
            shown = game_view(record, viewer)["last_moves"]
            assert len(shown) == len(record.seats)
            for seat, turn in enumerate(shown):
                if seat not in expected:
                    assert turn is None
                    continue
                n, moves = expected[seat]
                assert turn is not None and turn["n"] == n
                visible = [effect for effects in moves for effect in effects
                           if (audience := audience_of(effect)) is None or (viewer is not None and viewer in audience)]
                assert turn["effects"] == visible, f"{label} at {cut}: seat {seat} as seen by {viewer}"
                assert all(audience_of(effect) is None for effect in (turn["effects"] if viewer is None else []))


async def test_a_turn_of_several_moves_is_shown_whole(logs: dict[str, list[StoredEvent]]) -> None:
    """Speedspore: a turn is a roll, builds, trades and its end; the last move alone would show only the end."""
    record = replay(logs["speedspore"])
    lengths = [len(turn.effects) for turn in record.turns if turn is not None]
    assert max(lengths) > 1
    assert all(length <= TURN_MOVES for length in lengths)


async def test_folding_on_and_replaying_give_the_same_turns(logs: dict[str, list[StoredEvent]]) -> None:
    events = logs["speedmosaik/kachelwand"]
    record = replay(events[: len(events) // 2])
    for stored in events[len(events) // 2:]:
        record = record.fold(stored)
    assert record.turns == replay(events).turns
