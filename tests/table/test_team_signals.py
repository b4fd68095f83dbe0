"""Speednova's team signals leave no trace for the other team (issue 24, point 1), on real JetStream.

Two four-seat team games with the same seed and the same placements: in game A team 0 (seats 0 + 2) gives
signals all game long, in game B nobody signals. As the opponent (seat 1's player) and as a spectator (no token)
every answer is the same in both games apart from the game's id, timestamps and what hashes them: the log
(`/events`), the export, `/audit`, every replay step, the views (with their `n`, over HTTP and `table.cmd.view`)
and the live stream (no update a signal could be timed by). The team's members see the signals (views, their
team log, replay, export); the operator's export audits with every signal replayed, the opponent's export audits
without any, and a computer gives its signals through the same NATS command without moving the game's log.

Signed team logs: every signal's entry is signed over its team's message, a signal's answer (HTTP, NATS, the
team's live updates) carries that entry's receipt (with `team`), which proves against the team log of the
operator's or the team's export; the opponent's answers and live updates never carry one.
"""

from __future__ import annotations

import asyncio
import copy
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from fastapi import FastAPI
from nats.aio.client import Client as NatsClient

from libs.audit import audit
from libs.audit.receipts import check_receipts, read_receipts
from libs.platform.auth import Identity, PlayerKind, issue_operator_token, issue_token
from libs.platform.contracts.commands import MAKE_MOVE, VIEW_GAME, MakeMove, ViewGame
from libs.platform.contracts.subjects import TABLE_START
from libs.platform.rpc import call, request
from libs.platform.settings import Settings
from libs.platform.signing import Keyring, public_keys, signed_message
from libs.rules.speednova.tiles import COLOURS
from services.table.app import create_app
from services.table.event_store import GameLog
from services.table.records import OutOfOrder, begin, fold_merged, fold_on, replay
from services.table.seeds import SeedSource
from services.table.views import game_view
from tests.audit.forgery import rebind_team_logs, resign, sign_team_logs, unsign
from tests.conftest import TEST_AUTH_SECRET, running_app
from tools.speed.cli import main as speed

SEED = bytes(range(32))
PLAYERS = tuple(Identity(player_id=f"{name.lower()}-{uuid.uuid4().hex[:8]}", name=name, kind=PlayerKind.GUEST)
                for name in ("Anna", "Bert", "Carl", "Dora"))
ANNA, BERT, CARL, DORA = PLAYERS
OPERATOR = {"Authorization": f"Bearer {issue_operator_token(TEST_AUTH_SECRET, 'signals-test')}"}
VOLATILE = frozenset({"game_id", "at", "hash", "prev", "digest", "salt", "exported_at", "since", "deadline",
                      "after_hash", "sig"})
"""What differs between two games with the same seed and moves: their ids, times and what hashes, salts or signs
them (an event's and a receipt's signature)."""


class FixedSeeds(SeedSource):
    """Every game gets the same seed, so two games deal alike."""

    def draw(self) -> bytes:
        return SEED


def auth(identity: Identity) -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token(TEST_AUTH_SECRET, identity)}"}


def same(value: Any) -> Any:
    """`value` with what differs between two equal games (ids, times, hashes) blanked."""
    if isinstance(value, dict):
        return {key: "*" if key in VOLATILE else same(item) for key, item in value.items()}
    if isinstance(value, list):
        return [same(item) for item in value]
    return value


@dataclass
class Played:
    """A team game played to its end, with what the opponent and a spectator were shown live."""

    game_id: str
    ns: list[int] = field(default_factory=list)
    """The view's `n` at every step of the game (the opponent's)."""
    opponent: dict[int, Any] = field(default_factory=dict)
    public: dict[int, Any] = field(default_factory=dict)
    signals: int = 0
    seen_by_partner: int = 0
    gone_out: int = 0
    live_opponent: str = ""
    live_public: str = ""
    live_partner: str = ""
    signal_answers: list[dict[str, Any]] = field(default_factory=list)
    """The HTTP answers to team 0's signals (each with its receipt)."""
    move_answers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """(seat, answer) of every HTTP answer to a move of the game's log."""


@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    app = create_app(settings, seeds=FixedSeeds())
    async with running_app(app) as client:
        yield client, app


async def start(nc: NatsClient, kinds: tuple[str, ...] = ("human",) * 4, think_time: int | None = None) -> str:
    seats = [{"kind": "human", "player_id": player.player_id, "name": player.name} if kind == "human"
             else {"kind": "bot", "level": "easy"} for player, kind in zip(PLAYERS, kinds, strict=True)]
    result = await request(nc, TABLE_START, {"game": "speednova", "settings": {"teams": "mit"}, "seats": seats,
                                             "platform": {"think_time": think_time}})
    return str(result["game_id"])


async def play(client: httpx.AsyncClient, nc: NatsClient, signalling: bool) -> Played:
    """Play a team game to its end: each mover makes its first legal move; with `signalling`, team 0 signals
    (colour signals by seat 2, "Feld frei halten" by seat 0 on the cell the next placement takes)."""
    game = Played(game_id=await start(nc))
    game_id = game.game_id
    streams = [asyncio.create_task(client.get(f"/games/{game_id}/live", headers=headers))
               for headers in (auth(BERT), {}, auth(CARL))]
    await asyncio.sleep(0.2)  # the streams subscribe before the first move
    for step in range(600):
        views = [(await client.get(f"/games/{game_id}/view", headers=auth(player))).json() for player in PLAYERS]
        public = (await client.get(f"/games/{game_id}")).json()
        n = views[1]["n"]
        game.ns.append(n)
        game.opponent[n], game.public[public["n"]] = views[1], public
        if views[0]["board"]["du"]["signale_erloschen"]:
            game.gone_out += 1
        if views[2]["board"]["du"]["signale"]:
            game.seen_by_partner += 1
        if views[1]["status"] == "ended":
            break
        movers = [view for view in views if view["you"] in view["to_move"]]
        if not movers:
            await asyncio.sleep(0.05)  # GameEnded is on its way
            continue
        mover = movers[0]
        move = mover["legal_moves"][0]
        colour = {"signal": "viel" if step % 4 else "brauche", "farbe": COLOURS[step % 6]}
        if signalling and step % 2 == 0 and colour in views[2]["legal_moves"]:
            answer = await client.post(f"/games/{game_id}/moves", headers=auth(CARL),
                                       json={"move": colour, "expected_n": n})
            assert answer.status_code == 200, answer.text
            assert answer.json()["n"] == n and answer.json()["team_log"]["n"] > 0
            game.signals += 1
            game.signal_answers.append(answer.json())
        if signalling and "feld" in move and step % 3 == 0:
            keep = {"signal": "frei", "feld": move["feld"]}
            if keep in views[0]["legal_moves"]:
                answer = await client.post(f"/games/{game_id}/moves", headers=auth(ANNA), json={"move": keep})
                assert answer.status_code == 200, answer.text
                game.signals += 1
                game.signal_answers.append(answer.json())
        answer = await client.post(f"/games/{game_id}/moves", headers=auth(PLAYERS[mover["you"]]),
                                   json={"move": move, "expected_n": n})
        assert answer.status_code == 200, answer.text
        game.move_answers.append((mover["you"], answer.json()))
    else:
        raise AssertionError("the game did not end")
    game.live_opponent, game.live_public, game.live_partner = [
        (await asyncio.wait_for(task, 30)).text for task in streams]
    return game


@pytest.fixture(scope="module")
async def games(table: tuple[httpx.AsyncClient, FastAPI], nc: NatsClient) -> tuple[Played, Played]:
    client, _ = table
    return await play(client, nc, signalling=True), await play(client, nc, signalling=False)


def updates(stream: str) -> list[tuple[str, Any]]:
    """The (id, view) of every update of a live stream."""
    found = []
    for block in stream.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "data" in lines:
            found.append((lines["id"], msgspec.json.decode(lines["data"])))
    return found


async def test_the_team_signals_and_its_members_see_them(games: tuple[Played, Played], nc: NatsClient) -> None:
    with_signals, without = games
    assert with_signals.signals > 30 and without.signals == 0
    assert with_signals.seen_by_partner > 10 and with_signals.gone_out > 0
    log = GameLog(nc.jetstream())
    team0 = await log.read_team(with_signals.game_id, 0)
    assert len(team0) == with_signals.signals and not await log.read_team(with_signals.game_id, 1)
    assert {stored.event.type for stored in team0} == {"SideMoveMade"}
    assert not await log.read_team(without.game_id, 0)
    game_log = await log.read(with_signals.game_id)
    assert len(game_log) == len(await log.read(without.game_id))
    assert all("signal" not in stored.event.encode().decode() for stored in game_log)


async def test_views_and_their_numbering_are_the_same_for_the_opponent_and_a_spectator(
        games: tuple[Played, Played]) -> None:
    with_signals, without = games
    # Not one n more (a step may be seen twice while GameEnded is on its way, so each n is counted once).
    assert sorted(set(with_signals.ns)) == sorted(set(without.ns)) == list(range(1, max(without.ns) + 1))
    assert len(set(with_signals.ns)) > 60
    assert with_signals.opponent.keys() == without.opponent.keys()
    for n in with_signals.opponent:
        assert same(with_signals.opponent[n]) == same(without.opponent[n]), n
    # A spectator's view is read after the seats' (GameEnded may come in between): compared where both games have it.
    shared = with_signals.public.keys() & without.public.keys()
    assert len(shared) > 60
    for n in shared:
        assert same(with_signals.public[n]) == same(without.public[n]), n
        assert "speednova.signal" not in str(with_signals.opponent[n])


async def test_the_log_export_and_every_replay_step_are_the_same_for_the_opponent_and_a_spectator(
        table: tuple[httpx.AsyncClient, FastAPI], games: tuple[Played, Played], nc: NatsClient) -> None:
    client, _ = table
    with_signals, _without = games
    for headers in (auth(BERT), auth(DORA), {}):
        answers = [(await client.get(f"/games/{game.game_id}/events", headers=headers)).json() for game in games]
        assert same(answers[0]) == same(answers[1])
        assert "SideMoveMade" not in str(answers[0]) and "speednova.signal" not in str(answers[0])
        exports = [await client.get(f"/games/{game.game_id}/export", headers=headers) for game in games]
        assert exports[0].status_code == exports[1].status_code
        if headers:
            documents = [answer.json() for answer in exports]
            assert same(documents[0]) == same(documents[1])
            assert documents[0]["team_logs"] == [{"team": 1, "seats": [1, 3], "events": []}]
            assert audit(documents[0]).passed, audit(documents[0]).lines()
    audits = [(await client.get(f"/games/{game.game_id}/audit")).text.replace(game.game_id, "*") for game in games]
    assert audits[0] == audits[1] and "Teamprotokolle" not in audits[0]
    for seat in (1, 3, None):  # over NATS too (table.cmd.view)
        views = [await call(nc, VIEW_GAME, ViewGame(game_id=game.game_id, seat=seat)) for game in games]
        assert same(views[0]) == same(views[1]), seat
    last = max(with_signals.ns)
    for n in range(1, last + 1):
        for sight, headers in (("1", auth(BERT)), ("public", auth(BERT)), ("3", auth(DORA)), ("public", {})):
            steps = [await client.get(f"/games/{game.game_id}/replay", params={"n": str(n), "seat": sight},
                                      headers=headers) for game in games]
            assert steps[0].status_code == steps[1].status_code, (n, sight)
            assert same(steps[0].json()) == same(steps[1].json()), (n, sight)
            assert "speednova.signal" not in steps[0].text


async def test_the_live_stream_has_no_update_a_signal_could_be_timed_by(games: tuple[Played, Played]) -> None:
    with_signals, without = games
    for name in ("live_opponent", "live_public"):
        found, expected = updates(getattr(with_signals, name)), updates(getattr(without, name))
        numbers = [int(event_id.split(".")[0]) for event_id, _view in found]
        assert numbers == sorted(set(numbers)), name  # one update per event of the log, none in between
        assert expected and found[-1][0] == expected[-1][0]  # both streams end with the game's end
        views = with_signals.opponent if name == "live_opponent" else with_signals.public
        for event_id, view in found:
            n = int(event_id.split(".")[0])
            assert event_id == (f"{n}.0" if name == "live_opponent" else str(n))
            # Never a team's receipt (an opponent's update shows the game after its event n, whatever team 0 did).
            assert view["receipt"] is not None and "team" not in view["receipt"], (name, event_id)
            if n in views and view["status"] != "ended":  # a live update is the view plus its event's receipt
                assert view["receipt"]["n"] == n
                assert same({key: part for key, part in view.items() if key != "receipt"}) == same(views[n]), (name, n)
            assert "speednova.signal" not in str(view)
    partner = updates(with_signals.live_partner)
    assert any(view["board"]["du"]["signale"] for _id, view in partner)
    assert any(int(event_id.split(".")[1]) > 0 for event_id, _ in partner)


async def test_the_team_reads_its_signals_in_its_log_replay_and_export_and_the_operator_audits_them_all(
        table: tuple[httpx.AsyncClient, FastAPI], games: tuple[Played, Played]) -> None:
    client, _ = table
    with_signals, _without = games
    game_id = with_signals.game_id
    events = (await client.get(f"/games/{game_id}/events", headers=auth(ANNA))).json()
    assert len(events["team_log"]["events"]) == with_signals.signals and events["team_log"]["seats"] == [0, 2]
    mine = (await client.get(f"/games/{game_id}/export", headers=auth(CARL))).json()
    assert [log["team"] for log in mine["team_logs"]] == [0] and len(mine["team_logs"][0]["events"]) > 30
    report = audit(mine)
    assert report.passed and "team" in report.checks, report.lines()
    whole = (await client.get(f"/games/{game_id}/export", headers=OPERATOR)).json()
    assert [log["team"] for log in whole["team_logs"]] == [0, 1]
    report = audit(whole)
    assert report.passed and "team" in report.checks, report.lines()
    assert "Teamprotokolle" in report.verdict()
    shown = 0
    for n in range(1, max(with_signals.ns) + 1):
        step = (await client.get(f"/games/{game_id}/replay", params={"n": str(n), "seat": "0"},
                                 headers=auth(ANNA))).json()
        shown += len(step["team_events"])
        assert step["view"]["team_log"]["n"] >= shown - len(step["team_events"])
    assert shown == with_signals.signals


async def test_a_forged_or_moved_signal_fails_the_audit(table: tuple[httpx.AsyncClient, FastAPI],
                                                         games: tuple[Played, Played]) -> None:
    client, _ = table
    whole = (await client.get(f"/games/{games[0].game_id}/export", headers=OPERATOR)).json()
    moved = msgspec.json.decode(msgspec.json.encode(whole))
    moved["team_logs"][0]["events"][0]["data"]["after"] += 1
    difference = audit(moved).difference
    assert difference is not None and difference.check == "team"
    dropped = msgspec.json.decode(msgspec.json.encode(whole))
    del dropped["team_logs"][0]["events"][0]
    difference = audit(dropped).difference
    assert difference is not None and difference.check == "team"
    stolen = msgspec.json.decode(msgspec.json.encode(whole))
    stolen["team_logs"][0]["seats"] = [1, 3]
    difference = audit(stolen).difference
    assert difference is not None and difference.check == "team"


async def test_a_computer_signals_through_the_same_command_and_the_log_does_not_move(
        table: tuple[httpx.AsyncClient, FastAPI], nc: NatsClient) -> None:
    client, _ = table
    game_id = await start(nc, ("human", "human", "bot", "human"), think_time=120)
    before = (await client.get(f"/games/{game_id}", headers={})).json()
    assert [clock["seat"] for clock in before["clocks"]] == [0]  # Anna's placement: her clock runs
    reply = await call(nc, MAKE_MOVE, MakeMove(game_id=game_id, seat=2, move={"signal": "viel", "farbe": "komet"},
                                                actor="bot:easy", chosen_by="bot", expected_n=before["n"]))
    assert reply.n == before["n"]
    # The reply's receipt is the team-log entry's (entry 1 of team 0), its `n` the game's.
    assert reply.receipt is not None and (reply.receipt.team, reply.receipt.n) == (0, 1)
    after = (await client.get(f"/games/{game_id}")).json()
    assert same(after) == same(before)
    anna = (await client.get(f"/games/{game_id}/view", headers=auth(ANNA))).json()
    assert [signal["sitz"] for signal in anna["board"]["du"]["signale"]] == [2]
    assert anna["team_log"]["n"] == 1 and anna["to_move"] == before["to_move"] and anna["clocks"] == before["clocks"]
    # The mover herself signals during her placement decision: her clock runs on, nothing else changes.
    answer = await client.post(f"/games/{game_id}/moves", headers=auth(ANNA),
                               json={"move": {"signal": "brauche", "farbe": "nebel"}})
    assert answer.status_code == 200, answer.text
    assert answer.json()["clocks"] == before["clocks"] and answer.json()["n"] == before["n"]
    assert same((await client.get(f"/games/{game_id}")).json()) == same(before)
    assert (await client.get(f"/games/{game_id}")).json()["clocks"] == before["clocks"]
    assert answer.json()["receipt"]["team"] == 0 and answer.json()["receipt"]["n"] == 2
    team0 = await GameLog(nc.jetstream()).read_team(game_id, 0)
    assert [stored.event.data["chosen_by"] for stored in team0] == ["bot", "player"]
    assert reply.receipt.hash == team0[0].event.hash and team0[0].event.sig is not None
    assert reply.receipt.sig == team0[0].event.sig["sig"]
    assert [stored.event.data["after"] for stored in team0] == [before["n"]] * 2


async def test_every_reader_folds_the_logs_in_one_order_and_an_entry_behind_the_record_is_refolded(
        table: tuple[httpx.AsyncClient, FastAPI], games: tuple[Played, Played], nc: NatsClient) -> None:
    client, _ = table
    game_id = games[0].game_id
    log = GameLog(nc.jetstream())
    events, side = await log.read(game_id), await log.read_team(game_id, 0)
    whole = replay(events, side)
    assert whole.team_logs[0].n == len(side) and whole.n == len(events)
    for seat, player in enumerate(PLAYERS):
        served = (await client.get(f"/games/{game_id}/view", headers=auth(player))).json()
        assert game_view(whole, seat)["board"] == served["board"]
    # A replica that folded game event k + 1 before the entry that follows event k: it must fold afresh.
    first = side[0]
    k = int(first.event.data["after"])
    ahead = fold_on(begin(events[0]), events[1:k + 1])
    assert ahead.n == k + 1
    with pytest.raises(OutOfOrder):
        fold_merged(ahead, [], [first])
    at_k = fold_on(begin(events[0]), events[1:k])
    assert fold_merged(at_k, events[k:], side).team_logs[0].n == len(side)


# ---- signed team logs: signatures and receipts of side moves -------------------------------------------------
async def _keys(client: httpx.AsyncClient) -> dict[str, Any]:
    keys: dict[str, Any] = (await client.get("/keys")).json()
    return keys


async def test_a_signals_answer_carries_its_entrys_receipt_and_the_opponents_answers_never_a_teams(
        table: tuple[httpx.AsyncClient, FastAPI], games: tuple[Played, Played]) -> None:
    client, _ = table
    with_signals, without = games
    whole = (await client.get(f"/games/{with_signals.game_id}/export", headers=OPERATOR)).json()
    entries = {entry["n"]: entry for entry in whole["team_logs"][0]["events"]}
    hashes = {event["n"]: event["hash"] for event in whole["events"]}
    keys = await _keys(client)
    assert keys["team_signed_message"] == "speed-event/1:<game_id>:team<k>:<n>:<hash>"
    key = public_keys(keys["keys"])[keys["active"]]
    assert len(with_signals.signal_answers) == with_signals.signals
    for answer in with_signals.signal_answers:
        receipt = answer["receipt"]
        entry = entries[receipt["n"]]
        assert receipt["team"] == 0 and receipt["n"] == answer["team_log"]["n"]  # the entry's number ...
        assert answer["n"] == entry["data"]["after"] and answer["n"] in hashes  # ... the answer's n the game's
        assert receipt["hash"] == entry["hash"] and receipt["kid"] == entry["sig"]["kid"] == keys["active"]
        assert key.verifies(signed_message(with_signals.game_id, receipt["n"], receipt["hash"], 0), receipt["sig"])
        assert not key.verifies(signed_message(with_signals.game_id, receipt["n"], receipt["hash"]), receipt["sig"])
    for game in games:  # a move of the game's log: that event's receipt, without `team`, for every seat
        assert game.move_answers
        for seat, answer in game.move_answers:
            assert set(answer["receipt"]) == {"game_id", "n", "hash", "kid", "sig"}, seat
            assert answer["receipt"]["n"] == answer["n"]
    assert same([answer for seat, answer in with_signals.move_answers if seat in (1, 3)]) == same(
        [answer for seat, answer in without.move_answers if seat in (1, 3)])


async def test_the_partners_live_updates_carry_the_receipt_of_what_they_show_the_game_after(
        table: tuple[httpx.AsyncClient, FastAPI], games: tuple[Played, Played]) -> None:
    client, _ = table
    with_signals, _without = games
    whole = (await client.get(f"/games/{with_signals.game_id}/export", headers=OPERATOR)).json()
    entries = {entry["n"]: entry for entry in whole["team_logs"][0]["events"]}
    hashes = {event["n"]: event["hash"] for event in whole["events"]}
    team_receipts = 0
    for event_id, view in updates(with_signals.live_partner):
        n, entry = (int(part) for part in event_id.split("."))
        receipt = view["receipt"]
        if entry and entries[entry]["data"]["after"] == n:  # the update shows the game after team 0's entry
            assert receipt == {"game_id": with_signals.game_id, "n": entry, "hash": entries[entry]["hash"],
                               "kid": entries[entry]["sig"]["kid"], "sig": entries[entry]["sig"]["sig"], "team": 0}
            team_receipts += 1
        else:
            assert "team" not in receipt and (receipt["n"], receipt["hash"]) == (n, hashes[n]), event_id
    assert team_receipts > 5
    assert team_receipts == len(read_receipts([view for _id, view in updates(with_signals.live_partner)
                                               if "team" in view["receipt"]]))


async def test_team_receipts_prove_against_the_team_log_and_catch_a_changed_or_cut_team_log(
        table: tuple[httpx.AsyncClient, FastAPI], games: tuple[Played, Played], settings: Settings,
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    client, _ = table
    with_signals, _without = games
    game_id = with_signals.game_id
    whole = (await client.get(f"/games/{game_id}/export", headers=OPERATOR)).json()
    mine = (await client.get(f"/games/{game_id}/export", headers=auth(CARL))).json()
    theirs = (await client.get(f"/games/{game_id}/export", headers=auth(BERT))).json()
    kept = [*with_signals.signal_answers, *(answer for seat, answer in with_signals.move_answers if seat == 2)]
    receipts = read_receipts(kept)
    signals = len(with_signals.signal_answers)
    for document in (whole, mine):
        report = check_receipts(document, receipts)
        assert report.passed, report.lines()
        assert report.team_proven == {0: list(range(1, signals + 1))} and report.proven
        assert f"Eintrag 1–{signals} von Teamprotokoll 1" in report.lines()[0]
    (tmp_path / "quittungen.json").write_text(json.dumps(kept), encoding="utf-8")
    (tmp_path / "export.json").write_text(json.dumps(whole), encoding="utf-8")
    capsys.readouterr()
    assert speed(["audit", str(tmp_path / "export.json"), "--receipts", str(tmp_path / "quittungen.json")]) == 0
    assert "Quittungen bestanden:" in capsys.readouterr().out
    # The opponent's export has no log of team 0: its receipts cannot be proved there, which is no pass.
    report = check_receipts(theirs, receipts)
    assert not report.passed and len(report.differences) == signals
    assert all(difference.field == "team_logs[0]" for difference in report.differences)
    assert "enthält das Teamprotokoll 1 nicht" in report.differences[0].reason
    # A changed entry, its log re-hashed and bound again (and signed anew by the platform itself): caught by the
    # receipts of it and of every later entry; the entries before it still hold.
    keyring = Keyring.load(settings.table_signing_keys_file)
    changed = 3
    forged = copy.deepcopy(whole)
    forged["team_logs"][0]["events"][changed - 1]["at"] = "2020-01-01T00:00:00.000Z"
    rebind_team_logs(forged)
    sign_team_logs(forged, keyring)
    assert audit(forged).passed  # the platform signing a second team log: only receipts tell
    report = check_receipts(forged, receipts)
    assert report.team_proven == {0: list(range(1, changed))}
    assert [difference.field for difference in report.differences] == [
        f"team_logs[0].events[{n}].hash" for n in range(changed, signals + 1)]
    assert "das Teamprotokoll bis zu diesem Eintrag wurde nach der Quittung geändert" in report.differences[0].reason
    # A team log cut short after a receipt.
    cut = copy.deepcopy(whole)
    del cut["team_logs"][0]["events"][signals - 2:]
    report = check_receipts(cut, receipts)
    assert [difference.field for difference in report.differences] == [
        f"team_logs[0].events[{n}].n" for n in (signals - 1, signals)]
    assert "fehlt im Export, obwohl der Tisch ihn quittiert hat" in report.differences[0].reason
    # A receipt of team 0's entry passed off as team 1's, or as a game event's, does not verify.
    first = {key: value for key, value in receipts[0].items()}
    for claimed in ({**first, "team": 1}, {key: value for key, value in first.items() if key != "team"}):
        report = check_receipts(whole, [claimed])
        assert not report.passed and report.differences[0].field.endswith("sig"), claimed


async def test_the_signatures_cover_the_team_logs_and_a_forged_team_log_is_caught_unless_the_table_signs_it(
        table: tuple[httpx.AsyncClient, FastAPI], games: tuple[Played, Played], settings: Settings) -> None:
    client, _ = table
    with_signals, _without = games
    game_id = with_signals.game_id
    keys = await _keys(client)
    active, trusted = keys["active"], public_keys(keys["keys"])
    whole = (await client.get(f"/games/{game_id}/export", headers=OPERATOR)).json()
    mine = (await client.get(f"/games/{game_id}/export", headers=auth(ANNA))).json()
    for document in (whole, mine):
        assert document["signing_keys"] == [{"kid": active, "alg": "Ed25519",
                                             "public_key": trusted[active].raw.hex()}]
        assert all(entry["sig"]["kid"] == active for log in document["team_logs"] for entry in log["events"])
        report = audit(document, trusted_keys=trusted, require_signatures=True)
        assert report.passed, report.lines()
        assert report.team_entries == with_signals.signals and report.team_signed_by == {active: with_signals.signals}
        assert report.verdict().endswith(f"; Signaturen: alle {len(document['events'])} Ereignisse und alle "
                                         f"{with_signals.signals} Teameinträge vom Tisch signiert "
                                         f"(Schlüssel {active}; festgelegt durch: gespeicherte Schlüsselliste des "
                                         "Tisches).")
        assert f"Teameinträge signiert (Ed25519): {with_signals.signals} mit Schlüssel {active}" in report.lines()
        assert report.to_json()["signatures"]["team_logs"] == {
            "entries": with_signals.signals, "signed_by": {active: with_signals.signals}, "unsigned": {}}
    # A team log changed and re-hashed (bound again to the game's log): the team-log check holds, the signature not.
    forged = copy.deepcopy(whole)
    entry = forged["team_logs"][0]["events"][4]
    entry["at"] = "2020-01-01T00:00:00.000Z"
    rebind_team_logs(forged)
    report = audit(forged)
    assert report.difference is not None and "team" in report.checks, report.lines()
    assert (report.difference.check, report.difference.field) == ("signature", "team_logs[0].events[5].sig.sig")
    assert report.verdict().startswith("Prüfung fehlgeschlagen: Signaturen: Feld team_logs[0].events[5].sig.sig: "
                                       "Teamprotokoll 1, Eintrag 5: Die Signatur des Eintrags passt nicht")
    # Re-signed with the table's own key (the platform forging): the signatures cannot tell (its receipts can).
    sign_team_logs(forged, Keyring.load(settings.table_signing_keys_file))
    assert audit(forged, trusted_keys=trusted).passed
    # Re-signed with a forger's key: passes only by the key the export names itself, not by the table's keys.
    resigned = copy.deepcopy(forged)
    forger = Keyring.generate()
    resign(resigned, forger)
    assert audit(resigned).passed
    report = audit(resigned, trusted_keys=trusted)
    assert report.difference is not None and report.difference.field == "sig.kid"  # game event 1 first
    only_team = copy.deepcopy(forged)
    sign_team_logs(only_team, forger)
    only_team["signing_keys"] += forger.published_for([forger.active])
    assert audit(only_team).passed
    report = audit(only_team, trusted_keys=trusted)
    assert report.difference is not None and report.difference.field == "team_logs[0].events[1].sig.kid"
    # Signatures stripped: all of them, of a game begun after the table signs every game, is a difference (issue
    # 36; only an older game may be unsigned) ...
    stripped = copy.deepcopy(whole)
    unsign(stripped)
    report = audit(stripped)
    assert report.difference is not None and report.difference.field == "sig"  # game event 1 first
    assert "Ereignis 1 ist nicht signiert, aber der Tisch signiert jede Partie" in report.verdict()
    report = audit(stripped, require_signatures=True)
    assert report.difference is not None and report.difference.field == "sig"  # game event 1 first
    team_only = copy.deepcopy(whole)
    for entry in team_only["team_logs"][0]["events"]:
        entry.pop("sig")
    report = audit(team_only)  # ... of the team log alone, after signed game events: stripped
    assert report.difference is not None and report.difference.field == "team_logs[0].events[1].sig"
    assert "obwohl Ereignis" in report.difference.reason
    one = copy.deepcopy(whole)
    del one["team_logs"][0]["events"][6]["sig"]
    report = audit(one)
    assert report.difference is not None and report.difference.field == "team_logs[0].events[7].sig"
