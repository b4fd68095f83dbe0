"""On a JetStream cluster every replica of the GAMES stream answers a direct get, and one may lag its leader by a few
messages: a table replica may read a game's log as it stood an event ago. The follow-up and the computers' moves must
not take such a read for the game having moved on (it stalled games on the cluster for good: the follow-up skipped
the event, the computer's move was refused as stale), nor may a cached game go back to an older position.

The lag is reproduced on a single server by handing the table an event that is not (yet) in the log it reads.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.commands import StartGame, StartSeat
from libs.platform.contracts.events import PlatformSettings
from libs.platform.envelope import EventType, new_event
from libs.platform.rpc import CommandRefused
from services.table.event_store import GameLog, StoredEvent
from services.table.games import Games, LogBehind, _sealed_move_data
from services.table.records import GameRecord
from services.table.seeds import SeedSource


def games_on(nc: NatsClient) -> Games:
    return Games(GameLog(nc.jetstream(), nc), SeedSource())


async def started(games: Games) -> GameRecord:
    return await games.start(StartGame(
        game="speedmosaik", settings={}, platform=PlatformSettings(think_time=120),
        seats=[StartSeat(kind="bot", level="easy", name="Computer 1"),
               StartSeat(kind="bot", level="easy", name="Computer 2")]))


def next_move(record: GameRecord) -> StoredEvent:
    """The event a computer's move would append after `record` (not appended: a lagging read does not see it)."""
    seat = record.engine.pending(record.position)[0].seat
    move = record.engine.legal_moves(record.position, seat)[0]
    data = _sealed_move_data(record, seat, move, "bot", record.engine.apply(record.position, seat, move))
    event = new_event(game_id=record.game_id, n=record.n + 1, type=EventType.MOVE_MADE, actor="bot:easy",
                      rules=record.module.rules_id, prev=record.last_hash, data=data)
    return StoredEvent(seq=record.last_seq + 1_000_000, event=event)


async def test_the_follow_up_acts_on_the_event_it_was_handed_when_its_read_of_the_log_lags(
        nc: NatsClient) -> None:
    game = await started(games_on(nc))
    follow_up = games_on(nc)  # another replica, with nothing cached
    ahead = next_move(await follow_up.load(game.game_id))
    record = await follow_up.at_event(ahead.event, ahead.seq)
    assert record.n == ahead.event.n  # not the older position the log read gave: that looked like "moved on"
    assert follow_up.cached(game.game_id) == record


async def test_the_follow_up_is_told_to_try_again_when_its_read_of_the_log_lags_by_more_than_one_event(
        nc: NatsClient) -> None:
    game = await started(games_on(nc))
    follow_up = games_on(nc)
    first = next_move(await follow_up.load(game.game_id))
    two_ahead = replace(first.event, n=first.event.n + 1)
    with pytest.raises(LogBehind):
        await follow_up.at_event(two_ahead, first.seq + 1)


class LaggingLog(GameLog):
    """The GAMES stream as a replica that lags its leader by the leader's last event answers a direct get (the
    stream's leader, asked by JetStream's regular get, has it)."""

    async def last_sequence(self, game_id: str) -> int:
        return (await super().last_sequence(game_id)) - 1 if await super().last_sequence(game_id) > 1 else 0

    async def read(self, game_id: str, after_seq: int = 0) -> list[StoredEvent]:
        return (await super().read(game_id, after_seq))[:-1]


async def test_a_computers_move_on_a_position_the_replica_has_not_read_yet_is_not_refused_as_stale(
        nc: NatsClient) -> None:
    players = games_on(nc)
    game = await started(players)
    seat = game.engine.pending(game.position)[0].seat
    after = await players.move(game.game_id, seat, game.engine.legal_moves(game.position, seat)[0],
                               actor="bot:easy", chosen_by="bot")
    lagging = Games(LaggingLog(nc.jetstream(), nc), SeedSource())
    assert (await lagging.load(game.game_id)).n == 1  # its reads end an event early
    # The computer was asked at event 2, which this replica's reads do not show: a 503 (ask again), never "stale",
    # which made the computer drop its turn for good.
    seat = after.engine.pending(after.position)[0].seat
    with pytest.raises(LogBehind) as refused:
        await lagging.move(game.game_id, seat, after.engine.legal_moves(after.position, seat)[0], actor="bot:easy",
                           chosen_by="bot", expected_n=2)
    assert refused.value.status == 503 and refused.value.code == "unavailable"


async def test_a_move_on_a_position_the_log_never_reached_is_refused_as_stale(nc: NatsClient) -> None:
    game = await started(games_on(nc))
    seat = game.engine.pending(game.position)[0].seat
    with pytest.raises(CommandRefused) as refused:
        await games_on(nc).move(game.game_id, seat, game.engine.legal_moves(game.position, seat)[0],
                                actor="bot:easy", chosen_by="bot", expected_n=5)
    assert refused.value.status == 409 and refused.value.code == "stale"


async def test_a_cached_game_does_not_go_back_when_a_read_of_the_log_lags_behind_it(nc: NatsClient) -> None:
    game = await started(games_on(nc))
    table = games_on(nc)
    ahead = next_move(await table.load(game.game_id))
    await table.at_event(ahead.event, ahead.seq)  # the replica knows event 2 (from the follow-up's delivery)
    assert (await table.load(game.game_id)).n == 2  # the log as read ends at event 1: the record stays at 2

