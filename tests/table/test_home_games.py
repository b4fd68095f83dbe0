"""Solo modes at the table: the day's seed deals every daily game alike, stays hidden until the day is over,
GameEnded carries the mode, list keys and badges, and the lobby can let a player leave a game over NATS."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity, PlayerKind
from libs.platform.contracts.commands import (
    LEAVE_GAME,
    MAKE_MOVE,
    START_GAME,
    VIEW_GAME,
    LeaveGame,
    MakeMove,
    StartGame,
    StartSeat,
    ViewGame,
)
from libs.platform.contracts.events import GameEnded, GameMode, GameStarted
from libs.platform.contracts.subjects import GAME_FACTS_STREAM, GAMES_STREAM, TABLE_FOLLOWUP_DURABLE
from libs.platform.days import berlin_day, day_end, iso_z
from libs.platform.envelope import Event, EventType
from libs.platform.rpc import CommandRefused, call
from libs.platform.settings import Settings
from libs.rules.speedmosaik.home import DAILY
from services.table.app import create_app
from services.table.event_store import GameLog
from services.table.games import Games
from services.table.seeds import SeedSource
from tests.clocks import ShiftedClock
from tests.conftest import running_app
from tests.game_facts import consumer_is_done
from tests.rules.helpers import registered_plugins
from tests.table.test_game_facts import facts_after
from tests.table.test_table_api import auth, stored_events

Move = dict[str, Any]
Pick = Callable[[list[Move]], Move]


def person(name: str) -> Identity:
    return Identity(player_id=f"{name.lower()}-{uuid.uuid4().hex[:8]}", name=name, kind=PlayerKind.GUEST)


@pytest.fixture(scope="module")
def clock() -> ShiftedClock:
    return ShiftedClock()


@pytest.fixture(scope="module")
async def table(settings: Settings, clock: ShiftedClock) -> AsyncIterator[httpx.AsyncClient]:
    # No bot service runs: the tests make the computers' moves themselves (the same moves in games that
    # must stay alike), over NATS as the bot service would.
    with registered_plugins("tests.rules.tinygame"):
        async with running_app(create_app(settings, clock=clock)) as client:
            yield client


@pytest.fixture
def now(clock: ShiftedClock) -> Iterator[datetime]:
    clock.offset = timedelta()  # each test starts at the wall clock
    yield clock.now()
    clock.offset = timedelta()


# ---- starting games as the lobby does -------------------------------------------------------------------
def daily_start(game: str, mode: str, player: Identity, seed: str, *, attempt: int = 1, level: str = "normal",
                settings: dict[str, Any] | None = None, at: datetime | None = None,
                game_id: str | None = None) -> StartGame:
    """The lobby's start of a daily game: the day's seed, the day, the attempt and the day's end."""
    day = berlin_day(at or datetime.now(UTC))
    return StartGame(game=game, game_id=game_id, settings=settings, seats=seats_of(player, level),
                     mode=GameMode(key=mode, day=day.isoformat(), attempt=attempt), seed=seed,
                     seed_reveal_at=iso_z(day_end(day)))


def seats_of(player: Identity, *levels: str) -> list[StartSeat]:
    return [StartSeat(kind="human", player_id=player.player_id, name=player.name, account="guest"),
            *(StartSeat(kind="bot", level=level, name=f"Computer {index + 1}") for index, level in enumerate(levels))]


def mosaik_daily(player: Identity, seed: str, attempt: int = 1) -> StartGame:
    return daily_start("speedmosaik", DAILY.key, player, seed, attempt=attempt, settings=DAILY.settings)


def tiny_daily(player: Identity, seed: str, attempt: int = 1) -> StartGame:
    return daily_start("tinygame", "tagesstich", player, seed, attempt=attempt, level="easy",
                       settings={"variante": "einzeln"})


async def start(nc: NatsClient, command: StartGame) -> str:
    return (await call(nc, START_GAME, command)).game_id


# ---- playing: humans over HTTP with their token, computers over NATS as the bot service ----------------
def off_the_floor(moves: list[Move]) -> Move:
    """Speedmosaik: the first move that does not go to the floor (the same choice in equal positions)."""
    return next((move for move in moves if move.get("reihe") != 0), moves[0])


def pass_or_lay(moves: list[Move]) -> Move:
    """Zwergenstich: end the turn or lay a card, never mark or offer (a game that ends quickly)."""
    return next((move for move in moves if set(move) & {"passen", "legen"}), moves[0])


async def make_next_decision(table: httpx.AsyncClient, nc: NatsClient, game_id: str, player: Identity,
                             pick: Pick) -> None:
    """Make the decision of the lowest seat that must decide: the human's through HTTP, a computer's over NATS."""
    seat = (await table.get(f"/games/{game_id}")).json()["to_move"][0]
    if seat == 0:
        own = (await table.get(f"/games/{game_id}/view", headers=auth(player))).json()
        answer = await table.post(f"/games/{game_id}/moves", headers=auth(player),
                                  json={"move": pick(own["legal_moves"]), "expected_n": own["n"]})
        assert answer.status_code == 200, answer.text
        return
    own = await call(nc, VIEW_GAME, ViewGame(game_id=game_id, seat=seat))
    level = (await stored_events(nc, game_id))[0].data["seats"][seat]["level"]  # as the bot service names it
    await call(nc, MAKE_MOVE, MakeMove(game_id=game_id, seat=seat, move=pick(own["legal_moves"]),
                                       actor=f"bot:{level}", chosen_by="bot", expected_n=own["n"]))


async def play_to_end(table: httpx.AsyncClient, nc: NatsClient, game_id: str, player: Identity,
                      pick: Pick) -> dict[str, Any]:
    """Play the game until GameEnded is in the log (the table's follow-up appends it); return the spectator view."""
    for _ in range(400):
        view = (await table.get(f"/games/{game_id}")).json()
        if view["status"] == "ended":
            await consumer_is_done(nc.jetstream(), GAMES_STREAM, TABLE_FOLLOWUP_DURABLE)
            return dict(view)
        if view["status"] == "running":
            await make_next_decision(table, nc, game_id, player, pick)
        else:
            await asyncio.sleep(0.02)  # over, GameEnded follows
    raise AssertionError(f"game {game_id} did not end")


async def finished_tiny_daily(table: httpx.AsyncClient, nc: NatsClient, player: Identity,
                              seed: str) -> tuple[str, dict[str, Any]]:
    game_id = await start(nc, tiny_daily(player, seed))
    return game_id, await play_to_end(table, nc, game_id, player, pass_or_lay)


# ---- the day's seed ------------------------------------------------------------------------------------
async def test_daily_games_with_the_same_seed_deal_alike_and_a_game_without_one_does_not(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    seed = secrets.token_hex(32)
    anna, bert, carla = person("Anna"), person("Bert"), person("Carla")
    first = await start(nc, mosaik_daily(anna, seed))
    second = await start(nc, mosaik_daily(bert, seed))
    plain = await start(nc, StartGame(game="speedmosaik", settings=DAILY.settings, seats=seats_of(carla, "normal")))

    views = [(await table.get(f"/games/{game_id}/view", headers=auth(player))).json()
             for game_id, player in ((first, anna), (second, bert), (plain, carla))]
    assert views[0]["board"]["schalen"] == views[1]["board"]["schalen"]
    assert views[0]["to_move"] == views[1]["to_move"]
    assert views[0]["board"]["schalen"] != views[2]["board"]["schalen"]
    # The game's seed is the day's: its commitment is the one the lobby publishes, sha256(seed).
    for game_id in (first, second):
        started = GameStarted.of((await stored_events(nc, game_id))[0])
        assert started.seed_commitment == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        assert started.mode == GameMode(key=DAILY.key, day=berlin_day(datetime.now(UTC)).isoformat(), attempt=1)
        assert started.seed_reveal_at == iso_z(day_end(berlin_day(datetime.now(UTC))))
    # A game outside the modes keeps its exact shape: no mode, no reveal time, in the log or the view.
    plain_start = (await stored_events(nc, plain))[0].data
    assert "mode" not in plain_start and "seed_reveal_at" not in plain_start
    assert "mode" not in views[2] and "seed_reveal_at" not in views[2]

    # Played alike to the next round, both refill the factories alike.
    rounds = {}
    for game_id, player in ((first, anna), (second, bert)):
        for _ in range(100):
            board = (await table.get(f"/games/{game_id}")).json()["board"]
            if board["runde"] == 2:
                break
            await make_next_decision(table, nc, game_id, player, off_the_floor)
        assert board["runde"] == 2
        rounds[game_id] = board["schalen"]
    assert rounds[first] == rounds[second]


async def test_a_daily_game_after_the_first_attempt_is_practice_and_its_view_says_so(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    seed, anna = secrets.token_hex(32), person("Anna")
    counting = (await table.get(f"/games/{await start(nc, mosaik_daily(anna, seed))}/view", headers=auth(anna))).json()
    practice = (await table.get(f"/games/{await start(nc, mosaik_daily(anna, seed, attempt=2))}/view",
                                headers=auth(anna))).json()
    day = berlin_day(datetime.now(UTC)).isoformat()
    assert counting["mode"] == {"key": "tageswerkstatt", "title": "Tageswerkstatt", "day": day, "attempt": 1,
                                "stage": None, "practice": False, "note": None}
    assert practice["mode"]["practice"] is True and practice["mode"]["attempt"] == 2
    assert practice["mode"]["note"] == {
        "key": "table.modus.uebung", "params": {"tag": day, "versuch": 2},
        "text": "Übungspartie: Für die Tagesliste zählt nur dein erster Versuch des Tages."}
    assert practice["seed_reveal_at"] == iso_z(day_end(berlin_day(datetime.now(UTC))))
    assert "seed" not in practice


async def test_a_campaign_game_names_its_stage_and_a_free_mode_game_its_mode(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    anna = person("Anna")
    stage = await start(nc, StartGame(game="tinygame", settings={"variante": "einzeln"},
                                      seats=seats_of(anna, "easy", "easy"), mode=GameMode(key="reise", stage=2)))
    free = await start(nc, StartGame(game="tinygame", seats=seats_of(anna, "normal"), mode=GameMode(key="frei")))
    mode = (await table.get(f"/games/{stage}")).json()["mode"]
    assert mode == {"key": "reise", "title": "Stich-Reise", "day": None, "attempt": None, "stage": 2,
                    "practice": False, "note": None}
    view = (await table.get(f"/games/{free}")).json()
    assert view["mode"]["key"] == "frei" and view["mode"]["title"] == "Freies Spiel"
    assert "seed_reveal_at" not in view


# ---- the end -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("seed", "badges"), [
    (hashlib.sha256(b"0").hexdigest(), ["erster_stich"]),  # Anna wins a trick (2 : 2 points)
    (hashlib.sha256(b"1").hexdigest(), ["leer"]),  # Anna ends with 0 points and no trick
], ids=["trick", "no-points"])
async def test_a_finished_daily_game_records_mode_list_keys_badges_and_no_seed(
        table: httpx.AsyncClient, nc: NatsClient, now: datetime, seed: str, badges: list[str]) -> None:
    anna = person("Anna")
    game_id, view = await finished_tiny_daily(table, nc, anna, seed)

    ended = GameEnded.of((await stored_events(nc, game_id))[-1])
    day = berlin_day(now)
    assert ended.mode == GameMode(key="tagesstich", day=day.isoformat(), attempt=1)
    assert ended.seed == "" and ended.seed_reveal_at == iso_z(day_end(day))
    outcome = ended.outcome
    assert ended.list_keys == [[outcome.scores[seat], outcome.tie_break[seat]] for seat in range(2)]
    # Badges: the human's as the final table shows it, the computer's none.
    anna_at_end = view["board"]["spieler"][0]
    expected = [key for key, earned in (("erster_stich", anna_at_end["stiche"] >= 1),
                                        ("leer", outcome.scores[0] <= 0)) if earned]
    assert ended.badges == [expected, []] and expected == badges


async def test_badges_are_recorded_for_games_outside_the_modes_and_never_for_who_left(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    anna = person("Anna")
    game_id = await start(nc, StartGame(game="tinygame", seats=seats_of(anna, "easy")))
    await call(nc, LEAVE_GAME, LeaveGame(game_id=game_id, player_id=anna.player_id))
    replica = Games(GameLog(nc.jetstream()), SeedSource())

    for _ in range(200):  # the computer plays both seats now (seat 0 as "departed")
        view = (await table.get(f"/games/{game_id}")).json()
        if view["status"] == "ended":
            break
        if view["status"] == "running":
            seat = view["to_move"][0]
            record = await replica.load(game_id)  # a left seat's view offers nothing: the engine's moves
            moves = record.engine.legal_moves(record.position, seat)
            await call(nc, MAKE_MOVE, MakeMove(game_id=game_id, seat=seat, move=pass_or_lay(moves),
                                               actor=f"bot:{record.seats[seat].level or 'normal'}",
                                               chosen_by="bot" if seat else "departed",
                                               expected_n=record.n))
        else:
            await asyncio.sleep(0.02)
    data = (await stored_events(nc, game_id))[-1].data
    assert data["badges"] == [[], []] and data["left"] == [0]
    assert "mode" not in data and "list_keys" not in data and "seed_reveal_at" not in data
    assert data["seed"] != ""  # not a daily game: revealed at the end as ever


async def test_no_endpoint_shows_a_daily_seed_before_the_day_is_over_and_the_view_shows_it_after(
        table: httpx.AsyncClient, nc: NatsClient, clock: ShiftedClock, now: datetime) -> None:
    js = nc.jetstream()
    facts_before = (await js.stream_info(GAME_FACTS_STREAM)).state.last_seq
    seed, anna = secrets.token_hex(32), person("Anna")
    game_id, ended_view = await finished_tiny_daily(table, nc, anna, seed)

    reveal_at = iso_z(day_end(berlin_day(now)))
    assert ended_view["status"] == "ended" and "seed" not in ended_view
    assert ended_view["seed_reveal_at"] == reveal_at
    for path, headers in [(f"/games/{game_id}", {}), (f"/games/{game_id}/view", auth(anna)),
                          (f"/games/{game_id}/events", {}), (f"/games/{game_id}/events", auth(anna)),
                          (f"/games/{game_id}/audit", {})]:
        answer = await table.get(path, headers=headers)
        assert answer.status_code == 200 and seed not in answer.text, path
    assert (await table.get(f"/games/{game_id}/audit")).json()["outcome_matches"] is True
    async with table.stream("GET", f"/games/{game_id}/live", headers=auth(anna)) as live:
        assert seed not in "".join([chunk async for chunk in live.aiter_text()])
    assert "seed" not in await call(nc, VIEW_GAME, ViewGame(game_id=game_id, seat=0))
    ended_log = (await stored_events(nc, game_id))[-1]
    ended_facts = [fact for fact in await facts_after(nc, facts_before, game_id)
                   if Event.decode(fact.data or b"").type == EventType.GAME_ENDED]
    assert len(ended_facts) == 1 and ended_facts[0].data == ended_log.encode()
    assert seed not in ended_log.encode().decode()

    # Once the Berlin day is over, the view shows the seed, and it is the one the game committed to.
    clock.advance(seconds=(day_end(berlin_day(now)) - now).total_seconds() + 1)
    for revealed in [(await table.get(f"/games/{game_id}")).json(),
                     (await table.get(f"/games/{game_id}/view", headers=auth(anna))).json(),
                     await call(nc, VIEW_GAME, ViewGame(game_id=game_id, seat=None))]:
        assert revealed["seed"] == seed and revealed["seed_reveal_at"] == reveal_at
        assert hashlib.sha256(bytes.fromhex(revealed["seed"])).hexdigest() == revealed["seed_commitment"]


async def test_a_running_daily_game_never_shows_its_seed_even_after_the_day(
        table: httpx.AsyncClient, nc: NatsClient, clock: ShiftedClock, now: datetime) -> None:
    seed, anna = secrets.token_hex(32), person("Anna")
    game_id = await start(nc, tiny_daily(anna, seed))
    clock.advance(days=2)  # a game played on past midnight: its seed would show every card still to come
    for path, headers in [(f"/games/{game_id}", {}), (f"/games/{game_id}/view", auth(anna)),
                          (f"/games/{game_id}/events", auth(anna))]:
        assert seed not in (await table.get(path, headers=headers)).text, path


# ---- leaving over NATS (the lobby giving up an unfinished solo game) -----------------------------------
async def test_the_lobby_lets_a_player_leave_and_a_retry_or_an_ended_game_is_no_error(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    anna, stranger = person("Anna"), person("Stranger")
    game_id = await start(nc, StartGame(game="tinygame", seats=seats_of(anna, "easy"), mode=GameMode(key="frei")))

    for player_id in (stranger.player_id, ""):  # nobody's seat, nor a computer's (it has no player id)
        with pytest.raises(CommandRefused) as refused:
            await call(nc, LEAVE_GAME, LeaveGame(game_id=game_id, player_id=player_id))
        assert (refused.value.status, refused.value.code) == (404, "not_seated")
        assert refused.value.reason == "Du sitzt nicht an dieser Partie."
    with pytest.raises(CommandRefused) as unknown:
        await call(nc, LEAVE_GAME, LeaveGame(game_id="nosuchgame", player_id=anna.player_id))
    assert (unknown.value.status, unknown.value.code) == (404, "game_not_found")
    assert len(await stored_events(nc, game_id)) == 1

    left = await call(nc, LEAVE_GAME, LeaveGame(game_id=game_id, player_id=anna.player_id))
    assert (left.game_id, left.n, left.already) == (game_id, 2, False)
    events = await stored_events(nc, game_id)
    assert events[-1].type == EventType.PLAYER_LEFT
    assert events[-1].data == {"seat": 0, "player_id": anna.player_id, "with_other_humans": False}
    again = await call(nc, LEAVE_GAME, LeaveGame(game_id=game_id, player_id=anna.player_id))
    assert (again.n, again.already) == (2, True)
    assert len(await stored_events(nc, game_id)) == 2

    bert = person("Bert")
    finished, _ = await finished_tiny_daily(table, nc, bert, secrets.token_hex(32))
    over = await call(nc, LEAVE_GAME, LeaveGame(game_id=finished, player_id=bert.player_id))
    assert over.already is True and over.n == len(await stored_events(nc, finished))
    assert (await stored_events(nc, finished))[-1].type == EventType.GAME_ENDED


# ---- refusals ------------------------------------------------------------------------------------------
def _refusable(anna: Identity) -> list[tuple[StartGame, int, str, str]]:
    """Start commands the table refuses: (command, status, code, part of the German reason)."""
    seed = secrets.token_hex(32)
    good = mosaik_daily(anna, seed)
    assert good.mode is not None and good.mode.day is not None
    day = good.mode.day

    def daily(**changes: Any) -> StartGame:
        mode = changes.pop("mode", good.mode)
        return StartGame(**{"game": good.game, "settings": good.settings, "seats": good.seats, "mode": mode,
                            "seed": good.seed, "seed_reveal_at": good.seed_reveal_at, **changes})

    return [
        (daily(mode=None), 422, "malformed", "nur für eine Tagespartie"),
        (daily(mode=None, seed=None), 422, "malformed", "nur für eine Tagespartie"),  # a reveal time alone
        (daily(mode=GameMode(key="solo")), 422, "malformed", "keine Tagespartie"),
        (daily(mode=GameMode(key="tagesstich", day=day, attempt=1)), 422, "unknown_mode", "tagesstich"),
        (daily(seed=seed.upper()), 422, "malformed", "64 Hexziffern"),
        (daily(seed=seed[:63]), 422, "malformed", "64 Hexziffern"),
        (daily(seed=None), 422, "malformed", "64 Hexziffern"),
        (daily(mode=GameMode(key=DAILY.key, attempt=1)), 422, "malformed", "Tag"),
        (daily(mode=GameMode(key=DAILY.key, day="heute", attempt=1)), 422, "malformed", "Tag"),
        (daily(mode=GameMode(key=DAILY.key, day=day)), 422, "malformed", "Versuch"),
        (daily(mode=GameMode(key=DAILY.key, day=day, attempt=0)), 422, "malformed", "Versuch"),
        (daily(seed_reveal_at=None), 422, "malformed", "aufgedeckt"),
        (daily(seed_reveal_at="2025-01-01T00:00:00"), 422, "malformed", "aufgedeckt"),  # no time zone
        (daily(seed_reveal_at=f"{day}T12:00:00Z"), 422, "malformed", "frühestens am Ende"),
        (daily(mode=GameMode(key=DAILY.key, day=day, attempt=1, stage=1)), 422, "malformed", "keine Etappen"),
    ]


async def test_a_bad_seed_or_mode_is_refused_in_german_and_nothing_is_appended(
        table: httpx.AsyncClient, nc: NatsClient) -> None:
    anna = person("Anna")
    log = GameLog(nc.jetstream())
    tiny = [
        (StartGame(game="tinygame", seats=seats_of(anna, "easy"), mode=GameMode(key="reise")), "Etappen"),
        (StartGame(game="tinygame", seats=seats_of(anna, "easy"), mode=GameMode(key="reise", stage=3)), "Etappen"),
        (StartGame(game="tinygame", seats=seats_of(anna, "easy"), mode=GameMode(key="frei", stage=1)),
         "keine Etappen"),
    ]
    cases = [*_refusable(anna), *((command, 422, "malformed", words) for command, words in tiny)]
    for command, status, code, words in cases:
        game_id = uuid.uuid4().hex
        with pytest.raises(CommandRefused) as refused:
            await call(nc, START_GAME, StartGame(**{**{field: getattr(command, field)
                                                       for field in command.__struct_fields__},
                                                    "game_id": game_id}))
        assert (refused.value.status, refused.value.code) == (status, code), (command, refused.value.reason)
        assert words in refused.value.reason, refused.value.reason
        assert await log.read(game_id) == []
    unknown = StartGame(game="speedmosaik", seats=seats_of(anna, "easy"), mode=GameMode(key="gibtsnicht"))
    with pytest.raises(CommandRefused) as refused:
        await call(nc, START_GAME, unknown)
    assert refused.value.code == "unknown_mode"
    assert refused.value.reason == "Speedmosaik kennt den Spielmodus „gibtsnicht“ nicht."
