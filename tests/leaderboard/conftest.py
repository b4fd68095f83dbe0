"""Fixtures for the leaderboard's tests: the running service, well-formed game log events and their facts."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import datetime
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.events import EndedSeat, GameEnded, GameMode, MoveMade, Outcome
from libs.platform.contracts.subjects import GAME_FACTS_STREAM, LEADERBOARD_DURABLE
from libs.platform.envelope import GENESIS, Event, EventType, new_event
from libs.platform.settings import Settings
from libs.rules import registry
from services.leaderboard.app import create_app
from tests.conftest import running_app
from tests.game_facts import consumer_acked, publish_fact


@pytest.fixture(scope="module")
async def leaderboard(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The leaderboard service running in-process (HTTP client), with its consumer of game ends."""
    async with running_app(create_app(settings)) as client:
        yield client


def new_id() -> str:
    """A 32-hex id no other test uses."""
    return uuid.uuid4().hex


def fresh_variant() -> str:
    """A variant name whose list no other test writes to, so a test sees only its own players."""
    return f"kachelwand-{uuid.uuid4().hex[:8]}"


def human(name: str, player_id: str | None = None) -> dict[str, Any]:
    """A human seat as the lobby sends it."""
    return {"player_id": player_id or f"p-{new_id()[:12]}", "name": name, "kind": "human", "level": None,
            "account": "registered"}


def bot(level: str = "normal") -> dict[str, Any]:
    """A computer seat as the lobby sends it."""
    return {"player_id": None, "name": "Computer", "kind": "bot", "level": level, "account": None}


def game_ended(
    seats: Sequence[dict[str, Any]],
    *,
    scores: Sequence[int],
    places: Sequence[int],
    points: Sequence[int],
    variant: str = "kachelwand",
    game_id: str | None = None,
    n: int = 57,
    left: Sequence[int] = (),
    left_with_other_humans: Sequence[int] = (),
    at: datetime | None = None,
    teams: Sequence[Sequence[int]] | None = None,
    mode: GameMode | None = None,
) -> Event:
    """A sealed `GameEnded` event as the table service appends it (`teams`: the seats that play together)."""
    data = GameEnded(
        game="speedmosaik", variant=variant, rules="speedmosaik@1", table_id=f"t-{new_id()[:8]}",
        seats=[EndedSeat(**seat, seat=index) for index, seat in enumerate(seats)],
        outcome=Outcome(places=list(places), scores=list(scores), tie_break=[0] * len(seats),
                        leaderboard_points=list(points), lines=[[] for _ in seats],
                        summary={"key": "summary", "params": {}, "text": "Ende."}),
        seed="ab" * 32, left=list(left), left_with_other_humans=list(left_with_other_humans),
        **({} if teams is None else {"teams": [list(team) for team in teams]}),
        **({} if mode is None else {"mode": mode}),
    ).to_data()
    return new_event(game_id=game_id or new_id(), n=n, type=EventType.GAME_ENDED, actor="system",
                     rules="speedmosaik@1", data=data, prev="cd" * 32, at=at)


def move_made(game_id: str) -> Event:
    """A `MoveMade` event, which is never copied onto GAME_FACTS and never projected."""
    return new_event(game_id=game_id, n=2, type=EventType.MOVE_MADE, actor="p-1", rules="speedmosaik@1",
                     data=MoveMade(seat=0, move={"take": "blau"}, chosen_by="player").to_data(), prev=GENESIS)


async def publish(nc: NatsClient, event: Event, msg_id: str | None = None) -> int:
    """Copy the `GameEnded` `event` onto GAME_FACTS as the table's follow-up does; return its stream sequence."""
    return await publish_fact(nc.jetstream(), event, msg_id)


async def wait_until_consumed(nc: NatsClient, stream_seq: int, timeout: float = 15.0) -> None:
    """Wait until the leaderboard has acknowledged every game end on GAME_FACTS up to `stream_seq`."""
    await consumer_acked(nc.jetstream(), GAME_FACTS_STREAM, LEADERBOARD_DURABLE, stream_seq, timeout)


async def publish_and_wait(nc: NatsClient, *events: Event) -> None:
    """Publish the events and wait until the leaderboard has processed all of them."""
    last = 0
    for event in events:
        last = await publish(nc, event)
    await wait_until_consumed(nc, last)


@pytest.fixture(autouse=True)
def forget_fresh_games() -> Iterator[None]:
    """Unregister the renamed copies of the tiny game a test registered (`home_facts.fresh_game`).

    Other tests list every registered game (the golden files, the lobby's game list).
    """
    before = {module.rules_id for module in registry.all_modules()}
    yield
    for module in registry.all_modules():
        if module.rules_id not in before:
            registry.unregister(module.rules_id)
