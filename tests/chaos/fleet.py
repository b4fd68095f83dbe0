"""Service replicas as processes, computer games started over NATS, and the checks of their logs afterwards."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import nats.errors
from nats.aio.client import Client as NatsClient

from libs.devservers import free_port
from libs.devservers.processes import ServiceProcess
from libs.platform.contracts.subjects import TABLE_START
from libs.platform.envelope import Event, EventType, verify_chain
from libs.platform.rpc import request
from services.table.event_store import GameLog

LANDED: tuple[dict[str, str], ...] = (
    {"workshop": "kachelwand"},
    {"workshop": "kachelwand", "wall": "frei", "jokers": "mit"},
    {"workshop": "kirchenfenster"},
    {"workshop": "kirchenfenster", "palace": "fensterfarbe"},
    {"workshop": "sternpavillon"},
)
"""Every playable workshop of every landed game, with its options in both states at least once."""


@dataclass
class Fleet:
    """Replicas of the platform's services, each a `python -m services.<name>` process on its own port."""

    env: dict[str, str]
    logs: Path
    extra_env: dict[str, dict[str, str]] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)
    """The module a name runs where it is not `services.<name>` (table-followup: the table)."""
    replicas: dict[str, list[ServiceProcess]] = field(default_factory=dict)

    def start(self, counts: dict[str, int]) -> Fleet:
        """Start `counts[name]` replicas of each named service and wait until all are ready."""
        for name, count in counts.items():
            for index in range(count):
                process = ServiceProcess(name, env=self.env, port=free_port(),
                                         log_path=self.logs / f"{name}-{index}.log",
                                         extra_env=self.extra_env.get(name, {}),
                                         module=self.modules.get(name, ""))
                self.replicas.setdefault(name, []).append(process.start())
        for process in self.all():
            process.wait_ready(timeout=90)
        return self

    def all(self) -> Iterator[ServiceProcess]:
        for replicas in self.replicas.values():
            yield from replicas

    def url(self, name: str, index: int = 0) -> str:
        return self.replicas[name][index].url

    def restart(self, process: ServiceProcess, *, kill: bool = False) -> None:
        """Stop one replica (SIGTERM, or SIGKILL when `kill`) and start it again on the same port."""
        process.stop(kill=kill)
        process.start()
        process.wait_ready(timeout=90)

    def stop(self) -> None:
        for process in self.all():
            process.stop()


async def start_computer_game(nc: NatsClient, game_id: str, settings: dict[str, str], seats: int) -> None:
    """Start a game of computers only through the table's start command (as the lobby would)."""
    levels = ("easy", "normal", "easy", "normal")
    result = await request(nc, TABLE_START, {
        "game_id": game_id, "table_id": None, "game": "speedmosaik", "settings": settings,
        "seats": [{"kind": "bot", "level": levels[i], "name": f"Computer {i + 1}"} for i in range(seats)]},
        timeout=20)
    assert result["game_id"] == game_id


async def read_events(nc: NatsClient, game_id: str) -> list[Event]:
    return [stored.event for stored in await GameLog(nc.jetstream(), nc).read(game_id)]


async def has_ended(nc: NatsClient, game_id: str) -> bool:
    """Whether the game's log ends with GameEnded; False while the log cannot be read (NATS restarting)."""
    try:
        events = await read_events(nc, game_id)
    except (nats.errors.Error, TimeoutError):
        return False
    return bool(events) and events[-1].type == EventType.GAME_ENDED


async def wait_until_all_ended(nc: NatsClient, game_ids: list[str], timeout: float) -> None:
    """Wait until every game's log ends with GameEnded; fail naming the games still running."""
    deadline = time.monotonic() + timeout
    running = list(game_ids)
    while running and time.monotonic() < deadline:
        running = [game_id for game_id in running if not await has_ended(nc, game_id)]
        if running:
            await asyncio.sleep(0.5)
    assert not running, f"{len(running)} games did not end in {timeout} s: {running[:5]}"


async def check_logs(nc: NatsClient, table_urls: list[str], game_ids: list[str]) -> dict[str, list[Event]]:
    """Every game's log: numbered 1..N without gap or double, hash chain intact, one GameEnded and that last,
    and the table's audit (replaying the moves gives the recorded outcome) holds. Returns the logs."""
    logs: dict[str, list[Event]] = {}
    async with httpx.AsyncClient(timeout=30) as http:
        for index, game_id in enumerate(game_ids):
            events = await read_events(nc, game_id)
            assert [event.n for event in events] == list(range(1, len(events) + 1)), game_id
            verify_chain(events)
            types = [event.type for event in events]
            assert types.count(EventType.GAME_STARTED) == 1 and types[0] == EventType.GAME_STARTED, game_id
            assert types.count(EventType.GAME_ENDED) == 1 and types[-1] == EventType.GAME_ENDED, game_id
            audit: dict[str, Any] = (await http.get(
                f"{table_urls[index % len(table_urls)]}/games/{game_id}/audit")).json()
            assert audit.get("chain_ok") and audit.get("outcome_matches"), (game_id, audit)
            assert audit["events"] == len(events)
            logs[game_id] = events
    return logs
