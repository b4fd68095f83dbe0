"""The follow-up acts on the table's hints instead of folding every move a second time
(services/table/followup_hints.py), and on anything else exactly as before: a message without a hint, or with one
that is not the table's own for that very message, is folded, so a foreign writer's hint never makes it act
wrongly. Real NATS, the table's API and its follow-up in two apps (two caches), as in production."""

from __future__ import annotations

import asyncio
import os
import random
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity, PlayerKind
from libs.platform.contracts.commands import StartGame, StartSeat
from libs.platform.contracts.events import PlatformSettings
from libs.platform.contracts.subjects import (
    GAME_ENDED_FACT,
    GAME_SNAPSHOTS_STREAM,
    GAME_STARTED_FACT,
    GAMES_STREAM,
    TABLE_FOLLOWUP_DURABLE,
    TABLE_START,
    snapshot_subject,
)
from libs.platform.envelope import Event, EventType, utc_stamp
from libs.platform.rpc import request
from libs.platform.settings import Settings
from libs.platform.signing import Keyring
from services.bot.app import create_app as bot_app
from services.table import metrics
from services.table.app import create_app
from services.table.event_store import GameLog
from services.table.followup_hints import HEADER, FollowupHint, HintSeal
from services.table.games import Games
from services.table.seeds import SeedSource
from services.table.snapshots import SNAPSHOT_EVERY, Snapshots, thaw
from tests.conftest import Infrastructure, running_app
from tests.game_facts import consumer_is_done
from tests.table.test_clocks_and_advice import LateClock, auth, wait_for_moves
from tests.table.test_game_facts import facts_after, stored_log
from tools.demo import choose

ANNA = Identity(player_id="anna-" + uuid.uuid4().hex[:8], name="Anna", kind=PlayerKind.GUEST)
BERT = Identity(player_id="bert-" + uuid.uuid4().hex[:8], name="Bert", kind=PlayerKind.GUEST)
HUMANS = [{"kind": "human", "player_id": ANNA.player_id, "name": "Anna"},
          {"kind": "human", "player_id": BERT.player_id, "name": "Bert"}]


@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The table's API in one app, its follow-up and timers in another (each with its own cache of games); a clock
    39 s behind, so a 30 s think time (+10 s grace) runs out in about two seconds."""
    api = create_app(settings.model_copy(update={"table_roles": "api"}))
    followup = create_app(settings.model_copy(update={"table_roles": "followup,timers"}), clock=LateClock())
    async with running_app(api) as client, running_app(followup), running_app(bot_app(settings)):
        yield client


def hints(outcome: str) -> float:
    return float(metrics.FOLLOWUP_HINTS.labels(outcome)._value.get())


def snapshot_loads(outcome: str) -> float:
    return float(metrics.SNAPSHOT_LOADS.labels(outcome)._value.get())


REFUSALS = ("unknown_key", "bad_mac", "too_old", "malformed")


async def start(nc: NatsClient, think_time: int | None) -> str:
    result = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": {}, "seats": HUMANS,
                                             "platform": {"think_time": think_time}})
    return str(result["game_id"])


async def test_a_human_game_is_followed_up_on_the_tables_hints_and_its_clock_still_runs_out(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    used, refused = hints("used"), sum(hints(reason) for reason in REFUSALS)
    game_id = await start(nc, think_time=30)
    view = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()
    assert (await table.post(f"/games/{game_id}/moves", headers=auth(ANNA),
                             json={"move": view["legal_moves"][0]})).status_code == 200
    # Bert does not move: the clock the follow-up started from the move's hint runs out, the computer decides.
    made = await wait_for_moves(nc, game_id, 2)
    assert [(move.data["seat"], move.data["chosen_by"]) for move in made[:2]] == [(0, "player"), (1, "timeout")]
    assert hints("used") >= used + 3  # the start, Anna's move, Bert's timeout: none of them folded
    assert sum(hints(reason) for reason in REFUSALS) == refused


async def test_a_whole_human_game_ends_with_its_facts_and_the_tables_snapshots(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    js = nc.jetstream()
    facts_before = (await js.stream_info("GAME_FACTS")).state.last_seq
    thawed = snapshot_loads("used")
    game_id = await start(nc, think_time=None)
    rng = random.Random(game_id)
    snapshot_seen = False
    for _ in range(400):
        views = [(await table.get(f"/games/{game_id}/view", headers=auth(player))).json() for player in (ANNA, BERT)]
        if views[0]["status"] != "running":
            break
        if views[0]["n"] >= SNAPSHOT_EVERY and not snapshot_seen:
            # Event 16 was hinted, so the follow-up never folded it: the table that appended it kept the snapshot.
            stored = await js.get_last_msg(GAME_SNAPSHOTS_STREAM, snapshot_subject(game_id))
            snapshot = thaw(stored.data or b"", game_id)
            assert snapshot is not None and snapshot.n >= SNAPSHOT_EVERY
            snapshot_seen = True
        seat, view = next(((seat, view) for seat, view in enumerate(views) if view["legal_moves"]), (None, None))
        if view is None:  # the last move was made; the follow-up ends the game
            await asyncio.sleep(0.05)
            continue
        player = (ANNA, BERT)[int(seat or 0)]
        move = choose("speedmosaik", view["legal_moves"], rng)
        answer = await table.post(f"/games/{game_id}/moves", headers=auth(player),
                                  json={"move": move, "expected_n": view["n"]})
        assert answer.status_code in (200, 409), answer.text
    else:
        raise AssertionError("the game did not end")
    assert snapshot_seen
    await consumer_is_done(js, GAMES_STREAM, TABLE_FOLLOWUP_DURABLE)

    log = await stored_log(nc, game_id)
    assert Event.decode(log[-1].data or b"").type == EventType.GAME_ENDED
    # Every event carries the hint but the move that ended the game and GameEnded: those the follow-up folds.
    assert [HEADER in (stored.headers or {}) for stored in log] == [True] * (len(log) - 2) + [False, False]
    assert [fact.subject for fact in await facts_after(nc, facts_before, game_id)] == [GAME_STARTED_FACT,
                                                                                       GAME_ENDED_FACT]
    # To end it, the follow-up started from the table's snapshot instead of folding the whole game.
    assert snapshot_loads("used") >= thawed + 1
    stored = await js.get_last_msg(GAME_SNAPSHOTS_STREAM, snapshot_subject(game_id))
    final = thaw(stored.data or b"", game_id)
    assert final is not None and final.ended is not None and final.n == len(log)


# ---- a foreign writer's hints --------------------------------------------------------------------------------
Forgery = Callable[[HintSeal, FollowupHint, str, int, bytes], dict[str, str]]
"""What a writer that is not the table puts beside an event, from the hint the table would have written."""


def quiet(hint: FollowupHint) -> FollowupHint:
    """The lie that would hurt: "no clock runs" (a player could then sit on a decision for ever)."""
    return replace(hint, think_time=None, clocks=())


def no_hint(seal: HintSeal, hint: FollowupHint, game_id: str, n: int, data: bytes) -> dict[str, str]:
    return {}


def another_key(seal: HintSeal, hint: FollowupHint, game_id: str, n: int, data: bytes) -> dict[str, str]:
    return HintSeal(Keyring.generate()).headers(quiet(hint), game_id, n, data)


def altered(seal: HintSeal, hint: FollowupHint, game_id: str, n: int, data: bytes) -> dict[str, str]:
    """The table's genuine hint for this very event, its payload changed."""
    ((header, value),) = seal.headers(hint, game_id, n, data).items()
    version, kid, mac, _ = value.split(" ", 3)
    return {header: f"{version} {kid} {mac} {quiet(hint).encode().decode()}"}


def of_another_event(seal: HintSeal, hint: FollowupHint, game_id: str, n: int, data: bytes) -> dict[str, str]:
    """A hint the table sealed for another event, copied onto this one."""
    return seal.headers(quiet(hint), game_id, n + 7, data)


def too_old(seal: HintSeal, hint: FollowupHint, game_id: str, n: int, data: bytes) -> dict[str, str]:
    """A hint the table sealed for an event written long before it was stored (a copy stored again)."""
    old = utc_stamp(datetime.now(UTC) - timedelta(minutes=3))
    return seal.headers(replace(quiet(hint), at=old), game_id, n, data)


class ForeignHints(HintSeal):
    """Hints as a writer other than the table's own code would put them beside the events it appends."""

    def __init__(self, keyring: Keyring, forgery: Forgery) -> None:
        super().__init__(keyring)
        self._genuine = HintSeal(keyring)
        self._forgery = forgery

    def headers(self, hint: FollowupHint, game_id: str, n: int, data: bytes) -> dict[str, str]:
        return self._forgery(self._genuine, hint, game_id, n, data)


@pytest.mark.parametrize(("forgery", "outcome"), [
    (no_hint, "none"), (another_key, "unknown_key"), (altered, "bad_mac"), (of_another_event, "bad_mac"),
    (too_old, "too_old")])
async def test_an_event_whose_hint_is_not_the_tables_own_is_folded_and_the_clock_runs_all_the_same(
        table: httpx.AsyncClient, nc: NatsClient, infra: Infrastructure, forgery: Forgery, outcome: str) -> None:
    js = nc.jetstream()
    keyring = Keyring.load(infra.signing_keys_file)
    writer = Games(GameLog(js, nc), SeedSource(), snapshots=Snapshots(js, nc), keyring=keyring,
                   hints=ForeignHints(keyring, forgery))
    before = hints(outcome)
    record = await writer.start(StartGame(
        game="speedmosaik", game_id="foreign-" + os.urandom(6).hex(), settings={},
        seats=[StartSeat(kind="human", name=str(seat["name"]), player_id=str(seat["player_id"])) for seat in HUMANS],
        platform=PlatformSettings(think_time=30)))
    move = record.engine.legal_moves(record.position, 0)[0]
    await writer.move(record.game_id, 0, move, actor=ANNA.player_id)
    # Acted on, each of these hints would have said "no clock runs" after Anna's move; folded, Bert's clock runs out.
    made = await wait_for_moves(nc, record.game_id, 2)
    assert [(made_move.data["seat"], made_move.data["chosen_by"]) for made_move in made[:2]] == [
        (0, "player"), (1, "timeout")]
    assert hints(outcome) >= before + 2  # the start and Anna's move, each folded


async def test_when_a_human_leaves_the_follow_up_folds_again_and_the_computer_plays_on_for_the_seat(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    game_id = await start(nc, think_time=None)
    view = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()
    assert (await table.post(f"/games/{game_id}/moves", headers=auth(ANNA),
                             json={"move": view["legal_moves"][0]})).status_code == 200
    # The follow-up acted on the hints so far and holds no copy of the game; Bert's departure carries no hint.
    assert (await table.post(f"/games/{game_id}/leave", headers=auth(BERT))).status_code == 200
    await wait_for_moves(nc, game_id, 2)  # the computer's move for Bert, asked for by a follow-up that folded
    view = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()
    assert (await table.post(f"/games/{game_id}/moves", headers=auth(ANNA),
                             json={"move": view["legal_moves"][0], "expected_n": view["n"]})).status_code == 200
    made = await wait_for_moves(nc, game_id, 4)
    assert [(move.data["seat"], move.data["chosen_by"]) for move in made[:4]] == [
        (0, "player"), (1, "departed"), (0, "player"), (1, "departed")]


async def test_a_game_with_a_computer_carries_no_hints_and_is_followed_up_by_folding(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    result = await request(nc, TABLE_START, {"game": "speedmosaik", "settings": {}, "platform": {"think_time": 30},
                                             "seats": [HUMANS[0], {"kind": "bot", "level": "easy"}]})
    game_id = str(result["game_id"])
    view = (await table.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()
    assert (await table.post(f"/games/{game_id}/moves", headers=auth(ANNA),
                             json={"move": view["legal_moves"][0]})).status_code == 200
    made = await wait_for_moves(nc, game_id, 3)  # the computer answers; then Anna's clock runs out
    assert [(move.data["seat"], move.data["chosen_by"]) for move in made[:3]] == [
        (0, "player"), (1, "bot"), (0, "timeout")]
    assert not any(HEADER in (stored.headers or {}) for stored in await stored_log(nc, game_id))
