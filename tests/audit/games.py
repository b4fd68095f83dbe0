"""Finished games to audit: played by computers on an in-process table, one human seat to export as a player.

Used by the audit tests and by ``make_golden.py`` (which writes the golden exports once).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity, PlayerKind, issue_operator_token, issue_token
from libs.platform.contracts.commands import START_GAME, StartGame, StartSeat
from libs.platform.contracts.events import GameMode
from libs.platform.contracts.subjects import TABLE_START
from libs.platform.days import berlin_day, day_end, iso_z
from libs.platform.rpc import call, request
from libs.platform.settings import Settings
from libs.rules.speedmosaik.home import DAILY
from services.table.seeds import SeedSource

UNDOABLE_KEYS = ("vorrat", "faden", "fruchtkoerper", "turm")
"""Speedspore moves "Zurück" can take back (builds and supply trades)."""


class FixedSeeds(SeedSource):
    """Always the same seed: the same deal on every run (golden exports stay reproducible in shape)."""

    def draw(self) -> bytes:
        return bytes(range(32))


@dataclass(frozen=True)
class Kind:
    """A game to play for the audit: the module, its settings, the seats (seat 0 is the human)."""

    game: str
    settings: dict[str, Any]
    bots: int
    undo: bool = False
    """The human plays until it can build, takes the build back ("Zurück"), then leaves."""


KINDS = {
    "speedmosaik": Kind("speedmosaik", {"workshop": "kachelwand"}, bots=1),
    "speedkoi": Kind("speedkoi", {}, bots=1),
    "speednova": Kind("speednova", {"teams": "mit"}, bots=3),
    "speedspore": Kind("speedspore", {}, bots=1, undo=True),
}


def player(name: str) -> Identity:
    return Identity(player_id=f"{name.lower()}-{uuid.uuid4().hex[:8]}", name=name, kind=PlayerKind.GUEST)


def bearer(settings: Settings, identity: Identity | None = None) -> dict[str, str]:
    """The Authorization header of a player, or of an operator when no player is named."""
    token = (issue_token(settings.auth_secret, identity) if identity is not None
             else issue_operator_token(settings.auth_secret, "audit-test", hours=1))
    return {"Authorization": f"Bearer {token}"}


async def start(nc: NatsClient, kind: Kind, human: Identity) -> str:
    """Start a game of ``kind`` with ``human`` at seat 0 and computers at the other seats; return its id."""
    seats = [{"kind": "human", "player_id": human.player_id, "name": human.name},
             *({"kind": "bot", "level": "easy"} for _ in range(kind.bots))]
    result = await request(nc, TABLE_START, {"game": kind.game, "settings": kind.settings, "seats": seats})
    return str(result["game_id"])


async def play(table: httpx.AsyncClient, nc: NatsClient, settings: Settings, kind: Kind,
               human: Identity, timeout: float = 60.0) -> str:
    """Play a game of ``kind`` to its end (the human leaves, a Speedspore human first builds and takes it
    back); return its id."""
    game_id = await start(nc, kind, human)
    auth = bearer(settings, human)
    if kind.undo:
        await _build_and_take_back(table, game_id, auth)
    else:
        await _one_move(table, game_id, auth)
    assert (await table.post(f"/games/{game_id}/leave", headers=auth)).status_code == 200
    await wait_ended(table, game_id, timeout)
    return game_id


async def play_daily(table: httpx.AsyncClient, nc: NatsClient, settings: Settings, human: Identity,
                     seed: bytes) -> str:
    """Play today's Tageswerkstatt (Speedmosaik, the day's seed, revealed only after the day) against a
    computer, the human leaving at once; return the game's id."""
    day = berlin_day(datetime.now(UTC))
    command = StartGame(
        game="speedmosaik", settings=DAILY.settings, seed=seed.hex(), seed_reveal_at=iso_z(day_end(day)),
        mode=GameMode(key=DAILY.key, day=day.isoformat(), attempt=1),
        seats=[StartSeat(kind="human", player_id=human.player_id, name=human.name, account="guest"),
               StartSeat(kind="bot", level="easy", name="Computer 1")])
    game_id = (await call(nc, START_GAME, command)).game_id
    assert (await table.post(f"/games/{game_id}/leave", headers=bearer(settings, human))).status_code == 200
    await wait_ended(table, game_id)
    return game_id


async def wait_ended(table: httpx.AsyncClient, game_id: str, timeout: float = 60.0) -> None:
    """Wait until the game's GameEnded is in the log."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if (await table.get(f"/games/{game_id}")).json()["status"] == "ended":
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game_id} did not end in {timeout} s")


async def _one_move(table: httpx.AsyncClient, game_id: str, auth: dict[str, str]) -> None:
    """Make the human's first legal move (seat 0 opens every game played here), so the log holds a move
    the human chose themselves (``chosen_by: "player"``) before the computer plays on for them."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while loop.time() < deadline:
        moves = (await table.get(f"/games/{game_id}/view", headers=auth)).json()["legal_moves"]
        if moves:
            made = await table.post(f"/games/{game_id}/moves", json={"move": moves[0]}, headers=auth)
            if made.status_code == 200:
                return
            assert made.status_code in (409, 422), made.text
        await asyncio.sleep(0.01)
    raise AssertionError("the human never got to move")


async def _build_and_take_back(table: httpx.AsyncClient, game_id: str, auth: dict[str, str]) -> None:
    """Play the human's seat (first founding spot, roll, decline offers, end the turn) until a build or a
    supply trade is legal in the main phase; make it, then "Zurück"."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 90  # a wait, not a promise: one slow CI machine took over 30 s
    while loop.time() < deadline:
        view = (await table.get(f"/games/{game_id}/view", headers=auth)).json()
        moves = view["legal_moves"]
        if not moves:
            await asyncio.sleep(0.01)
            continue
        undoable = [move for move in moves if any(key in move for key in UNDOABLE_KEYS)]
        if view["board"].get("phase") == "haupt" and undoable:
            made = await table.post(f"/games/{game_id}/moves", json={"move": undoable[0]}, headers=auth)
            if made.status_code == 200 and made.json().get("can_undo"):
                back = await table.post(f"/games/{game_id}/moves", json={"move": {"zurueck": True}}, headers=auth)
                assert back.status_code == 200, back.text
                return
            continue
        plain = [move for move in moves if set(move) & {"zug_beenden", "wuerfeln", "antwort"}
                 and move.get("antwort", "nein") == "nein"]
        answer = await table.post(f"/games/{game_id}/moves", json={"move": (plain or moves)[0]}, headers=auth)
        assert answer.status_code in (200, 409, 422), answer.text
    raise AssertionError("the human never got to build in Speedspore")
