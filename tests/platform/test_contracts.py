"""The typed contracts between services: every one round-trips, reads what the services write, refuses in German."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest
from nats.aio.client import Client as NatsClient
from nats.js.errors import NoStreamResponseError

from libs.platform.contracts import subjects
from libs.platform.contracts.base import Contract, ContractError
from libs.platform.contracts.commands import (
    ADVISE,
    BALANCE,
    DECIDE,
    GAME_POT,
    HOLD_STAKE,
    MAKE_MOVE,
    PLAY_MOVE,
    RELEASE_STAKE,
    START_GAME,
    VIEW_GAME,
    Advice,
    AdviseRequest,
    Balance,
    BalanceQuery,
    Command,
    DecideRequest,
    Decision,
    HoldStake,
    LeaveGame,
    LeftReply,
    MakeMove,
    MoveMadeReply,
    ReleaseStake,
    StakeHeld,
    StakeReleased,
    StartedReply,
    StartGame,
    StartSeat,
    ViewGame,
)
from libs.platform.contracts.events import (
    EndedSeat,
    GameEnded,
    GameSeat,
    GameStarted,
    MoveMade,
    Outcome,
    PlatformSettings,
    PlayerLeft,
    PlayerRegistered,
    payload_of,
)
from libs.platform.contracts.messages import BotTurn, TimerDeadline
from libs.platform.envelope import EventType, new_event
from libs.platform.rpc import CommandRefused, answer, call, request
from libs.rules.protocol import ComputationLine, Phrase
from libs.rules.protocol import Outcome as RulesOutcome

SEED_HEX = bytes(range(32)).hex()
SUMMARY = {"key": "sieg", "params": {"name": "Anna"}, "text": "Anna gewinnt."}
LINE = {"label": "Wandpunkte", "points": 12, "key": "wand", "params": {"reihen": [1, 2]}}
SEALED_SEED = {"$private": {"to": [], "digest": "ab" * 32, "salt": "cd" * 32, "value": SEED_HEX}}

# ---- samples exactly as the services write them today (the logs must keep decoding) --------------------
SAMPLES: list[tuple[type[Contract], dict[str, Any]]] = [
    (GameStarted, {
        "game": "speedmosaik", "rules": "speedmosaik@1", "settings": {"workshop": "kachelwand", "wall": "frei"},
        "seats": [{"name": "Anna", "kind": "human", "player_id": "p-anna", "level": None, "account": "registered"},
                  {"name": "Computer 1", "kind": "bot", "player_id": None, "level": "easy", "account": None}],
        "platform": {"think_time": 60, "tempo": "schnell", "turbo": False, "stake": 25},
        "table_id": "t" * 32, "seed": SEALED_SEED, "seed_commitment": "ef" * 32,
    }),
    (MoveMade, {
        "seat": 1, "move": {"source": "schale", "schale": 3, "farbe": "blau", "reihe": 2}, "chosen_by": "timeout",
        "effects": [{"key": "nimmt", "params": {"farbe": "blau", "anzahl": 2}, "text": "Platz 2 nimmt 2× Blau."},
                    {"$private": {"to": [1], "digest": "12" * 32, "salt": "34" * 32, "value": {"key": "zieht"}}}],
    }),
    (PlayerLeft, {"seat": 0, "player_id": "p-anna", "with_other_humans": True}),
    (GameEnded, {
        "game": "speedmosaik", "variant": "kachelwand", "rules": "speedmosaik@1", "table_id": None,
        "seats": [{"seat": 0, "name": "Anna", "kind": "human", "player_id": "p-anna", "level": None,
                   "account": "guest"},
                  {"seat": 1, "name": "Computer", "kind": "bot", "player_id": None, "level": "strong",
                   "account": None}],
        "outcome": {"places": [1, 2], "scores": [31, 17], "tie_break": [2, 0], "lines": [[LINE], []],
                    "leaderboard_points": [61, 32], "summary": SUMMARY},
        "seed": SEED_HEX, "left": [], "left_with_other_humans": [],
    }),
    (PlayerRegistered, {"player_id": "p-anna", "name": "Anna", "registered_at": "2026-11-29T12:00:00.123456Z"}),
    (BotTurn, {"game_id": "g" * 32, "n": 7, "seat": 2, "level": "normal", "rules": "speedmosaik@1",
               "chosen_by": "departed", "pace": 0.5, "must": True, "view": {"schalen": [["blau", "rot"]], "du": 2}}),
    (TimerDeadline, {"game_id": "g" * 32, "seat": 0, "n": 3, "deadline": "2026-11-29T12:02:11+00:00"}),
    (StartGame, {
        "game_id": "a" * 32, "table_id": "t" * 32, "game": "speedmosaik", "settings": {"workshop": "sternpavillon"},
        "seats": [{"player_id": "p-anna", "name": "Anna", "kind": "human", "level": None, "account": "registered"},
                  {"player_id": None, "name": "Computer 1", "kind": "bot", "level": "normal", "account": None}],
        "platform": {"tempo": "normal", "think_time": None, "turbo": True, "stake": 0},
        "mode": None, "seed": None, "seed_reveal_at": None,
    }),
    (StartGame, {  # a daily game: the day's seed, revealed at the day's end
        "game_id": "b" * 32, "table_id": "t" * 32, "game": "speedmosaik",
        "settings": {"workshop": "kachelwand", "wall": "fest", "jokers": "ohne"},
        "seats": [{"player_id": "p-anna", "name": "Anna", "kind": "human", "level": None, "account": "guest"},
                  {"player_id": None, "name": "Computer 1", "kind": "bot", "level": "normal", "account": None}],
        "platform": {"tempo": "normal", "think_time": None, "turbo": False, "stake": 0},
        "mode": {"key": "tageswerkstatt", "day": "2026-12-01", "attempt": 1, "stage": None},
        "seed": "5e" * 32, "seed_reveal_at": "2026-12-01T23:00:00Z",
    }),
    (LeaveGame, {"game_id": "g" * 32, "player_id": "p-anna"}),
    (LeftReply, {"game_id": "g" * 32, "n": 12, "already": False}),
    (StartedReply, {"game_id": "a" * 32, "rules": "speedmosaik@1", "n": 1}),
    (MakeMove, {"game_id": "g" * 32, "seat": 1, "move": {"source": "mitte", "farbe": "rot", "reihe": 0},
                "expected_n": 4, "actor": "bot:easy", "chosen_by": "bot"}),
    (MoveMadeReply, {"game_id": "g" * 32, "n": 5, "receipt": None}),
    (MoveMadeReply, {"game_id": "g" * 32, "n": 5, "receipt": {  # the move's signed receipt (docs/audit.md)
        "game_id": "g" * 32, "n": 5, "hash": "ab" * 32, "kid": "56475aa75463474c", "sig": "cd" * 64}}),
    (MoveMadeReply, {"game_id": "g" * 32, "n": 5, "receipt": {  # a side move's: entry 2 of team 1's log, the game at 5
        "game_id": "g" * 32, "n": 2, "hash": "ab" * 32, "kid": "56475aa75463474c", "sig": "cd" * 64, "team": 1}}),
    (ViewGame, {"game_id": "g" * 32, "seat": None}),
    (DecideRequest, {"rules": "speedmosaik@1", "seat": 0, "level": "normal", "view": {"du": 0},
                     "game_id": "g" * 32, "n": 9}),
    (Decision, {"move": {"source": "schale", "schale": 1, "farbe": "gelb", "reihe": 3}}),
    (AdviseRequest, {"rules": "speedmosaik@1", "seat": 0, "view": {"du": 0}, "game_id": "g" * 32, "n": 9}),
    (Advice, {"move": {"source": "schale", "schale": 1, "farbe": "gelb", "reihe": 3}, "reason": SUMMARY}),
    (BalanceQuery, {"player_id": "p-anna"}),
    (Balance, {"balance": 975}),
    (HoldStake, {"player_id": "p-anna", "table_id": "t" * 32, "amount": 25,
                 "key": f"hold:{'t' * 32}:p-anna:0a1b2c3d4e5f", "from_key": None}),
    # A quick match seating its player: the queue's hold moves to the table's.
    (HoldStake, {"player_id": "p-anna", "table_id": "t" * 32, "amount": 25,
                 "key": f"hold:{'t' * 32}:p-anna:0a1b2c3d4e5f", "from_key": f"hold:{'m' * 32}:p-anna:9f8e7d6c5b4a"}),
    (StakeHeld, {"held": 25, "balance": 975, "duplicate": False}),
    (ReleaseStake, {"player_id": "p-anna", "table_id": "t" * 32, "key": f"hold:{'t' * 32}:p-anna:0a1b2c3d4e5f",
                    "because": "left"}),
    (StakeReleased, {"released": 25, "duplicate": True}),
    # A daily game's start and end (a player's home): the mode, the seed kept out of GameEnded until the day ends.
    (GameStarted, {
        "game": "speedmosaik", "rules": "speedmosaik@1",
        "settings": {"workshop": "kachelwand", "wall": "fest", "jokers": "ohne"},
        "seats": [{"name": "Anna", "kind": "human", "player_id": "p-anna", "level": None, "account": "guest"},
                  {"name": "Computer 1", "kind": "bot", "player_id": None, "level": "normal", "account": None}],
        "platform": {"think_time": None, "tempo": "normal", "turbo": False, "stake": 0},
        "table_id": "t" * 32, "seed": SEALED_SEED, "seed_commitment": "ef" * 32,
        "mode": {"key": "tageswerkstatt", "day": "2026-12-01", "attempt": 2, "stage": None},
        "seed_reveal_at": "2026-12-01T23:00:00Z",
    }),
    (GameEnded, {
        "game": "speedmosaik", "variant": "kachelwand", "rules": "speedmosaik@1", "table_id": "t" * 32,
        "seats": [{"seat": 0, "name": "Anna", "kind": "human", "player_id": "p-anna", "level": None,
                   "account": "guest"},
                  {"seat": 1, "name": "Computer 1", "kind": "bot", "player_id": None, "level": "normal",
                   "account": None}],
        "outcome": {"places": [1, 2], "scores": [52, 17], "tie_break": [2, 0], "lines": [[LINE], []],
                    "leaderboard_points": [82, 32], "summary": SUMMARY},
        "seed": "", "left": [], "left_with_other_humans": [],
        "mode": {"key": "tageswerkstatt", "day": "2026-12-01", "attempt": 1, "stage": None},
        "seed_reveal_at": "2026-12-01T23:00:00Z", "list_keys": [[52, 2], [17, 0]],
        "badges": [["meisterstueck"], []],
    }),
]


@pytest.mark.parametrize(("contract", "sample"), SAMPLES, ids=lambda value: getattr(value, "__name__", ""))
def test_every_contract_reads_what_its_sender_writes_today_and_writes_it_back_unchanged(
        contract: type[Contract], sample: dict[str, Any]) -> None:
    decoded = contract.from_data(sample)

    assert decoded.to_data() == sample  # same field names, same JSON shape
    assert contract.decode(msgspec.json.encode(sample)) == decoded


@pytest.mark.parametrize(("contract", "sample"), SAMPLES, ids=lambda value: getattr(value, "__name__", ""))
def test_every_contract_round_trips_through_the_wire_and_plain_data(
        contract: type[Contract], sample: dict[str, Any]) -> None:
    built = contract.from_data(sample)

    assert contract.decode(built.encode()) == built
    assert contract.from_data(built.to_data()) == built


def test_built_contracts_equal_their_decoded_copies() -> None:
    built: list[Contract] = [
        GameStarted(game="speedmosaik", rules="speedmosaik@1", settings={"workshop": "kachelwand"},
                    seats=[GameSeat(name="Anna", kind="human", player_id="p-1", account="guest"),
                           GameSeat(name="Computer", kind="bot", level="easy")],
                    platform=PlatformSettings(think_time=90, stake=10), table_id="t1", seed=SEALED_SEED,
                    seed_commitment="ef" * 32),
        MoveMade(seat=0, move={"farbe": "rot"}, chosen_by="player", effects=[{"key": "nimmt", "text": "…"}]),
        PlayerLeft(seat=1, player_id="p-2"),
        GameEnded(game="speedmosaik", variant="sternpavillon", rules="speedmosaik@1",
                  seats=[EndedSeat(seat=0, name="Anna", kind="human", player_id="p-1")],
                  outcome=Outcome(places=[1], scores=[5], tie_break=[0], lines=[[LINE]], leaderboard_points=[35],
                                  summary=SUMMARY, rank_keys=[[5, 0]]),
                  seed=SEED_HEX, left=[0]),
        PlayerRegistered(player_id="p-1", name="Anna", registered_at="2026-11-29T12:00:00Z"),
        BotTurn(game_id="g1", n=2, seat=1, level="strong", rules="speedmosaik@1", view={"du": 1}, must=False),
        TimerDeadline(game_id="g1", seat=0, n=1, deadline="2026-11-29T12:02:11+00:00"),
        StartGame(game="speedmosaik", seats=[StartSeat(kind="bot", level="easy")]),
        StartedReply(game_id="g1", rules="speedmosaik@1", n=1),
        MakeMove(game_id="g1", seat=0, move={"farbe": "rot"}),
        MoveMadeReply(game_id="g1", n=2),
        ViewGame(game_id="g1", seat=1),
        DecideRequest(rules="speedmosaik@1", seat=0, view={}),
        Decision(move={"farbe": "rot"}),
        AdviseRequest(rules="speedmosaik@1", seat=0, view={}),
        Advice(move=None, reason=SUMMARY),
        BalanceQuery(player_id="p-1"),
        Balance(balance=1000),
        HoldStake(player_id="p-1", table_id="t1", amount=10, key="hold:t1:p-1:ab"),
        StakeHeld(held=10, balance=990, duplicate=False),
        ReleaseStake(player_id="p-1", table_id="t1", key="hold:t1:p-1:ab"),
        StakeReleased(released=10, duplicate=False),
    ]
    for contract in built:
        kind = type(contract)
        assert kind.decode(contract.encode()) == contract, kind.__name__
        assert kind.from_data(contract.to_data()) == contract, kind.__name__


def test_old_logs_decode_with_the_defaults_of_fields_added_since() -> None:
    # GameStarted before think times (no platform), GameEnded before leaving (no left lists), a hex seed.
    started = GameStarted.from_data({"game": "speedmosaik", "rules": "speedmosaik@1", "settings": {},
                                     "seats": [{"name": "Anna", "kind": "human", "player_id": "p-1"}],
                                     "table_id": None, "seed": SEED_HEX, "seed_commitment": "ef" * 32})
    ended = GameEnded.from_data({key: value for key, value in SAMPLES[3][1].items()
                                 if key not in ("left", "left_with_other_humans")})

    assert started.platform == PlatformSettings(think_time=None, tempo="normal", turbo=False, stake=0)
    assert started.seed == SEED_HEX and started.seats[0].account is None
    assert ended.left == [] and ended.left_with_other_humans == []


def test_a_newer_writer_s_extra_fields_do_not_break_an_older_reader() -> None:
    newer = {**SAMPLES[1][1], "undo_of": 4, "think_ms": 812}

    assert MoveMade.from_data(newer) == MoveMade.from_data(SAMPLES[1][1])


def test_the_event_hash_of_a_payload_written_through_its_contract_is_the_hash_written_by_hand() -> None:
    at = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    for contract, sample in SAMPLES[:4]:
        by_hand = new_event(game_id="g1", n=2, type=contract.__name__, actor="system", rules="speedmosaik@1",
                            data=sample, prev="0" * 64, at=at)
        typed = new_event(game_id="g1", n=2, type=contract.__name__, actor="system", rules="speedmosaik@1",
                          data=contract.from_data(sample).to_data(), prev="0" * 64, at=at)
        assert typed.hash == by_hand.hash and typed.encode() == by_hand.encode()


def test_the_outcome_contract_carries_every_field_of_the_rule_modules_outcome() -> None:
    line = ComputationLine(label="Wandpunkte", points=12, key="wand", params={"reihen": (1, 2)})
    summary = Phrase(key="sieg", params={"name": "Anna"}, text="Anna gewinnt.")
    plain = RulesOutcome(places=(1, 2), scores=(12, 3), tie_break=(1, 0), lines=((line,), ()),
                         leaderboard_points=(42, 18), summary=summary)
    ranked = RulesOutcome(places=(2, 1), scores=(12, 3), tie_break=(1, 0), lines=((line,), ()),
                          leaderboard_points=(27, 33), summary=summary, rank_keys=((1, 12), (2, 3)))

    for outcome in (plain, ranked):
        assert Outcome.from_data(outcome.to_json()).to_data() == outcome.to_json()


def test_typed_payload_of_a_game_event() -> None:
    event = new_event(game_id="g1", n=3, type=EventType.PLAYER_LEFT, actor="p-anna", rules="speedmosaik@1",
                      data=SAMPLES[2][1], prev="0" * 64)

    assert payload_of(event) == PlayerLeft(seat=0, player_id="p-anna", with_other_humans=True)
    assert PlayerLeft.of(event).with_other_humans is True
    with pytest.raises(ContractError, match="ist PlayerLeft, nicht GameEnded"):
        GameEnded.of(event)


@pytest.mark.parametrize(("raw", "reason"), [
    (b'{"game_id": "g1", "move": {}}', "Die Anfrage table.cmd.move ist unvollständig: „seat“ fehlt."),
    (b'{"game_id": "g1", "seat": "eins", "move": {}}',
     "Die Anfrage table.cmd.move ist ungültig: „seat“ hat die falsche Form (erwartet: eine ganze Zahl)."),
    (b'{"game_id": "g1", "seat": 0, "move": "blau"}',
     "Die Anfrage table.cmd.move ist ungültig: „move“ hat die falsche Form (erwartet: ein JSON-Objekt)."),
    (b'["g1", 0]', "Die Anfrage table.cmd.move muss ein JSON-Objekt sein."),
    (b'{kein json', "Die Anfrage table.cmd.move ist kein gültiges JSON."),
])
def test_a_malformed_message_is_refused_with_a_german_reason(raw: bytes, reason: str) -> None:
    with pytest.raises(ContractError) as refused:
        MakeMove.decode(raw)

    assert refused.value.reason == reason


def test_a_malformed_event_payload_names_the_field_in_german() -> None:
    broken = {**SAMPLES[3][1], "outcome": {**SAMPLES[3][1]["outcome"], "places": ["erster", 2]}}

    with pytest.raises(ContractError) as refused:
        GameEnded.from_data(broken)

    assert refused.value.reason == ("Das Ereignis GameEnded ist ungültig: „outcome.places[0]“ hat die falsche Form "
                                    "(erwartet: eine ganze Zahl).")


def test_every_command_names_a_subject_and_queue_defined_in_subjects() -> None:
    commands: list[Command[Any, Any]] = [START_GAME, MAKE_MOVE, PLAY_MOVE, VIEW_GAME, DECIDE, ADVISE, BALANCE,
                                         HOLD_STAKE, RELEASE_STAKE, GAME_POT]
    names = {value for key, value in vars(subjects).items() if key.isupper() and isinstance(value, str)}

    assert all(command.subject in names and command.queue in names for command in commands)
    assert len({command.subject for command in commands}) == len(commands)


async def test_a_command_that_does_not_fit_is_refused_422_in_german_before_the_handler_runs(nc: NatsClient) -> None:
    handled: list[MakeMove] = []

    async def handler(command: MakeMove) -> MoveMadeReply:
        handled.append(command)
        return MoveMadeReply(game_id=command.game_id, n=command.seat + 1)

    command = Command(f"test.cmd.{uuid.uuid4().hex}", "test", MakeMove, MoveMadeReply)
    subscription = await answer(nc, command, handler)
    try:
        with pytest.raises(CommandRefused) as refused:
            await request(nc, command.subject, {"game_id": "g1", "move": {}})
        reply = await call(nc, command, MakeMove(game_id="g1", seat=2, move={"farbe": "rot"}))
        raw = await nc.request(command.subject, b"{kein json", timeout=5)
    finally:
        await subscription.unsubscribe()

    assert refused.value.status == 422 and refused.value.code == "malformed"
    assert refused.value.reason == "Die Anfrage table.cmd.move ist unvollständig: „seat“ fehlt."
    assert reply == MoveMadeReply(game_id="g1", n=3)
    assert len(handled) == 1
    assert msgspec.json.decode(raw.data) == {"ok": False, "status": 422, "code": "malformed",
                                             "reason": "Die Anfrage table.cmd.move ist kein gültiges JSON."}


async def test_a_command_that_meets_a_restarting_nats_is_refused_503_not_500(nc: NatsClient) -> None:
    # What a move meets while JetStream restarts: the append finds no stream to acknowledge it.
    async def handler(command: MakeMove) -> MoveMadeReply:
        raise NoStreamResponseError

    command = Command(f"test.cmd.{uuid.uuid4().hex}", "test", MakeMove, MoveMadeReply)
    subscription = await answer(nc, command, handler)
    try:
        with pytest.raises(CommandRefused) as refused:
            await call(nc, command, MakeMove(game_id="g1", seat=0, move={}))
    finally:
        await subscription.unsubscribe()

    assert (refused.value.status, refused.value.code) == (503, "unavailable")
    assert refused.value.reason == "Ein Dienst dahinter antwortet gerade nicht. Bitte versuche es gleich noch einmal."


async def test_a_reply_that_does_not_fit_its_contract_is_refused_502(nc: NatsClient) -> None:
    async def handler(command: BalanceQuery) -> dict[str, Any]:
        return {"balance": "viel"}

    command: Command[BalanceQuery, Any] = Command(f"test.cmd.{uuid.uuid4().hex}", "test", BalanceQuery, dict)
    subscription = await answer(nc, command, handler)
    try:
        with pytest.raises(CommandRefused) as refused:
            await call(nc, Command(command.subject, "test", BalanceQuery, Balance), BalanceQuery(player_id="p-1"))
    finally:
        await subscription.unsubscribe()

    assert refused.value.status == 502 and refused.value.code == "bad_reply"
    assert refused.value.reason == ("Die Antwort auf ledger.cmd.balance ist ungültig: „balance“ hat die falsche "
                                    "Form (erwartet: eine ganze Zahl).")
