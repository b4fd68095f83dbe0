"""Game affinity with NATS's own means: the server maps a game's commands onto the game's partition, and each table
API replica serves the partitions it holds a lease for in JetStream's key-value store (docs/architecture.md,
"Game affinity").

Two API replicas as processes (each its own metrics) share the 60 partitions evenly; every command of a game
reaches the one replica holding the game's partition, none the shared subject; no append loses a race. One replica
is killed (SIGKILL: no goodbye) in the middle of the games: every move still succeeds while its leases run out, and
the survivor holds all partitions within the lease TTL and a renewal. A third replica that joins gets its share.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.devservers import free_port
from libs.devservers.processes import ServiceProcess
from libs.platform.contracts.commands import PLAY_MOVE, START_GAME, VIEW_GAME, MakeMove, StartGame, StartSeat, ViewGame
from libs.platform.contracts.subjects import TABLE_PARTITIONS, TABLE_VIEW, game_partition, partition_subject
from libs.platform.rpc import call
from services.table.partitions import read_leases
from tests.conftest import Infrastructure

LEASE_SECONDS = 2
GAMES = 24


def api_replica(infra: Infrastructure, logs: Path, name: str) -> ServiceProcess:
    """A table process with only the API role, short leases."""
    return ServiceProcess(name, env=infra.env(), port=free_port(), log_path=logs / f"{name}.log",
                          extra_env={"TABLE_ROLES": "api", "TABLE_LEASE_SECONDS": str(LEASE_SECONDS)},
                          module="table")


@pytest.fixture
def replicas(infra: Infrastructure, tmp_path: Path) -> Iterator[list[ServiceProcess]]:
    """Two table API replicas; a test may add more to the list. All stopped after the test."""
    started = [api_replica(infra, tmp_path, f"table-{number}").start() for number in (1, 2)]
    try:
        for each in started:
            each.wait_ready(timeout=60)
        yield started
    finally:
        for each in started:
            each.stop()


def holder_pid(holder: str) -> int:
    """The process id inside a replica's lease id (`<host>-<pid>-<suffix>`)."""
    return int(holder.rsplit("-", 2)[-2])


async def holders(nc: NatsClient) -> dict[int, int]:
    """Partition -> the process id of the replica holding its lease."""
    leases = await read_leases(nc)
    return {int(key.split(".")[1]): holder_pid(value) for key, value in leases.items() if key.startswith("partition.")}


async def wait_for_spread(nc: NatsClient, pids: list[int], within: float) -> float:
    """Wait until `pids` hold every partition, evenly; return the seconds it took."""
    began = time.monotonic()
    while True:
        held = Counter((await holders(nc)).values())
        if sum(held.values()) == TABLE_PARTITIONS and set(held) == set(pids) and \
                max(held.values()) - min(held.values()) <= 1:
            return time.monotonic() - began
        assert time.monotonic() - began < within, f"partitions held {dict(held)}, wanted {pids} evenly"
        await asyncio.sleep(0.1)


def game_commands(replica: ServiceProcess) -> dict[str, float]:
    """speed_table_game_commands_total of one replica, by partition label."""
    text = httpx.get(f"{replica.url}/metrics", timeout=10).text
    return {label: float(value) for label, value in
            re.findall(r'^speed_table_game_commands_total\{partition="([^"]+)"\} (\S+)$', text, re.MULTILINE)}


def metric(replica: ServiceProcess, name: str) -> float:
    text = httpx.get(f"{replica.url}/metrics", timeout=10).text
    found = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


async def start_game(nc: NatsClient) -> tuple[str, list[str]]:
    game_id = uuid.uuid4().hex
    players = [f"affinity-{game_id[:10]}-{seat}" for seat in range(2)]
    await call(nc, START_GAME, StartGame(game="speedmosaik", game_id=game_id, seats=[
        StartSeat(kind="human", name=f"Spieler {seat + 1}", player_id=player, account="guest")
        for seat, player in enumerate(players)]))
    return game_id, players


SENT: Counter[str] = Counter()
"""Commands the players sent, all games together."""


async def play_turns(nc: NatsClient, game_id: str, players: list[str], turns: int) -> int:
    """Play `turns` moves of the game as its two players would (view, then a legal move); return the game's n."""
    n = 0
    for _ in range(turns):
        view: dict[str, Any] = await call(nc, VIEW_GAME, ViewGame(game_id=game_id, seat=0))
        seat = view["to_move"][0]
        SENT["commands"] += 2
        if seat != 0:
            SENT["commands"] += 1
            view = await call(nc, VIEW_GAME, ViewGame(game_id=game_id, seat=seat))
        moves = [move for move in view["legal_moves"] if move.get("reihe") != 0] or view["legal_moves"]
        reply = await call(nc, PLAY_MOVE, MakeMove(game_id=game_id, seat=seat, move=moves[0], actor=players[seat],
                                                   chosen_by="player", expected_n=view["n"]))
        assert reply.n == view["n"] + 1
        n = reply.n
    return n


async def test_a_games_commands_reach_the_replica_holding_its_partition_and_move_when_it_dies(
        nc: NatsClient, replicas: list[ServiceProcess], infra: Infrastructure, tmp_path: Path) -> None:
    first, second = replicas
    assert first.pid is not None and second.pid is not None
    await wait_for_spread(nc, [first.pid, second.pid], within=5 * LEASE_SECONDS)

    # The server maps each game onto partition(60, game id): a listener beside the replicas sees where.
    seen: dict[str, str] = {}

    async def note(msg: Any) -> None:
        seen[msg.subject.rsplit(".", 1)[1]] = msg.subject.split(".")[2]

    tap = await nc.subscribe(partition_subject(TABLE_VIEW, "*"), cb=note)
    games = [await start_game(nc) for _ in range(GAMES)]
    numbers = await asyncio.gather(*(play_turns(nc, game_id, players, 4) for game_id, players in games))
    await tap.unsubscribe()
    assert numbers == [5] * GAMES  # GameStarted and four moves each
    assert {game_id: int(partition) for game_id, partition in seen.items()} == \
        {game_id: game_partition(game_id) for game_id, _ in games}

    # Every game's commands went to its partition's holder, and only there; none took the shared subject.
    held = await holders(nc)
    served = {replica.pid: game_commands(replica) for replica in replicas}
    for pid, counts in served.items():
        assert counts.get("shared", 0) == 0
        answered = {int(label) for label, count in counts.items() if label != "shared" and count > 0}
        assert answered <= {k for k, p in held.items() if p == pid}
    for game_id, _ in games:
        holder = held[game_partition(game_id)]
        assert served[holder][str(game_partition(game_id))] > 0
    # Each replica judged its games on a warm cache: no append lost a race to the other replica.
    assert metric(first, "speed_table_append_conflicts_total") == 0
    assert metric(second, "speed_table_append_conflicts_total") == 0

    # The second replica dies mid-play; the games go on while its leases run out, and the first takes them all.
    killed = time.monotonic()
    assert second.stop(kill=True) == -9
    playing = asyncio.gather(*(play_turns(nc, game_id, players, 4) for game_id, players in games))
    await wait_for_spread(nc, [first.pid], within=LEASE_SECONDS * 4 / 3 + 1.5)
    took_over = time.monotonic() - killed
    assert await playing == [9] * GAMES  # not a move lost, none refused
    assert took_over <= LEASE_SECONDS * 4 / 3 + 1.5
    assert metric(first, "speed_table_partitions_held") == TABLE_PARTITIONS
    before, sent = game_commands(first), SENT["commands"]
    assert await asyncio.gather(*(play_turns(nc, game_id, players, 1) for game_id, players in games)) == [10] * GAMES
    after = game_commands(first)
    assert after.get("shared", 0) == before.get("shared", 0)  # the survivor serves every partition itself now
    assert sum(after.values()) - sum(before.values()) == SENT["commands"] - sent  # every one of them

    # A replica that joins gets its even share.
    third = api_replica(infra, tmp_path, "table-3").start()
    replicas.append(third)
    third.wait_ready(timeout=60)
    assert third.pid is not None
    await wait_for_spread(nc, [first.pid, third.pid], within=5 * LEASE_SECONDS)
    assert await asyncio.gather(*(play_turns(nc, game_id, players, 1) for game_id, players in games)) == [11] * GAMES


async def test_a_replica_that_stops_gives_its_partitions_up_at_once(
        nc: NatsClient, replicas: list[ServiceProcess]) -> None:
    first, second = replicas
    assert first.pid is not None and second.pid is not None
    await wait_for_spread(nc, [first.pid, second.pid], within=5 * LEASE_SECONDS)
    stopped = time.monotonic()
    second.stop()  # SIGTERM: a graceful stop hands its partitions back before it exits
    await wait_for_spread(nc, [first.pid], within=LEASE_SECONDS)
    assert time.monotonic() - stopped < LEASE_SECONDS + 2  # its leases were deleted, not left to run out
