"""`speed rebuild leaderboard`: after a few hundred games of mixed kinds played through the real platform, the
lists rebuilt from the log equal the live ones; a changed live row is found. `speed rebuild ledger` checks the
ledger's balances against its postings.

The module runs its own NATS server and its own database (on the session's PostgreSQL): the rebuild compares
whole tables, and other modules publish game ends that no log holds (tests/game_facts.py), which a rebuild
from the log rightly does not reproduce.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import nats
import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import create_engine, text

from libs.devservers.nats_server import NatsServer, create_platform_streams
from libs.devservers.processes import REPO_ROOT, ServiceProcess
from libs.platform.contracts.commands import (
    LEAVE_GAME,
    PLAY_MOVE,
    START_GAME,
    VIEW_GAME,
    LeaveGame,
    MakeMove,
    StartGame,
    StartSeat,
    ViewGame,
)
from libs.platform.contracts.events import GameMode, PlayerRegistered
from libs.platform.contracts.subjects import (
    GAME_ENDED_FACT,
    GAME_FACTS_STREAM,
    GAMES_STREAM,
    LEADERBOARD_DURABLE,
    LEDGER_GAMES_DURABLE,
    LEDGER_REGISTRATIONS_DURABLE,
    LOBBY_STREAM,
    PLAYER_REGISTERED,
    TABLE_FOLLOWUP_DURABLE,
    game_subject,
    registration_msg_id,
)
from libs.platform.database import upgrade_all
from libs.platform.days import day_end
from libs.platform.envelope import Event
from libs.platform.rpc import CommandRefused, call
from libs.platform.settings import sqlalchemy_url
from services.table.event_store import StoredEvent
from tests.chaos.fleet import Fleet
from tests.conftest import Infrastructure
from tests.game_facts import consumer_is_done
from tests.rules.helpers import registered_plugins
from tools.speed.cli import main as speed
from tools.speed.rebuild_log import merge_by_log_position, read_stream

TINY = "tinygame"
PLUGIN = "tests.rules.tinygame"
GAMES = 240
"""Zwergenstich games (2–4 seats, ordinary, free solo, daily and campaign), plus one of each landed module."""
AT_ONCE = 100
PLAYERS = [f"rebuild-{index:02d}" for index in range(14)]
"""A small pool, so lists sum over many games, names change and badges are earned more than once."""
REGISTERED = [player for player in PLAYERS if not player.endswith(("3", "7"))]
"""The players who play as registered accounts (the others as guests)."""
SPEED = str(REPO_ROOT / ".venv" / "bin" / "speed")


@dataclass
class Servers:
    infra: Infrastructure
    database_url: str
    nats_url: str
    games: list[str] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        return {**os.environ, **self.infra.env(), "RULE_PLUGINS": PLUGIN, "PYTHONPATH": str(REPO_ROOT)}


@pytest.fixture(scope="module")
def servers(infra: Infrastructure, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """Own NATS, an own database on the session's PostgreSQL, and table, bot, leaderboard and ledger as processes."""
    nats_server = NatsServer(tmp_path_factory.mktemp("rebuild-nats")).start()
    database = f"rebuild_{uuid.uuid4().hex[:12]}"
    base, _, _ = infra.database_url.rpartition("/")
    database_url = f"{base}/{database}"
    admin = create_engine(sqlalchemy_url(infra.database_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{database}"'))
    fleet: Fleet | None = None
    try:
        upgrade_all(database_url)
        create_platform_streams(nats_server.url)
        own = replace(infra, nats_url=nats_server.url, database_url=database_url,
                      nats_credentials=str(nats_server.credentials_file))
        plugins = {"RULE_PLUGINS": PLUGIN}
        fleet = Fleet(env=own.env(), logs=tmp_path_factory.mktemp("rebuild-logs"),
                      extra_env={"table": plugins, "bot": plugins, "leaderboard": plugins, "ledger": plugins})
        fleet.start({"table": 1, "bot": 1, "leaderboard": 1, "ledger": 1})
        yield Servers(infra=own, database_url=database_url, nats_url=nats_server.url)
    finally:
        if fleet is not None:  # all at once: each takes about a second to shut down gracefully
            with ThreadPoolExecutor() as pool:
                list(pool.map(ServiceProcess.stop, fleet.all()))
        nats_server.stop()
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
        admin.dispose()


@dataclass(frozen=True)
class Plan:
    """One game to play: its start command, the human seats, and which of them leave (after how many moves)."""

    start: StartGame
    humans: dict[int, str]
    leaving: dict[int, int]


def _seat(kind: str, index: int, player: str, account: str, rng: random.Random) -> StartSeat:
    """A seat of the start command; a human's name varies (the lists keep the newest)."""
    if kind == "bot":
        return StartSeat(kind="bot", level="easy", name=f"Computer {index + 1}")
    return StartSeat(kind="human", player_id=player, name=f"{player} v{rng.randint(1, 2)}", account=account)


def plan_games(rng: random.Random) -> list[Plan]:
    """The games: mixed seat counts, humans and computers, guests and registered, modes, leavers.

    Computers decide by playouts (~13 ms a decision at level easy), humans here in microseconds: most tables
    are of humans only, so the few hundred games end within seconds.
    """
    today = datetime.now(UTC).date()
    plans = []
    for index in range(GAMES):
        game_id = uuid.uuid4().hex
        kind = index % 12
        mode: GameMode | None = None
        seed = reveal = None
        settings: dict[str, Any] = {"variante": "einzeln"}
        if kind <= 7:  # an ordinary table of 2-4 humans (one table in eight with a computer)
            count = 2 + index % 3
            settings = {"variante": "team" if count == 4 and index % 8 == 2 else "einzeln"}
            players = rng.sample(PLAYERS, count)
            kinds = ["human"] * count if kind < 7 else ["human"] * (count - 1) + ["bot"]
        elif kind <= 9:  # the daily mode: one human, one computer, on one of the last three days
            day = today - timedelta(days=rng.randint(0, 2))
            mode = GameMode(key="tagesstich", day=day.isoformat(), attempt=rng.choice((1, 1, 2)))
            seed = day.strftime("%Y%m%d").ljust(64, "0")
            reveal = day_end(day).isoformat()
            players, kinds = [rng.choice(PLAYERS), ""], ["human", "bot"]
        elif kind == 10:  # the campaign
            stage = 1 if index % 48 else 2
            mode = GameMode(key="reise", stage=stage)
            players, kinds = [rng.choice(PLAYERS), "", ""][:stage + 1], ["human", "bot", "bot"][:stage + 1]
        else:  # free solo against a computer
            mode = GameMode(key="frei")
            players, kinds = [rng.choice(PLAYERS), ""], ["human", "bot"]
        seats = []
        humans: dict[int, str] = {}
        for position, (seat_kind, player) in enumerate(zip(kinds, players, strict=True)):
            account = "registered" if player in REGISTERED else "guest"
            seats.append(_seat(seat_kind, position, player, account, rng))
            if seat_kind == "human":
                humans[position] = player
        leaving = {seat: rng.choice((0, 1, 3)) for seat in humans if rng.random() < 0.06}
        plans.append(Plan(StartGame(game=TINY, game_id=game_id, settings=settings, seats=seats, mode=mode,
                                    seed=seed, seed_reveal_at=reveal), humans, leaving))
    landed: tuple[tuple[str, dict[str, Any] | None], ...] = (
        ("speedmosaik", {"workshop": "kachelwand"}), ("speedkoi", None), ("speednova", None))
    for game, landed_settings in landed:
        # A landed module each: its human leaves at once and the computers finish (quickly, at level easy).
        player = rng.choice(PLAYERS)
        plans.append(Plan(StartGame(game=game, game_id=uuid.uuid4().hex, settings=landed_settings,
                                    seats=[_seat("human", 0, player, "registered", rng), _seat("bot", 1, "", "", rng)]),
                          {0: player}, {0: 0}))
    return plans


def choose(moves: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A quick player: marks or offers now and then, otherwise draws, passes or lays a card."""
    final = [move for move in moves if {"ziehen", "passen", "legen"} & set(move)]
    return rng.choice(moves) if not final or rng.random() < 0.2 else rng.choice(final)


async def play(nc: NatsClient, plan: Plan, rng: random.Random) -> None:
    """Start the game and play its humans' seats until it ends (leavers leave after their moves)."""
    start = plan.start
    assert start.game_id is not None
    await call(nc, START_GAME, start, timeout=20)
    moved = dict.fromkeys(plan.humans, 0)
    active = dict(plan.humans)
    while True:
        for seat, after in plan.leaving.items():
            if seat in active and moved[seat] >= after:
                await call(nc, LEAVE_GAME, LeaveGame(game_id=start.game_id, player_id=active.pop(seat)))
        viewer = next(iter(active), None)
        view = await call(nc, VIEW_GAME, ViewGame(game_id=start.game_id, seat=viewer))
        if view["status"] != "running":
            return
        movers = [seat for seat in view["to_move"] if seat in active]
        if not movers:
            await asyncio.sleep(0.05)  # the computers' turn
            continue
        for seat in movers:
            seen = view if seat == viewer else await call(nc, VIEW_GAME, ViewGame(game_id=start.game_id, seat=seat))
            if seat not in seen["to_move"] or not seen["legal_moves"]:
                continue
            try:
                await call(nc, PLAY_MOVE, MakeMove(game_id=start.game_id, seat=seat, actor=active[seat],
                                                   move=choose(seen["legal_moves"], rng), chosen_by="player",
                                                   expected_n=seen["n"]))
                moved[seat] += 1
            except CommandRefused as refused:
                if refused.status != 409:  # another seat moved first: look again
                    raise


async def play_all(nats_url: str, plans: list[Plan]) -> None:
    nc = await nats.connect(nats_url)
    try:
        js = nc.jetstream()
        for player in REGISTERED:  # as the lobby announces a sign-up: the ledger opens and funds a wallet
            await js.publish(PLAYER_REGISTERED, PlayerRegistered(player_id=player, name=player,
                                                                 registered_at="2026-12-01T00:00:00Z").encode(),
                             stream=LOBBY_STREAM, headers={"Nats-Msg-Id": registration_msg_id(player)})
        gate = asyncio.Semaphore(AT_ONCE)

        async def one(index: int, plan: Plan) -> None:
            async with gate:
                await play(nc, plan, random.Random(index))

        await asyncio.gather(*(one(index, plan) for index, plan in enumerate(plans)))
        await consumer_is_done(js, GAMES_STREAM, TABLE_FOLLOWUP_DURABLE, timeout=30)
        await consumer_is_done(js, GAME_FACTS_STREAM, LEADERBOARD_DURABLE, timeout=30)
        await consumer_is_done(js, GAME_FACTS_STREAM, LEDGER_GAMES_DURABLE, timeout=30)
        await consumer_is_done(js, LOBBY_STREAM, LEDGER_REGISTRATIONS_DURABLE, timeout=30)
    finally:
        await nc.close()


@pytest.fixture(scope="module")
def played(servers: Servers) -> Servers:
    """The games, played to their ends and projected by the live leaderboard."""
    plans = plan_games(random.Random(13))
    began = time.monotonic()
    asyncio.run(play_all(servers.nats_url, plans))
    print(f"{len(plans)} games played and projected in {time.monotonic() - began:.1f} s")
    servers.games = [plan.start.game_id or "" for plan in plans]
    return servers


def rebuild(servers: Servers, *extra: str) -> tuple[int, str]:
    """Run `speed rebuild leaderboard` in this process against the module's servers; (exit status, output)."""
    from contextlib import redirect_stdout
    from io import StringIO

    output = StringIO()
    with registered_plugins(PLUGIN), redirect_stdout(output):
        status = speed(["rebuild", *extra, "--database-url", servers.database_url, "--nats-url", servers.nats_url])
    return status, output.getvalue()


def live(servers: Servers, query: str) -> list[Any]:
    engine = create_engine(sqlalchemy_url(servers.database_url))
    try:
        with engine.begin() as connection:
            result = connection.execute(text(query))
            return list(result) if result.returns_rows else []
    finally:
        engine.dispose()


def test_the_games_cover_the_mix(played: Servers) -> None:
    """Not a check of the rebuild: the played games hold what the lists are made of, in every kind."""
    (games, humans, left, penalties, modes, practice, guests), = live(played, """
        SELECT (SELECT COUNT(*) FROM leaderboard.finished_games), COUNT(*), COUNT(*) FILTER (WHERE has_left),
               COUNT(*) FILTER (WHERE points = -10), COUNT(DISTINCT mode), COUNT(*) FILTER (WHERE practice),
               COUNT(*) FILTER (WHERE account = 'guest') FROM leaderboard.results""")
    assert games == len(played.games)
    assert humans > games and left > 0 and penalties > 0 and modes == 3 and practice > 0 and 0 < guests < humans
    badges = {row[0] for row in live(played, "SELECT DISTINCT badge FROM leaderboard.badge_awards")}
    assert {"erster_stich", "serie"} <= badges
    assert {row[0] for row in live(played, "SELECT DISTINCT game FROM leaderboard.results")} == {
        TINY, "speedmosaik", "speedkoi", "speednova"}


def test_the_installed_command_rebuilds_the_live_lists(played: Servers) -> None:
    env = {**played.env(), "NATS_URL": played.nats_url, "DATABASE_URL": played.database_url}
    began = time.monotonic()
    done = subprocess.run([SPEED, "rebuild", "leaderboard", "--database-url", played.database_url,
                           "--nats-url", played.nats_url], env=env, capture_output=True, text=True, timeout=60,
                          cwd=REPO_ROOT)
    print(f"speed rebuild leaderboard: {time.monotonic() - began:.1f} s\n{done.stdout}{done.stderr}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "gleich"
    assert f"{len(played.games)} Spielenden aus dem Log" in done.stdout
    assert "Hinweis" not in done.stdout.replace('Hinweis: kein Archiv ("table".events)', "")
    # The fresh schema is gone again.
    assert not live(played, "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'leaderboard_rebuild_%'")


def test_archive_stream_and_facts_each_missing_some(played: Servers) -> None:
    """Games purged from the stream are read from the archive, games not archived yet from the stream, and
    ends whose GAME_FACTS copy is gone are placed where the log has them: the rebuild still equals."""
    if not live(played, """SELECT to_regclass('"table".events')"""):
        pytest.skip("no archive in this tree")
    deadline = time.monotonic() + 15
    while len(ends := live(played, """SELECT game_id FROM "table".events WHERE type = 'GameEnded'
                                       ORDER BY stream_seq""")) < len(played.games):
        assert time.monotonic() < deadline, "the archive did not catch up"
        time.sleep(0.1)
    purged, unarchived = [row[0] for row in ends[:20]], [row[0] for row in ends[20:40]]

    async def remove() -> None:
        nc = await nats.connect(played.nats_url)
        try:
            js = nc.jetstream()
            for game_id in purged:  # as the archive's sweep does once the grace period is over
                await js.purge_stream(GAMES_STREAM, subject=game_subject(game_id))
            for seq, _ in (await read_stream(js, GAME_FACTS_STREAM, GAME_ENDED_FACT))[:10]:
                await js.delete_msg(GAME_FACTS_STREAM, seq)  # the oldest copies, as a limit would trim them
        finally:
            await nc.close()

    asyncio.run(remove())
    live(played, "DELETE FROM \"table\".events WHERE type = 'GameEnded' AND game_id IN ("
                 + ", ".join(f"'{game_id}'" for game_id in unarchived) + ")")
    status, output = rebuild(played, "leaderboard")
    assert status == 0 and output.splitlines()[-1] == "gleich", output
    assert f"({len(played.games) - 20} im Archiv, 20 nur im Strom GAMES)" in output
    assert "Hinweis: 10 Spiele ohne Kopie auf GAME_FACTS" in output


def test_ends_without_a_copy_go_where_the_log_has_them() -> None:
    def logged(seq: int) -> StoredEvent:
        return StoredEvent(seq=seq, event=cast(Event, seq))

    copied = [logged(seq) for seq in (10, 30, 20, 50)]  # the copies' order: 20 was published after 30
    uncopied = [logged(seq) for seq in (5, 25, 60, 70)]
    assert [item.seq for item in merge_by_log_position(copied, uncopied)] == [5, 10, 25, 30, 20, 50, 60, 70]
    assert merge_by_log_position([], uncopied) == uncopied and merge_by_log_position(copied, []) == copied


def test_a_changed_live_row_is_found(played: Servers) -> None:
    (game_id, seat, score), = live(played, "SELECT game_id, seat, score FROM leaderboard.results "
                                           "ORDER BY game_id, seat LIMIT 1")
    live(played, f"UPDATE leaderboard.results SET score = score + 7 WHERE game_id = '{game_id}' AND seat = {seat}")
    live(played, "DELETE FROM leaderboard.badge_awards WHERE badge = 'serie'")
    try:
        status, output = rebuild(played, "leaderboard", "--keep")
    finally:
        live(played, f"UPDATE leaderboard.results SET score = {score} WHERE game_id = '{game_id}' AND seat = {seat}")
    assert status == 1, output
    assert "gleich" not in output.splitlines()
    assert f"anders (game_id={game_id}, seat={seat}): score live {score + 7}, neu {score}" in output
    assert "badge_awards: 0 Zeilen anders, 0 nur live" in output and "game=tinygame, badge=serie" in output
    kept = [row[0] for row in live(played, "SELECT nspname FROM pg_namespace "
                                           "WHERE nspname LIKE 'leaderboard_rebuild_%'")]
    assert len(kept) == 1 and kept[0] in output
    # The kept schema holds the rebuilt lists: copying its awards back repairs the live table.
    live(played, f'INSERT INTO leaderboard.badge_awards SELECT * FROM "{kept[0]}".badge_awards '
                 "WHERE badge = 'serie'")
    live(played, f'DROP SCHEMA "{kept[0]}" CASCADE')


def test_the_ledger_check(played: Servers) -> None:
    status, output = rebuild(played, "ledger")
    assert status == 0 and output.splitlines()[-1] == "gleich", output
    # Every registered player's wallet funded once, beside the system accounts (grants, house).
    assert f"{len(REGISTERED) + 2} Konten, {len(REGISTERED)} Buchungssätze" in output
    live(played, "INSERT INTO ledger.accounts (id, kind, owner, balance) VALUES ('wallet:rebuild', 'wallet', "
                 "'rebuild', 5)")
    try:
        status, output = rebuild(played, "ledger")
    finally:
        live(played, "DELETE FROM ledger.accounts WHERE id = 'wallet:rebuild'")
    assert status == 1, output
    assert "Kontostand ≠ Summe der Buchungen: 1" in output and "wallet:rebuild" in output


def test_exits_2_when_the_servers_cannot_be_reached() -> None:
    assert speed(["rebuild", "leaderboard", "--database-url", "postgresql://nobody@127.0.0.1:1/none",
                  "--nats-url", "nats://127.0.0.1:1"]) == 2
