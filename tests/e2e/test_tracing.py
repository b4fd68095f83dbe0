"""One trace id follows a move through every service (docs/operations.md, "Tracing").

A registered player plays the conformance suite's tiny game against a computer at a stake table, every service a
process of its own (the table as its API and its follow-up, as `make run` and Kubernetes run it), each move sent
with a `traceparent` of the test's own. The player lays her last card before the computer: so her last move is
appended by the table's API, followed up by the table's follow-up (a bot turn), answered by the bot (the move
that ends the game), ended by the follow-up, settled by the ledger and projected by the leaderboard and the
lobby, and every one of them writes her move's trace id on the log lines of that work. The trace id travels in
NATS headers only: no event of the log holds it, and the log still verifies.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from libs.devservers import free_port
from libs.devservers.processes import TABLE_FOLLOWUP, ServiceProcess, platform_processes
from libs.platform.envelope import EventType, verify_chain
from tests.conftest import Infrastructure
from tests.e2e.client import read_log, wait_for

PLUGIN = "tests.rules.tinygame"
BOT_PAUSE = "2.0"
"""Seconds a computer waits before its move: the player, who lays as soon as laying opens, lays first."""


@dataclass
class Traced:
    """The platform's processes and where each writes its log lines."""

    processes: dict[str, ServiceProcess]
    logs: Path

    def url(self, name: str) -> str:
        return self.processes[name].url

    def lines(self, name: str) -> list[dict[str, Any]]:
        """Every JSON log line the process `name` has written so far."""
        lines = []
        for raw in (self.logs / f"{name}.log").read_text(errors="replace").splitlines():
            if raw.startswith("{"):
                lines.append(json.loads(raw))
        return lines

    def traced(self, name: str, trace_id: str) -> list[dict[str, Any]]:
        """The log lines of process `name` written in the trace `trace_id`."""
        return [line for line in self.lines(name) if line.get("trace_id") == trace_id]


@pytest.fixture(scope="module")
def traced_platform(infra: Infrastructure, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Traced]:
    """All services as processes with the tiny game, debug log lines (a move's own lines are debug), export off."""
    logs = tmp_path_factory.mktemp("traced-logs")
    processes = {process.name: process for process in platform_processes(infra.env(), logs=logs)}
    for process in processes.values():
        process.port = free_port()
        process.extra_env.update({"RULE_PLUGINS": PLUGIN, "LOG_LEVEL": "debug"})
    processes["bot"].extra_env["BOT_MOVE_DELAY"] = BOT_PAUSE
    try:
        for process in processes.values():
            process.start()
        for process in processes.values():
            process.wait_ready(timeout=60)
        yield Traced(processes, logs)
    finally:
        for process in processes.values():
            process.stop()


def new_traceparent() -> tuple[str, str]:
    """A fresh W3C trace context (sampled) and its trace id, as a client that traces its own requests sends it."""
    trace_id, span_id = os.urandom(16).hex(), os.urandom(8).hex()
    return f"00-{trace_id}-{span_id}-01", trace_id


def test_one_trace_id_follows_the_last_move_through_table_followup_bot_ledger_and_leaderboard(
        traced_platform: Traced, infra: Infrastructure) -> None:
    lobby, table = traced_platform.url("lobby"), traced_platform.url("table")
    registered = httpx.post(f"{lobby}/players", timeout=10, json={
        "name": f"Tanja-{uuid.uuid4().hex[:6]}", "password": "geheim-tanja-tanja"})
    registered.raise_for_status()
    auth = {"Authorization": f"Bearer {registered.json()['token']}"}
    wait_for(lambda: httpx.get(f"{traced_platform.url('ledger')}/wallets/me", headers=auth).status_code == 200)
    created = httpx.post(f"{lobby}/tables", headers=auth, timeout=10, json={
        "game": "tinygame", "settings": {"variante": "einzeln", "stake": 10}, "player_count": 2,
        "bot_level": "easy", "fill_with_bots": True})
    assert created.status_code == 201, created.text
    started = httpx.post(f"{lobby}/tables/{created.json()['table_id']}/start", headers=auth, timeout=10)
    assert started.status_code == 200, started.text
    game_id = started.json()["game_id"]

    # She passes in her turns and lays her highest card as soon as laying opens, each move with its own trace.
    moves: list[tuple[str, int]] = []  # (trace id, the event number her move was stored as)

    def play_along() -> bool:
        view = httpx.get(f"{table}/games/{game_id}/view", headers=auth, timeout=10).json()
        if view["status"] != "running":
            return True
        if 0 in view["to_move"]:
            choices = view["legal_moves"]
            move = next((m for m in choices if "passen" in m), None) or max(
                (m for m in choices if "legen" in m), key=lambda m: m["legen"])
            traceparent, trace_id = new_traceparent()
            answer = httpx.post(f"{table}/games/{game_id}/moves", json={"move": move}, timeout=10,
                                headers={**auth, "traceparent": traceparent})
            assert answer.status_code == 200, answer.text
            moves.append((trace_id, answer.json()["n"]))
        return False

    wait_for(play_along, timeout=120, interval=0.05)

    events = read_log(infra.nats_url, game_id)
    verify_chain(events)
    assert events[-1].type == EventType.GAME_ENDED
    last_trace, last_n = moves[-1]
    after = [event for event in events if event.n > last_n]
    assert [event.type for event in after] == [EventType.MOVE_MADE, EventType.GAME_ENDED], \
        "the computer's lay must end the game after hers (it pauses two seconds before it moves)"
    bot_n, ended_n = after[0].n, after[1].n
    assert after[0].data["seat"] == 1 and after[0].data["chosen_by"] == "bot"

    def in_trace(name: str, event: str, **fields: Any) -> dict[str, Any] | None:
        return next((line for line in traced_platform.traced(name, last_trace) if line["event"] == event
                     and all(line.get(key) == value for key, value in fields.items())), None)

    # The HTTP move and its append, by the table's API.
    assert in_trace("table", "event_appended", game_id=game_id, n=last_n, type=EventType.MOVE_MADE)
    # The follow-up asks the computer for its turn after her move.
    assert in_trace(TABLE_FOLLOWUP, "bot_turn_requested", game_id=game_id, n=last_n, seat=1)
    # The bot's turn, and its move appended by the table's API (over NATS this time).
    assert in_trace("bot", "bot_moved", game_id=game_id, n=last_n, seat=1)
    assert in_trace("table", "event_appended", game_id=game_id, n=bot_n, type=EventType.MOVE_MADE)
    # The follow-up ends the game.
    assert in_trace(TABLE_FOLLOWUP, "event_appended", game_id=game_id, n=ended_n, type=EventType.GAME_ENDED)
    assert in_trace(TABLE_FOLLOWUP, "game_ended", game_id=game_id, n=ended_n)
    # The ledger pays the pot out, the leaderboard and the lobby take the game's end.
    assert wait_for(lambda: in_trace("ledger", "pot_paid", game_id=game_id), timeout=30)
    assert wait_for(lambda: in_trace("leaderboard", "game_projected", game_id=game_id), timeout=30)
    assert wait_for(lambda: in_trace("lobby", "game_ended", game_id=game_id), timeout=30)

    # The start came without a trace context: the lobby began a trace of its own, which the table's append of
    # the game's start, its follow-up and the ledger's pot carry.
    start = next(line for line in traced_platform.lines("lobby") if line["event"] == "game_started"
                 and line.get("game_id") == game_id)
    start_trace = start["trace_id"]
    assert start_trace not in {trace_id for trace_id, _ in moves}
    assert any(line["event"] == "event_appended" and line["game_id"] == game_id and line["n"] == 1
               for line in traced_platform.traced("table", start_trace))
    assert any(line["event"] == "pot_collected" and line["game_id"] == game_id
               for line in traced_platform.traced("ledger", start_trace))

    # Every move's trace is its own; none of them is in the game's log, whose events are hashed and signed.
    assert len({trace_id for trace_id, _ in moves}) == len(moves)
    stored = json.dumps([event.to_json() for event in events])
    assert not any(trace_id in stored for trace_id, _ in moves)
