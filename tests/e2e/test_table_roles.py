"""The table as two processes, as `make run` and the Kubernetes manifests run it: its API (TABLE_ROLES=api) and
its follow-up and deadlines (`table-followup`, TABLE_ROLES=followup,timers).

The API appends moves; the follow-up process alone asks computers to move and finishes games. So a computer
game started while only the API runs stays at its first event, and plays to its end once the follow-up
process is up; a follow-up process killed mid-game and started again loses nothing: every game still ends
once, with an unbroken log, and its start and end reach GAME_FACTS once each. Think-time clocks are started
and their deadlines acted on by the follow-up process too. Two follow-up replicas share the durable consumer,
and one alone finishes the games when the other is killed.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import nats
import pytest

from libs.devservers import free_port
from libs.devservers.processes import SPLIT_TABLE_ENV, TABLE_FOLLOWUP, ServiceProcess
from libs.platform.contracts.subjects import GAME_ENDED_FACT, GAME_FACTS_STREAM, GAME_STARTED_FACT, TABLE_START
from libs.platform.envelope import Event, EventType, verify_chain
from libs.platform.rpc import request
from tests.conftest import Infrastructure
from tests.e2e.client import read_log, wait_for

GAMES = 3
LEVELS = ("easy", "normal", "easy", "normal")


def process(infra: Infrastructure, logs: Path, name: str, **extra: str) -> ServiceProcess:
    return ServiceProcess(name, env=infra.env(), port=free_port(), log_path=logs / f"{name}.log",
                          extra_env={**SPLIT_TABLE_ENV.get(name, {}), **extra},
                          module="table" if name == TABLE_FOLLOWUP else "")


@pytest.fixture
def table_api(infra: Infrastructure, tmp_path: Path) -> Iterator[tuple[ServiceProcess, ServiceProcess]]:
    """The table's API and the bot service as processes (no follow-up yet); stopped after the test."""
    # A small pause before each computer move, so a game lasts long enough to kill the follow-up in it.
    started = [process(infra, tmp_path, "table").start(),
               process(infra, tmp_path, "bot", BOT_MOVE_DELAY="0.05").start()]
    try:
        for each in started:
            each.wait_ready(timeout=60)
        yield started[0], started[1]
    finally:
        for each in started:
            each.stop()


def start_computer_games(infra: Infrastructure, count: int) -> list[str]:
    """Start `count` games of four computers through the table's NATS command; return their ids."""
    ids = [uuid.uuid4().hex for _ in range(count)]

    async def start() -> None:
        client = await nats.connect(infra.nats_url)
        try:
            for game_id in ids:
                answer = await request(client, TABLE_START, {
                    "game_id": game_id, "table_id": None, "game": "speedmosaik", "settings": {},
                    "seats": [{"kind": "bot", "level": level, "name": f"Computer {i + 1}"}
                              for i, level in enumerate(LEVELS)]})
                assert answer["n"] == 1
        finally:
            await client.close()

    asyncio.run(start())
    return ids


def facts_of(infra: Infrastructure, game_ids: list[str]) -> dict[str, list[tuple[str, int]]]:
    """Every copy on GAME_FACTS of the games' events, per game: (subject, n), read to the stream's end."""

    async def read() -> dict[str, list[tuple[str, int]]]:
        client = await nats.connect(infra.nats_url)
        found: dict[str, list[tuple[str, int]]] = {game_id: [] for game_id in game_ids}
        try:
            js = client.jetstream()
            last = (await js.stream_info(GAME_FACTS_STREAM)).state.last_seq
            subscription = await js.subscribe(f"{GAME_STARTED_FACT.rsplit('.', 1)[0]}.>", stream=GAME_FACTS_STREAM,
                                              ordered_consumer=True)
            seq = 0
            while seq < last:
                msg = await subscription.next_msg(timeout=10)
                seq = msg.metadata.sequence.stream
                event = Event.decode(msg.data)
                if event.game_id in found:
                    found[event.game_id].append((msg.subject, event.n))
            await subscription.unsubscribe()
        finally:
            await client.close()
        return found

    return asyncio.run(read())


def check_played_once_to_the_end(infra: Infrastructure, game_id: str) -> list[Event]:
    """The game's log: ended exactly once, as its last event, every event once and chained."""
    events = read_log(infra.nats_url, game_id)
    verify_chain(events)
    assert [event.n for event in events] == list(range(1, len(events) + 1))
    assert [event.type for event in events].count(EventType.GAME_ENDED) == 1
    assert events[-1].type == EventType.GAME_ENDED
    moves = [event for event in events if event.type == EventType.MOVE_MADE]
    assert len(moves) > 20 and all(event.actor.startswith("bot:") for event in moves)
    return events


def bot_turns_requested(process: ServiceProcess) -> float:
    """The process's count of "your turn" requests put on BOT_TURNS (its /metrics)."""
    text = httpx.get(f"{process.url}/metrics", timeout=10).text
    match = re.search(r"^speed_table_bot_turns_requested_total (\S+)$", text, re.MULTILINE)
    assert match, "no speed_table_bot_turns_requested_total in /metrics"
    return float(match.group(1))


def log_length(infra: Infrastructure, game_id: str) -> int:
    return len(read_log(infra.nats_url, game_id))


def test_a_followup_process_serves_no_games_and_the_api_process_follows_nothing_up(
        infra: Infrastructure, table_api: tuple[ServiceProcess, ServiceProcess], tmp_path: Path) -> None:
    api, _bot = table_api
    (game_id,) = start_computer_games(infra, 1)

    # Only the API runs: the game is in the log, but nobody asks its computers to move.
    time.sleep(3.0)
    events = read_log(infra.nats_url, game_id)
    assert [event.type for event in events] == [EventType.GAME_STARTED]
    assert httpx.get(f"{api.url}/games/{game_id}", timeout=10).status_code == 200

    followup = process(infra, tmp_path, TABLE_FOLLOWUP).start()
    try:
        followup.wait_ready(timeout=60)
        for path in (f"/games/{game_id}", f"/games/{game_id}/view", f"/games/{game_id}/events"):
            assert httpx.get(f"{followup.url}{path}", timeout=10).status_code == 404, path
        assert httpx.post(f"{followup.url}/games/{game_id}/moves", json={"move": {}}, timeout=10).status_code == 404
        paths = set(httpx.get(f"{followup.url}/openapi.json", timeout=10).json()["paths"])
        assert paths == {"/healthz", "/readyz", "/metrics"}
        assert httpx.get(f"{followup.url}/metrics", timeout=10).status_code == 200

        # Now the computers move, and the follow-up process ends the game.
        wait_for(lambda: read_log(infra.nats_url, game_id)[-1].type == EventType.GAME_ENDED, timeout=120,
                 interval=0.5)
    finally:
        followup.stop()
    check_played_once_to_the_end(infra, game_id)
    assert facts_of(infra, [game_id])[game_id] == [(GAME_STARTED_FACT, 1), (GAME_ENDED_FACT, len(read_log(
        infra.nats_url, game_id)))]


def test_killing_and_restarting_the_followup_process_mid_game_loses_nothing(
        infra: Infrastructure, table_api: tuple[ServiceProcess, ServiceProcess], tmp_path: Path) -> None:
    followup = process(infra, tmp_path, TABLE_FOLLOWUP).start()
    try:
        followup.wait_ready(timeout=60)
        game_ids = start_computer_games(infra, GAMES)
        # Killed (SIGKILL: no graceful stop) while every game is under way.
        wait_for(lambda: all(log_length(infra, game_id) >= 8 for game_id in game_ids), timeout=60, interval=0.2)
        assert followup.stop(kill=True) == -9
        ended = [game_id for game_id in game_ids if read_log(infra.nats_url, game_id)[-1].type == EventType.GAME_ENDED]
        assert len(ended) < GAMES, "the games ended before the kill; the test proves nothing"

        followup.start()  # the same process again: the shared durable consumer redelivers what was not acked
        followup.wait_ready(timeout=60)

        def all_ended() -> bool:
            return all(read_log(infra.nats_url, game_id)[-1].type == EventType.GAME_ENDED for game_id in game_ids)

        wait_for(all_ended, timeout=180, interval=0.5)
    finally:
        followup.stop()
    lengths: dict[str, int] = {}
    for game_id in game_ids:
        lengths[game_id] = len(check_played_once_to_the_end(infra, game_id))
    facts = facts_of(infra, game_ids)
    for game_id in game_ids:
        assert facts[game_id] == [(GAME_STARTED_FACT, 1), (GAME_ENDED_FACT, lengths[game_id])], game_id


def test_the_followup_process_runs_the_clocks_and_decides_for_a_player_whose_think_time_ran_out(
        infra: Infrastructure, table_api: tuple[ServiceProcess, ServiceProcess], tmp_path: Path) -> None:
    # Its clock runs 39 s behind, so a 30 s think time (+10 s grace) ends about two seconds after it starts.
    followup = process(infra, tmp_path, TABLE_FOLLOWUP, CLOCK_LAG_SECONDS="39").start()
    try:
        followup.wait_ready(timeout=60)
        game_id = uuid.uuid4().hex

        async def start() -> None:
            client = await nats.connect(infra.nats_url)
            try:
                await request(client, TABLE_START, {
                    "game_id": game_id, "game": "speedmosaik", "settings": {}, "platform": {"think_time": 30},
                    "seats": [{"kind": "human", "player_id": f"anna-{game_id[:8]}", "name": "Anna"},
                              {"kind": "human", "player_id": f"bert-{game_id[:8]}", "name": "Bert"}]})
            finally:
                await client.close()

        asyncio.run(start())
        # Nobody moves: the follow-up process started Anna's clock, its deadlines consumer decides for her.
        moved = wait_for(lambda: [e for e in read_log(infra.nats_url, game_id) if e.type == EventType.MOVE_MADE],
                         timeout=30, interval=0.5)  # a clock without the lag would end after 41 s
    finally:
        followup.stop()
    first = moved[0]
    assert first.data["seat"] == 0 and first.data["chosen_by"] == "timeout" and first.actor == "system"


def test_two_followup_replicas_share_the_work_and_one_alone_finishes_it_when_the_other_is_killed(
        infra: Infrastructure, table_api: tuple[ServiceProcess, ServiceProcess], tmp_path: Path) -> None:
    replicas = [ServiceProcess(f"{TABLE_FOLLOWUP}-{index}", env=infra.env(), port=free_port(),
                               log_path=tmp_path / f"{TABLE_FOLLOWUP}-{index}.log",
                               extra_env=dict(SPLIT_TABLE_ENV[TABLE_FOLLOWUP]), module="table").start()
                for index in range(2)]
    try:
        for replica in replicas:
            replica.wait_ready(timeout=60)
        game_ids = start_computer_games(infra, GAMES)
        wait_for(lambda: all(log_length(infra, game_id) >= 8 for game_id in game_ids), timeout=60, interval=0.2)
        # Both take part: each has asked computers to move (one durable consumer, shared).
        assert all(bot_turns_requested(replica) > 0 for replica in replicas)
        assert replicas[0].stop(kill=True) == -9  # the other replica is not restarted, nor anything else

        def all_ended() -> bool:
            return all(read_log(infra.nats_url, game_id)[-1].type == EventType.GAME_ENDED for game_id in game_ids)

        wait_for(all_ended, timeout=180, interval=0.5)
    finally:
        for replica in replicas:
            replica.stop()
    lengths = {game_id: len(check_played_once_to_the_end(infra, game_id)) for game_id in game_ids}
    facts = facts_of(infra, game_ids)
    for game_id in game_ids:
        assert facts[game_id] == [(GAME_STARTED_FACT, 1), (GAME_ENDED_FACT, lengths[game_id])], game_id
