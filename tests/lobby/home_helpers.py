"""Helpers of the lobby's home tests (solo modes, daily seeds, campaigns, Weiterspielen, chat).

Loads the tiny test game (its daily mode "tagesstich", its campaign "reise", chat off in variante "team").
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx
import msgspec
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.events import EndedSeat, GameEnded, GameMode, Outcome
from libs.platform.envelope import EventType, new_event
from libs.platform.settings import Settings
from services.lobby.app import create_app
from services.lobby.chat import ChatSettings
from services.lobby.daily_seed_source import DailySeedSource
from tests.clocks import ShiftedClock
from tests.conftest import running_app
from tests.game_facts import append_as_table
from tests.lobby.conftest import Lobby, game_events_are_read


class KnownSeeds(DailySeedSource):
    """Seeds a test can predict: sha256 of a label and a counter; remembers what it drew."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.drawn: list[bytes] = []

    def draw(self) -> bytes:
        seed = hashlib.sha256(f"{self.label}:{len(self.drawn)}".encode()).digest()
        self.drawn.append(seed)
        return seed


@asynccontextmanager
async def another_lobby(settings: Settings, clock: ShiftedClock | None = None, seeds: DailySeedSource | None = None,
                        chat: ChatSettings | None = None) -> AsyncIterator[Lobby]:
    """A second lobby replica (a new app instance: as after a restart) on the same NATS and PostgreSQL."""
    clock = clock or ShiftedClock()
    app = create_app(settings, clock=clock, seeds=seeds, chat_settings=chat)
    async with running_app(app) as http:
        yield Lobby(http=http, runtime=app.state.runtime, clock=clock)


async def solo(http: httpx.AsyncClient, player: dict[str, Any], **body: Any) -> httpx.Response:
    """`POST /solo` as `player`."""
    return await http.post("/solo", json=body, headers=player["headers"])


async def end_started_game(nc: NatsClient, started: dict[str, Any], places: Sequence[int] | None = None,
                           left: Sequence[int] = ()) -> None:
    """Append `GameEnded` for a game the table stand-in was asked to start (its game and mode copied, as the
    table writes them) and wait until the lobby has read its fact."""
    seats = started["seats"]
    count = len(seats)
    mode = GameMode.from_data(started["mode"]) if started.get("mode") else None
    data = GameEnded(
        game=started["game"], variant=started["game"], rules=f"{started['game']}@1", table_id=started["table_id"],
        seats=[EndedSeat(seat=index, name=seat["name"], kind=seat["kind"], player_id=seat.get("player_id"),
                         level=seat.get("level"), account=seat.get("account")) for index, seat in enumerate(seats)],
        outcome=Outcome(places=list(places or range(1, count + 1)), scores=[0] * count, tie_break=[0] * count,
                        lines=[[] for _ in seats], leaderboard_points=[0] * count,
                        summary={"key": "ende", "params": {}, "text": "Ende."}),
        seed="" if mode is not None and mode.day else "00" * 32, left=list(left),
        mode=mode if mode is not None else msgspec.UNSET,
    ).to_data()
    event = new_event(game_id=started["game_id"], n=2, type=EventType.GAME_ENDED, actor="system",
                      rules=f"{started['game']}@1", prev="0" * 64, data=data)
    await append_as_table(nc.jetstream(), event)
    await game_events_are_read(nc)
