"""Chaos: 100 stake games of every workshop while every service is killed (SIGKILL) and restarted at random
moments, and the NATS server and PostgreSQL are restarted once each; afterwards nothing is lost or doubled.

The games run on servers of their own (so restarting them disturbs no other test). Two registered players
with a stake sit at each table (and a computer in the third seat, where there is one). Nobody acts by hand:
at most tables both humans leave at once (the computers play on for them; the pot goes to the house); at every
third table (one with a computer) the second human leaves and the first stays, and their think time runs out
at every decision (the table's clock runs behind, CLOCK_LAG_SECONDS), so the computer decides for them through
the durable deadlines; they win the pot.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, replace
from typing import Any

import httpx
import nats
import psycopg
import pytest
from nats.aio.client import Client as NatsClient

from libs.devservers import NatsServer, PostgresServer
from libs.devservers.processes import SERVICES
from libs.devservers.servers import start_servers
from libs.platform.contracts.subjects import (
    BOT_TURNS_DURABLE,
    BOT_TURNS_STREAM,
    GAME_FACTS_STREAM,
    GAMES_STREAM,
    LEADERBOARD_DURABLE,
    LEDGER_GAMES_DURABLE,
    LOBBY_GAME_ENDS_DURABLE,
    TABLE_FOLLOWUP_DURABLE,
)
from libs.platform.envelope import Event
from libs.platform.table_options import GRACE_SECONDS
from services.leaderboard.projection import read_finished_game
from tests.chaos.fleet import LANDED, Fleet, check_logs, wait_until_all_ended
from tests.conftest import Infrastructure
from tests.game_facts import consumer_is_done

GAMES = 100
STAKE = 10
THINK_TIME = 30
CHAOS_SEED = int(os.environ.get("CHAOS_SEED", "20261201"))
"""Orders the faults and picks their moments; set CHAOS_SEED to explore other orders."""
CHAOS_WINDOW = 30.0
"""Seconds after the games started within which every fault happens, each at a seeded random moment."""
NAMES = ("Anna", "Bert", "Clara", "Dora", "Emil", "Frieda", "Gustav", "Hanna", "Ida", "Jakob")


@dataclass
class Servers:
    """NATS and PostgreSQL of the chaos test only, restartable on their ports and data."""

    nats: NatsServer
    postgres: PostgresServer
    infra: Infrastructure


@pytest.fixture(scope="module")
def servers(infra: Infrastructure, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    # Its own servers (with the services' NATS users, as the session's), so the test can restart them.
    started = start_servers(tmp_path_factory.mktemp("chaos-servers"), throwaway=True)
    assert started.nats is not None and started.postgres is not None
    try:
        yield Servers(started.nats, started.postgres,
                      replace(infra, nats_url=started.nats_url, database_url=started.database_url,
                              nats_credentials=started.nats_credentials))
    finally:
        started.stop()


@pytest.fixture(scope="module")
def fleet(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    """One replica of every service; the table's clock runs so far behind that a think time (and its grace)
    has passed when it begins: the computer decides for the human within a second."""
    lag = THINK_TIME + GRACE_SECONDS + 5
    # The test is the clients of ten players and an operator from one address: no per-client limits.
    unlimited = {"RATE_LIMIT_PER_SECOND": "0", "SIGNUPS_PER_HOUR": "0"}
    extra_env = {name: dict(unlimited) for name in SERVICES}
    extra_env["table"]["CLOCK_LAG_SECONDS"] = str(lag)
    fleet = Fleet(env=servers.infra.env(), logs=tmp_path_factory.mktemp("chaos-logs"), extra_env=extra_env)
    try:
        yield fleet.start({name: 1 for name in SERVICES})
    finally:
        fleet.stop()


@pytest.fixture
async def operator(servers: Servers) -> AsyncIterator[NatsClient]:
    client = await nats.connect(servers.infra.nats_url, max_reconnect_attempts=-1, reconnect_time_wait=0.5)
    yield client
    await client.close()


@dataclass(frozen=True)
class Player:
    player_id: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass(frozen=True)
class StakeGame:
    game_id: str
    host: Player
    guest: Player
    host_stays: bool
    """The host stays (and wins the pot, their think time running out each decision); else both leave."""


async def register(http: httpx.AsyncClient, fleet: Fleet, name: str) -> Player:
    answer = await http.post(f"{fleet.url('lobby')}/players", json={"name": name, "password": "chaos-passwort"})
    assert answer.status_code == 201, answer.text
    body = answer.json()
    player = Player(player_id=body["player_id"], token=body["token"])
    for _ in range(200):  # the ledger opens the wallet from the registration fact
        wallet = await http.get(f"{fleet.url('ledger')}/wallets/me", headers=player.auth)
        if wallet.status_code == 200:
            return player
        await asyncio.sleep(0.1)
    raise AssertionError(f"no wallet for {name}")


async def open_stake_game(http: httpx.AsyncClient, fleet: Fleet, index: int, host: Player, guest: Player) -> StakeGame:
    """Open a stake table of workshop `index`, seat the guest, start it (computers fill up), and leave."""
    lobby, table = fleet.url("lobby"), fleet.url("table")
    settings = {**LANDED[index % len(LANDED)], "stake": STAKE, "think_time": THINK_TIME}
    # The host stays at every third table (with three seats: a third of the decisions are theirs); at the
    # others both humans leave, two seats keep the games short (the machine has two cores for all of it).
    host_stays = index % 3 == 2
    opened = await http.post(f"{lobby}/tables", headers=host.auth, json={
        "game": "speedmosaik", "settings": settings, "player_count": 3 if host_stays else 2, "bot_level": "easy",
        "fill_with_bots": True})
    assert opened.status_code == 201, opened.text
    table_id = opened.json()["table_id"]
    joined = await http.post(f"{lobby}/tables/{table_id}/join", headers=guest.auth)
    assert joined.status_code == 200, joined.text
    started = await http.post(f"{lobby}/tables/{table_id}/start", headers=host.auth)
    assert started.status_code == 200, started.text
    game = StakeGame(game_id=started.json()["game_id"], host=host, guest=guest, host_stays=host_stays)
    for player in (guest,) if game.host_stays else (guest, host):
        left = await http.post(f"{table}/games/{game.game_id}/leave", headers=player.auth)
        assert left.status_code == 200, left.text
    return game


def run_chaos(fleet: Fleet, servers: Servers, seed: int) -> list[str]:
    """Kill (SIGKILL) and restart every service once, and restart NATS and PostgreSQL once, each at a seeded
    random moment of the chaos window; faults happen one after another. Returns what was done, in order."""
    rng = random.Random(seed)
    faults = [*(f"kill {name}" for name in SERVICES), "restart nats", "restart postgres"]
    rng.shuffle(faults)
    moments = sorted(rng.uniform(0, CHAOS_WINDOW) for _ in faults)
    began = time.monotonic()
    done = []
    for moment, fault in zip(moments, faults, strict=True):
        time.sleep(max(0.0, began + moment - time.monotonic()))
        if fault == "restart nats":
            servers.nats.stop()
            servers.nats.start()
        elif fault == "restart postgres":
            servers.postgres.stop()
            servers.postgres.start()
        else:
            fleet.restart(fleet.replicas[fault.removeprefix("kill ")][0], kill=True)
        done.append(fault)
    return done


def read_ledger(database_url: str, game_ids: list[str]) -> dict[str, Any]:
    """What the ledger booked, read directly from its tables (read-only)."""
    with psycopg.connect(database_url) as db, db.cursor() as cursor:
        total = cursor.execute("SELECT coalesce(sum(amount), 0) FROM ledger.postings").fetchone()
        unbalanced = cursor.execute(
            "SELECT t.idempotency_key FROM ledger.transactions t JOIN ledger.postings p ON p.transaction_id = t.id "
            "GROUP BY t.id HAVING sum(p.amount) <> 0").fetchall()
        drifted = cursor.execute(
            "SELECT a.id FROM ledger.accounts a LEFT JOIN ledger.postings p ON p.account_id = a.id "
            "GROUP BY a.id HAVING a.balance <> coalesce(sum(p.amount), 0)").fetchall()
        escrow = cursor.execute(
            "SELECT id, balance FROM ledger.accounts WHERE kind IN ('hold', 'pot') AND balance <> 0").fetchall()
        bookings: dict[str, list[tuple[str, str, int]]] = {}
        for key, kind, account, amount in cursor.execute(
                "SELECT t.idempotency_key, t.kind, p.account_id, p.amount FROM ledger.transactions t "
                "JOIN ledger.postings p ON p.transaction_id = t.id WHERE t.idempotency_key = ANY(%s)",
                ([f"{game_id}:{step}" for game_id in game_ids for step in ("pot", "payout")],)):
            bookings.setdefault(key, []).append((kind, account, amount))
    return {"total": total[0] if total else None, "unbalanced": unbalanced, "drifted": drifted, "escrow": escrow,
            "bookings": bookings}


def read_standings(database_url: str) -> dict[tuple[str, str, str], tuple[int, int, int, int]]:
    with psycopg.connect(database_url) as db, db.cursor() as cursor:
        rows = cursor.execute("SELECT game, variant, player_id, points, games, wins, best_score "
                              "FROM leaderboard.standings").fetchall()
    return {(game, variant, player): (points, games, wins, best) for game, variant, player, points, games, wins, best
            in rows}


def standings_from_logs(logs: dict[str, list[Event]]) -> dict[tuple[str, str, str], tuple[int, int, int, int]]:
    """The all-time lists rebuilt from the games' GameEnded events with the leaderboard's own reading of them."""
    standings: dict[tuple[str, str, str], tuple[int, int, int, int]] = {}
    for events in logs.values():
        finished = read_finished_game(events[-1])
        for result in finished.results:
            key = (finished.game, finished.variant, result.player_id)
            points, games, wins, best = standings.get(key, (0, 0, 0, result.score))
            standings[key] = (points + result.points, games + 1, wins + (result.place == 1), max(best, result.score))
    return standings


async def test_chaos_loses_nothing_doubles_nothing_and_every_pot_is_paid_once(
        fleet: Fleet, servers: Servers, operator: NatsClient) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        players = [await register(http, fleet, name) for name in NAMES]
        count = len(players)  # each player hosts GAMES / count tables, each with another partner
        pairs = [(players[i % count], players[(i + 1 + (i // count) % (count - 1)) % count]) for i in range(GAMES)]
        assert all(host != guest for host, guest in pairs)
        slots = asyncio.Semaphore(8)

        async def open_one(index: int) -> StakeGame:
            async with slots:
                return await open_stake_game(http, fleet, index, *pairs[index])

        games = await asyncio.gather(*(open_one(index) for index in range(GAMES)))

    faults: list[str] = []
    chaos = threading.Thread(target=lambda: faults.extend(run_chaos(fleet, servers, CHAOS_SEED)))
    chaos.start()
    try:
        game_ids = [game.game_id for game in games]
        await wait_until_all_ended(operator, game_ids, timeout=240)
    finally:
        await asyncio.to_thread(chaos.join)
    assert len(faults) == len(SERVICES) + 2

    logs = await check_logs(operator, [fleet.url("table")], game_ids)
    js = operator.jetstream()
    await consumer_is_done(js, GAMES_STREAM, TABLE_FOLLOWUP_DURABLE, timeout=60)
    await consumer_is_done(js, BOT_TURNS_STREAM, BOT_TURNS_DURABLE, timeout=60)
    for durable in (LEDGER_GAMES_DURABLE, LEADERBOARD_DURABLE, LOBBY_GAME_ENDS_DURABLE):
        await consumer_is_done(js, GAME_FACTS_STREAM, durable, timeout=60)

    ledger = await asyncio.to_thread(read_ledger, servers.postgres.url, game_ids)
    assert ledger["total"] == 0 and ledger["unbalanced"] == [] and ledger["drifted"] == []
    assert ledger["escrow"] == []  # every hold went into its pot, every pot was paid out
    bookings = ledger["bookings"]
    for game in games:
        pot = bookings.get(f"{game.game_id}:pot")
        assert pot is not None and sorted(amount for _, _, amount in pot) == [-STAKE, -STAKE, 2 * STAKE], game
        payout = bookings.get(f"{game.game_id}:payout")
        assert payout is not None, f"the pot of {game.game_id} was never paid"
        paid_to = {account: amount for _, account, amount in payout if amount > 0}
        if game.host_stays:
            assert {kind for kind, _, _ in payout} == {"pot_won"}
            assert paid_to == {f"wallet:{game.host.player_id}": 2 * STAKE}, payout
        else:
            assert {kind for kind, _, _ in payout} == {"pot_to_house"}
            assert list(paid_to.values()) == [2 * STAKE] and not any(a.startswith("wallet:") for a in paid_to)

    assert await asyncio.to_thread(read_standings, servers.postgres.url) == standings_from_logs(logs)
    with psycopg.connect(servers.postgres.url) as db:
        statuses = db.execute("SELECT status, count(*) FROM lobby.tables GROUP BY status").fetchall()
    assert statuses == [("finished", GAMES)]
