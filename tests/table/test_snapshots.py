"""Snapshots of folded games: a cold replica that starts from one serves exactly what the fold of the log
serves, and one that does not fit the log (other code, another game, a log it is not part of, a hostile
pickle) is never used."""

from __future__ import annotations

import io
import os
import pickle
import zlib
from typing import Any

import msgspec
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.commands import StartGame, StartSeat
from libs.platform.contracts.events import PlatformSettings
from libs.platform.contracts.subjects import (
    GAME_SNAPSHOTS_STREAM,
    snapshot_subject,
)
from libs.platform.settings import Settings
from libs.platform.streams import ensure_streams
from libs.rules.evolve import evolve
from services.bot.app import create_app as create_bot_app
from services.table import metrics
from services.table.app import create_app as create_table_app
from services.table.event_store import GameLog, StoredEvent
from services.table.games import Games
from services.table.records import GameRecord, replay
from services.table.seeds import SeedSource
from services.table.snapshots import SNAPSHOT_FORMAT, Snapshots, fingerprint, freeze, thaw
from tests.conftest import running_app
from tests.table.computer_games import computers_play_to_the_end
from tools.replay_bench import GAMES, MemoryLog, play_game


def served(record: GameRecord) -> bytes:
    """What a table serves from a record, as JSON (where 1 and true differ): every seat's view, a spectator's, the
    legal moves, the record's facts."""
    seats = range(len(record.seats))
    return msgspec.json.encode([[record.engine.view(record.position, seat) for seat in seats],
            record.engine.view(record.position, None),
            [record.engine.legal_moves(record.position, seat) for seat in seats],
            record.last_effects, record.clocks, record.n, record.last_seq, record.last_hash, record.is_over,
            record.ended.outcome if record.ended else None])


@pytest.fixture(scope="module")
async def logs() -> dict[str, list[StoredEvent]]:
    """One finished 4-seat game per rule module (Speedmosaik's three workshops each), as the table stores it."""
    return {label: await play_game(game, settings, 11) for label, game, settings in GAMES}


@pytest.mark.parametrize("label", [label for label, _, _ in GAMES])
async def test_a_thawed_record_serves_what_the_fold_serves_and_folds_on_alike(
        logs: dict[str, list[StoredEvent]], label: str) -> None:
    events = logs[label]
    for cut in sorted({1, 2, len(events) // 3, len(events) // 2, len(events) - 1, len(events)}):
        folded = replay(events[:cut])
        thawed = thaw(freeze(folded), folded.game_id)
        assert thawed is not None, f"{label}: the snapshot at event {cut} was not read back"
        assert thawed == folded
        assert served(thawed) == served(folded)
        for stored in events[cut:]:
            thawed = thawed.fold(stored)
        assert served(thawed) == served(replay(events)), f"{label}: folding on from event {cut} differs"


def test_a_thawed_record_shares_the_rules_words_with_every_other_game(logs: dict[str, list[StoredEvent]]) -> None:
    folded = replay(logs["speedmosaik/kachelwand"])
    thawed = thaw(freeze(folded), folded.game_id)
    assert thawed is not None
    assert thawed.seats[0].kind is folded.seats[0].kind  # the same interned "human", not a copy per game


def test_a_snapshot_of_other_code_or_of_another_game_is_not_used(logs: dict[str, list[StoredEvent]]) -> None:
    folded = replay(logs["speedkoi"])
    snapshot = freeze(folded)
    head = len(SNAPSHOT_FORMAT)
    other_code = snapshot[:head] + bytes(32) + snapshot[head + 32:]
    assert thaw(other_code, folded.game_id) is None
    assert thaw(snapshot, "some-other-game") is None
    assert thaw(b"GSN0" + snapshot[head:], folded.game_id) is None
    assert thaw(snapshot[: len(snapshot) // 2], folded.game_id) is None


class _Boom:
    """Unpickled, this would run a shell command."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, ("touch /tmp/speed-snapshot-pwned",))


@pytest.mark.parametrize("payload", [_Boom(), ("x", {"game_id": _Boom()}), ("x", {"game_id": io.BytesIO})])
def test_a_snapshot_naming_anything_but_the_records_classes_is_refused_unrun(payload: Any) -> None:
    hostile = SNAPSHOT_FORMAT + fingerprint() + zlib.compress(pickle.dumps(payload, protocol=5))
    before = metrics.SNAPSHOT_LOADS.labels("unreadable")._value.get()
    assert thaw(hostile, "x") is None
    assert metrics.SNAPSHOT_LOADS.labels("unreadable")._value.get() == before + 1
    assert not os.path.exists("/tmp/speed-snapshot-pwned")


# ---- against the real stream ---------------------------------------------------------------------------
class FixedSeeds(SeedSource):
    def draw(self) -> bytes:
        return bytes(range(32))


async def first_moves(games: Games, record: GameRecord, moves: int) -> GameRecord:
    """Make `moves` moves in `record`'s game: each the first legal one of the first seat to act, by its player."""
    for _ in range(moves):
        seat = record.engine.must_act(record.position)[0]
        move = record.engine.legal_moves(record.position, seat)[0]
        record = await games.move(record.game_id, seat, move, actor=str(record.seats[seat].player_id))
    return record


async def played(games: Games, game_id: str, moves: int) -> GameRecord:
    """Start a two-seat Kachelwand game and make `moves` moves (`first_moves`)."""
    seats = [StartSeat(kind="human", name=name, player_id=f"snap-{name}") for name in ("Anna", "Bert")]
    record = await games.start(StartGame(game="speedmosaik", game_id=game_id, settings={}, seats=seats))
    return await first_moves(games, record, moves)


def loads(outcome: str) -> float:
    return float(metrics.SNAPSHOT_LOADS.labels(outcome)._value.get())


async def test_a_cold_replica_starts_from_the_snapshot_and_folds_the_tail_on(nc: NatsClient) -> None:
    js = nc.jetstream()
    await ensure_streams(js)
    writer = Games(GameLog(js, nc), FixedSeeds(), snapshots=Snapshots(js, nc))
    game_id = "snapshot-tail-" + os.urandom(4).hex()
    snapped = await played(writer, game_id, 5)
    await writer.keep_snapshot(snapped)
    latest = await first_moves(writer, snapped, 4)

    used = loads("used")
    cold = Games(GameLog(js, nc), FixedSeeds(), snapshots=Snapshots(js, nc))
    record = await cold.load(game_id)
    assert loads("used") == used + 1
    assert record == latest
    assert served(record) == served(replay(await cold.events(game_id)))


@pytest.mark.parametrize("tamper", ["hash", "sequence", "number"])
async def test_a_snapshot_the_log_does_not_bear_out_is_ignored(nc: NatsClient, tamper: str) -> None:
    js = nc.jetstream()
    await ensure_streams(js)
    writer = Games(GameLog(js, nc), FixedSeeds(), snapshots=Snapshots(js, nc))
    game_id = f"snapshot-{tamper}-" + os.urandom(4).hex()
    record = await played(writer, game_id, 6)
    # A snapshot that claims to be the game at a point of its log where the log says otherwise.
    forged = {"hash": evolve(record, last_hash="f" * 64), "sequence": evolve(record, last_seq=record.last_seq - 1),
              "number": evolve(record, n=record.n - 1)}[tamper]
    await js.publish(snapshot_subject(game_id), freeze(forged), stream=GAME_SNAPSHOTS_STREAM)

    behind = loads("behind_log")
    cold = Games(GameLog(js, nc), FixedSeeds(), snapshots=Snapshots(js, nc))
    assert await cold.load(game_id) == record
    assert loads("behind_log") == behind + 1


async def test_a_game_without_a_snapshot_is_folded_from_its_log(nc: NatsClient) -> None:
    js = nc.jetstream()
    await ensure_streams(js)
    writer = Games(GameLog(js, nc), FixedSeeds())
    game_id = "snapshot-none-" + os.urandom(4).hex()
    record = await played(writer, game_id, 3)
    missing = loads("missing")
    cold = Games(GameLog(js, nc), FixedSeeds(), snapshots=Snapshots(js, nc))
    assert await cold.load(game_id) == record
    assert loads("missing") == missing + 1


async def test_the_follow_up_keeps_a_finished_games_snapshot_for_cold_replicas(
        settings: Settings, nc: NatsClient) -> None:
    js = nc.jetstream()
    async with running_app(create_table_app(settings)) as table, running_app(create_bot_app(settings)):
        game_id = await computers_play_to_the_end(nc, table)

    stored = await js.get_last_msg(GAME_SNAPSHOTS_STREAM, snapshot_subject(game_id))
    snapshot = thaw(stored.data or b"", game_id)
    events = await GameLog(js, nc).read(game_id)
    assert snapshot is not None and snapshot.ended is not None  # taken after GameEnded, the log's last event
    assert (snapshot.n, snapshot.last_seq) == (len(events), events[-1].seq)
    used = loads("used")
    cold = Games(GameLog(js, nc), FixedSeeds(), snapshots=Snapshots(js, nc))
    assert served(await cold.load(game_id)) == served(replay(events))
    assert loads("used") == used + 1


async def test_a_game_with_think_time_and_a_departed_seat_thaws_with_its_clocks_and_seats() -> None:
    games = Games(MemoryLog(), FixedSeeds())
    seats = [StartSeat(kind="human", name=name, player_id=f"clock-{name}") for name in ("Anna", "Bert", "Cleo")]
    record = await games.start(StartGame(game="speedmosaik", game_id="snapshot-clocks", settings={}, seats=seats,
                                         platform=PlatformSettings(think_time=60, tempo="schnell")))
    record = await first_moves(games, record, 4)
    record = await games.leave(record.game_id, 2, "clock-Cleo")
    assert any(clock is not None for clock in record.clocks) and record.left == {2}
    thawed = thaw(freeze(record), record.game_id)
    assert thawed == record
    assert served(thawed) == served(record)
    assert (thawed.clocks, thawed.platform, thawed.left, thawed.left_with_others) == (
        record.clocks, record.platform, record.left, record.left_with_others)
