"""The table service over HTTP and NATS, against real JetStream: log first, clear refusals, no leaks."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import httpx
import msgspec
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity, PlayerKind, issue_token
from libs.platform.contracts.commands import StartGame, StartSeat
from libs.platform.contracts.events import PlayerLeft
from libs.platform.contracts.subjects import GAMES_STREAM, TABLE_PLAY, TABLE_START, game_subject
from libs.platform.envelope import Event, EventType, new_event, verify_chain
from libs.platform.rpc import CommandRefused, request
from libs.platform.settings import Settings
from services.table.app import create_app
from services.table.event_store import AppendConflict, GameLog, StoredEvent
from services.table.games import Games
from services.table.records import replay
from services.table.seeds import SeedSource
from services.table.views import game_view
from tests.conftest import TEST_AUTH_SECRET, running_app

ANNA = Identity(player_id="anna-" + uuid.uuid4().hex[:8], name="Anna", kind=PlayerKind.GUEST)
BERT = Identity(player_id="bert-" + uuid.uuid4().hex[:8], name="Bert", kind=PlayerKind.GUEST)


class FixedSeeds(SeedSource):
    """A seed source at the edge that always gives the same seed (so tests see the same deal)."""

    def draw(self) -> bytes:
        return bytes(range(32))


def auth(identity: Identity) -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token(TEST_AUTH_SECRET, identity)}"}


@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with running_app(create_app(settings, seeds=FixedSeeds())) as client:
        yield client


async def start_two_humans(nc: NatsClient) -> str:
    result = await request(nc, TABLE_START, {
        "game": "speedmosaik", "settings": {"workshop": "kachelwand"},
        "seats": [{"kind": "human", "player_id": ANNA.player_id, "name": "Anna"},
                  {"kind": "human", "player_id": BERT.player_id, "name": "Bert"}],
    })
    return str(result["game_id"])


async def stored_events(nc: NatsClient, game_id: str) -> list[Event]:
    return [stored.event for stored in await GameLog(nc.jetstream()).read(game_id)]


async def test_a_move_is_in_the_log_before_the_player_hears_back(table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start_two_humans(nc)
    view = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()
    move = view["legal_moves"][0]
    answer = await table.post(f"/games/{game_id}/moves", json={"move": move}, headers=auth(ANNA))
    assert answer.status_code == 200
    events = await stored_events(nc, game_id)
    assert [e.type for e in events] == [EventType.GAME_STARTED, EventType.MOVE_MADE]
    assert events[1].data["move"] == move and events[1].actor == ANNA.player_id
    assert answer.json()["n"] == 2
    verify_chain(events)


async def test_an_illegal_move_gets_the_german_reason_and_changes_nothing(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start_two_humans(nc)
    before = (await table.get(f"/games/{game_id}")).json()
    move = {"source": "schale", "schale": 1, "farbe": "lila", "reihe": 1}
    answer = await table.post(f"/games/{game_id}/moves", json={"move": move}, headers=auth(ANNA))
    assert answer.status_code == 422
    assert "lila" in answer.json()["detail"].lower() or "farbe" in answer.json()["detail"].lower()
    assert (await table.get(f"/games/{game_id}")).json() == before
    assert len(await stored_events(nc, game_id)) == 1


async def test_moving_when_it_is_the_other_seats_turn_is_refused(table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start_two_humans(nc)
    move = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()["legal_moves"][0]
    answer = await table.post(f"/games/{game_id}/moves", json={"move": move}, headers=auth(BERT))
    assert answer.status_code == 422
    assert "am Zug" in answer.json()["detail"]
    assert len(await stored_events(nc, game_id)) == 1


async def test_requests_without_a_valid_token_or_seat_are_refused(table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start_two_humans(nc)
    move = {"source": "schale", "schale": 1, "farbe": "blau", "reihe": 1}
    assert (await table.post(f"/games/{game_id}/moves", json={"move": move})).status_code == 401
    forged = {"Authorization": "Bearer " + issue_token("another-secret-0123456789abcdef0123456789", ANNA)}
    assert (await table.post(f"/games/{game_id}/moves", json={"move": move}, headers=forged)).status_code == 401
    stranger = Identity(player_id="carla", name="Carla", kind=PlayerKind.GUEST)
    refused = await table.post(f"/games/{game_id}/moves", json={"move": move}, headers=auth(stranger))
    assert refused.status_code == 403 and "nicht an dieser Partie" in refused.json()["detail"]
    assert (await table.get(f"/games/{game_id}/view", headers=auth(stranger))).status_code == 403
    assert len(await stored_events(nc, game_id)) == 1


async def test_unknown_games_are_404_and_malformed_bodies_422(table: httpx.AsyncClient, nc: NatsClient) -> None:
    unknown = await table.get("/games/doesnotexist")
    assert unknown.status_code == 404 and "gibt es nicht" in unknown.json()["detail"]
    assert (await table.get("/games/../../etc")).status_code == 404
    game_id = await start_two_humans(nc)
    assert (await table.post(f"/games/{game_id}/moves", content=b"{not json", headers=auth(ANNA))).status_code == 422
    assert (await table.post(f"/games/{game_id}/moves", json={"zug": 1}, headers=auth(ANNA))).status_code == 422
    assert (await table.post(f"/games/{game_id}/moves", json={"move": "blau"}, headers=auth(ANNA))).status_code == 422
    assert len(await stored_events(nc, game_id)) == 1


async def test_preview_tells_what_a_move_would_bring_without_making_it(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start_two_humans(nc)
    moves = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()["legal_moves"]
    to_floor = next(m for m in moves if m["reihe"] == 0)
    preview = (await table.post(f"/games/{game_id}/preview", json={"move": to_floor}, headers=auth(ANNA))).json()
    assert preview["preview"]["bodenstrafe"] < 0
    assert len(await stored_events(nc, game_id)) == 1

    # Bert is not to move: the preview is refused exactly as the move itself would be (status, reason, code).
    refused_preview = await table.post(f"/games/{game_id}/preview", json={"move": to_floor}, headers=auth(BERT))
    refused_move = await table.post(f"/games/{game_id}/moves", json={"move": to_floor}, headers=auth(BERT))
    assert refused_preview.status_code == refused_move.status_code == 422
    assert refused_preview.json() == refused_move.json()
    assert refused_preview.json()["code"] == "not_your_turn"
    assert len(await stored_events(nc, game_id)) == 1


async def test_the_seed_stays_hidden_until_the_end_and_only_its_commitment_shows(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start_two_humans(nc)
    seed_hex = bytes(range(32)).hex()
    for path, headers in [(f"/games/{game_id}", {}), (f"/games/{game_id}/view", auth(ANNA)),
                          (f"/games/{game_id}/events", auth(BERT)), (f"/games/{game_id}/events", {})]:
        body = (await table.get(path, headers=headers)).text
        assert seed_hex not in body, path
    view = (await table.get(f"/games/{game_id}")).json()
    import hashlib
    assert view["seed_commitment"] == hashlib.sha256(bytes(range(32))).hexdigest()
    assert (await table.get(f"/games/{game_id}/audit")).status_code == 409


async def test_a_decision_taken_on_an_old_position_is_refused_as_stale(nc: NatsClient) -> None:
    game_id = await start_two_humans(nc)
    with pytest.raises(CommandRefused) as refused:
        await request(nc, TABLE_PLAY, {"game_id": game_id, "seat": 0, "expected_n": 7, "actor": ANNA.player_id,
                                       "chosen_by": "player",
                                       "move": {"source": "schale", "schale": 1, "farbe": "blau", "reihe": 1}})
    assert refused.value.status == 409 and refused.value.code == "stale"


async def test_an_append_on_a_stale_sequence_or_a_repeated_event_is_refused_and_nothing_is_stored(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start_two_humans(nc)
    log = GameLog(nc.jetstream())
    [started] = await log.read(game_id)
    left = new_event(game_id=game_id, n=2, type=EventType.PLAYER_LEFT, actor=ANNA.player_id,
                     rules=started.event.rules, prev=started.event.hash,
                     data=PlayerLeft(seat=0, player_id=ANNA.player_id, with_other_humans=True).to_data())
    with pytest.raises(AppendConflict):  # written as if the log were still empty: another writer was first
        await log.append(left, 0)
    with pytest.raises(AppendConflict):  # the game's first event again (a retried append): stored once
        await log.append(started.event, started.seq)
    assert await log.read(game_id) == [started]


async def test_the_replica_that_started_a_game_shows_it_as_every_other_replica_does(nc: NatsClient) -> None:
    starter, other = (Games(GameLog(nc.jetstream()), FixedSeeds()) for _ in range(2))
    command = StartGame(game="speedmosaik", settings={"workshop": "kachelwand", "wall": "frei", "jokers": "mit"},
                        seats=[StartSeat(kind="human", player_id=ANNA.player_id, name="Anna"),
                               StartSeat(kind="human", player_id=BERT.player_id, name="Bert")])
    started = await starter.start(command)
    read = await other.load(started.game_id)

    for seat in (0, 1, None):  # the same bytes, the settings' keys included, whoever serves the view
        assert msgspec.json.encode(game_view(started, seat)) == msgspec.json.encode(game_view(read, seat))


async def test_a_move_answered_before_it_is_folded_on_is_in_every_later_read_of_the_replica(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    replica, other = (Games(GameLog(nc.jetstream()), FixedSeeds()) for _ in range(2))
    game_id = await start_two_humans(nc)
    record = await replica.load(game_id)
    played = await replica.play(game_id, 0, record.module.legal_moves(record.state, 0)[0], actor=ANNA.player_id)
    assert played.n == 2
    # Read at once, before the loop's turn to fold the move on: the read folds it on itself.
    cached = replica.cached(game_id)
    assert cached is not None and cached.n == 2
    assert msgspec.json.encode(game_view(cached, 1)) == msgspec.json.encode(game_view(await other.load(game_id), 1))
    # The next move, with no read in between, goes on from the folded move; so does the log.
    assert (await replica.play(game_id, 1, cached.module.legal_moves(cached.state, 1)[0], actor=BERT.player_id)).n == 3
    assert (await replica.load(game_id)).n == 3
    events = await stored_events(nc, game_id)
    assert [event.n for event in events] == [1, 2, 3]
    verify_chain(events)


async def test_a_replica_that_asks_only_for_newer_events_sees_every_move_and_the_end_of_another(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    # With a purge grace, a warm replica's read asks only "anything after my last event?" (a bare "no" is cheap);
    # another replica's moves, and the end of the game, must still show in its very next read.
    watcher = Games(GameLog(nc.jetstream(), nc), FixedSeeds(), purge_grace=3600)
    player = Games(GameLog(nc.jetstream(), nc), FixedSeeds())
    game_id = await start_two_humans(nc)
    assert (await watcher.load(game_id)).n == 1
    seat = 0
    while True:
        record = await player.load(game_id)
        if record.is_over:
            break
        seat = record.engine.pending(record.position)[0].seat
        moves = [move for move in record.module.legal_moves(record.state, seat) if move.get("reihe") != 0]
        await player.move(game_id, seat, moves[0] if moves else record.module.legal_moves(record.state, seat)[0],
                          actor=(ANNA, BERT)[seat].player_id)
        seen = await watcher.load(game_id)
        # The move is seen; after the last one the module's table service may have appended GameEnded already.
        logged = await stored_events(nc, game_id)
        assert seen.n >= record.n + 1 and seen.last_hash == logged[seen.n - 1].hash
        assert seen.n == record.n + 1 or logged[-1].type == "GameEnded"
    ended = await player.finish(game_id)
    seen = await watcher.load(game_id)
    assert seen.ended is not None and seen.n == ended.n
    assert msgspec.json.encode(game_view(seen, 0)) == msgspec.json.encode(game_view(ended, 0))


async def test_two_replicas_racing_on_one_game_never_both_append(settings: Settings, nc: NatsClient) -> None:
    # Two independent Games (two replicas' caches) over the same log, each warmed up with the game.
    replica_a, replica_b = (Games(GameLog(nc.jetstream()), FixedSeeds()) for _ in range(2))
    for _ in range(10):
        game_id = await start_two_humans(nc)
        record = await replica_a.load(game_id)
        await replica_b.load(game_id)
        moves = record.module.legal_moves(record.state, 0)
        first, second = moves[0], moves[-1]
        results = await asyncio.gather(
            replica_a.move(game_id, 0, first, actor=ANNA.player_id),
            replica_b.move(game_id, 0, second, actor=ANNA.player_id),
            return_exceptions=True,
        )
        winners = [r for r in results if not isinstance(r, BaseException)]
        losers = [r for r in results if isinstance(r, CommandRefused)]
        assert len(winners) == 1 and len(losers) == 1, results
        events = await stored_events(nc, game_id)
        assert [e.n for e in events] == [1, 2]
        verify_chain(events)


async def test_computers_play_a_whole_game_and_the_log_audits_clean(
        table: httpx.AsyncClient, settings: Settings, nc: NatsClient) -> None:
    from services.bot.app import create_app as bot_app

    async with running_app(bot_app(settings)):
        result = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": {}, "seats": [
            {"kind": "bot", "level": "normal"}, {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}]})
        game_id = result["game_id"]
        for _ in range(600):
            view = (await table.get(f"/games/{game_id}")).json()
            if view["status"] == "ended":
                break
            await asyncio.sleep(0.05)
    assert view["status"] == "ended"
    assert view["seed"] == bytes(range(32)).hex()
    audit = (await table.get(f"/games/{game_id}/audit")).json()
    assert audit["chain_ok"] and audit["outcome_matches"]
    events = await stored_events(nc, game_id)
    assert events[-1].type == EventType.GAME_ENDED
    assert [e.type for e in events].count(EventType.GAME_ENDED) == 1
    first = replay([StoredEvent(seq=1, event=events[0])])
    assert len(first.module.view(first.state, None)["schalen"]) == 7  # three players: seven factories
    assert all(e.actor.startswith("bot:") for e in events if e.type == EventType.MOVE_MADE)
    assert json.loads(events[-1].encode())["data"]["outcome"] == view["outcome"]
    info = await nc.jetstream().stream_info(GAMES_STREAM)
    assert info.state.messages >= len(events)
    assert game_subject(game_id).startswith("game.")



async def test_a_player_who_leaves_is_replaced_by_the_computer_and_the_log_says_with_whom(
        table: httpx.AsyncClient, settings: Settings, nc: NatsClient) -> None:
    from services.bot.app import create_app as bot_app

    game_id = await start_two_humans(nc)
    async with running_app(bot_app(settings)):
        left = await table.post(f"/games/{game_id}/leave", headers=auth(ANNA))
        assert left.status_code == 200
        assert left.json()["seats"][0]["left"] is True
        for _ in range(100):  # Anna was to move: the computer moves for her
            events = await stored_events(nc, game_id)
            if events[-1].type == EventType.MOVE_MADE:
                break
            await asyncio.sleep(0.05)
    assert events[1].type == EventType.PLAYER_LEFT and events[1].data["with_other_humans"] is True
    assert events[2].data["seat"] == 0 and events[2].data["chosen_by"] == "departed"
    again = await table.post(f"/games/{game_id}/leave", headers=auth(ANNA))
    assert again.status_code == 409


@pytest.mark.parametrize("config", [
    {"workshop": "kachelwand", "wall": "frei", "jokers": "mit"},
    {"workshop": "kirchenfenster", "palace": "fensterfarbe"},
    {"workshop": "sternpavillon"},
], ids=lambda config: "-".join(config.values()))
async def test_computers_of_every_level_finish_a_game_in_every_workshop(
        table: httpx.AsyncClient, settings: Settings, nc: NatsClient, config: dict[str, str]) -> None:
    from services.bot.app import create_app as bot_app

    async with running_app(bot_app(settings)):
        result = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": config, "seats": [
            {"kind": "bot", "level": "strong"}, {"kind": "bot", "level": "normal"}, {"kind": "bot", "level": "easy"}]})
        game_id = result["game_id"]
        for _ in range(1200):
            view = (await table.get(f"/games/{game_id}")).json()
            if view["status"] == "ended":
                break
            await asyncio.sleep(0.05)
    assert view["status"] == "ended" and view["variant"] == config["workshop"]
    audit = (await table.get(f"/games/{game_id}/audit")).json()
    assert audit["chain_ok"] and audit["outcome_matches"]
    for seat, lines in enumerate(view["outcome"]["lines"]):
        assert sum(line["points"] for line in lines) == view["outcome"]["scores"][seat]
