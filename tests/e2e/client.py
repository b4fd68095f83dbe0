"""A small client that uses the platform the way a player's app would: HTTP and live updates only."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import nats

from libs.platform.envelope import Event
from services.table.event_store import GameLog


@dataclass
class PlayerClient:
    """One player talking to the lobby and the table service over HTTP."""

    lobby: str
    table: str
    token: str = ""
    player_id: str = ""

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    @classmethod
    def guest(cls, lobby: str, table: str, name: str) -> PlayerClient:
        """Sign up as a guest."""
        answer = httpx.post(f"{lobby}/guests", json={"name": name}, timeout=10)
        answer.raise_for_status()
        body = answer.json()
        return cls(lobby=lobby, table=table, token=body["token"], player_id=body["player_id"])

    def solo(self, opponents: int, bot_level: str = "normal") -> str:
        """Open a solo table against computers and return its game id."""
        answer = httpx.post(f"{self.lobby}/tables/solo", headers=self.auth, timeout=10, json={
            "game": "speedmosaik", "settings": {"workshop": "kachelwand"}, "opponents": opponents,
            "bot_level": bot_level})
        answer.raise_for_status()
        return str(answer.json()["game_id"])

    def view(self, game_id: str) -> dict[str, Any]:
        answer = httpx.get(f"{self.table}/games/{game_id}/view", headers=self.auth, timeout=10)
        answer.raise_for_status()
        body: dict[str, Any] = answer.json()
        return body

    def move(self, game_id: str, move: dict[str, Any]) -> httpx.Response:
        return httpx.post(f"{self.table}/games/{game_id}/moves", headers=self.auth, json={"move": move},
                          timeout=10)

    def choose(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        """Pick a move as a casual player would: a random legal move, avoiding the floor when it can."""
        moves = view["legal_moves"]
        into_lines = [m for m in moves if m.get("reihe") != 0]
        return rng.choice(into_lines or moves)

    def live(self, game_id: str, timeout: float = 120.0) -> Iterator[dict[str, Any]]:
        """Yield this player's view after every event of the game, from the live stream, until it ends."""
        with httpx.stream("GET", f"{self.table}/games/{game_id}/live", params={"token": self.token},
                          timeout=httpx.Timeout(30.0)) as stream:
            yield from live_views(stream.iter_lines(), deadline=time.monotonic() + timeout)


def live_views(lines: Iterable[str], deadline: float | None = None) -> Iterator[dict[str, Any]]:
    """Yield every view a live stream's server-sent events carry, until the game has ended.

    With `deadline` (a `time.monotonic()` value), raise TimeoutError once it passes (keep-alives included).
    """
    data = ""
    for line in lines:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError("game did not end in time")
        if line.startswith("data: "):
            data = line[6:]
        elif line == "" and data:
            view = json.loads(data)
            data = ""
            yield view
            if view["status"] == "ended":
                return


def wait_for(check: Any, timeout: float = 30.0, interval: float = 0.1) -> Any:
    """Poll `check()` until it returns something truthy (projections are eventually consistent)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(interval)
    raise TimeoutError("condition not reached")


def read_log(nats_url: str, game_id: str) -> list[Event]:
    """The whole log of a game, as an auditor with access to the stream reads it."""
    async def read() -> list[Event]:
        client = await nats.connect(nats_url)
        try:
            return [stored.event for stored in await GameLog(client.jetstream()).read(game_id)]
        finally:
            await client.close()

    return asyncio.run(read())
