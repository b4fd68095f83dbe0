"""Hostile input at the table's move endpoints, against real JetStream: HTTP (moves, preview) and table.cmd.move.

Hypothesis sends broken JSON, wrong content types, missing and extra fields, moves that are no objects or
are near-misses of legal ones, expected_n out of range or of the wrong type, huge numbers, NaN, lone
surrogates and NUL bytes. Each is answered 4xx (HTTP) or refused (NATS) with a German reason, never 5xx,
and the game's log and every seat's view stay as they were.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from nats.aio.client import Client as NatsClient

from libs.platform.contracts.subjects import TABLE_MOVE
from libs.platform.settings import Settings
from services.table.app import create_app
from services.table.event_store import GameLog
from tests.conftest import running_app
from tests.rules.helpers import canonical_json
from tests.rules.hostile import (
    ODD_FLOATS,
    ODD_INTS,
    assert_german_reason,
    hostile_moves,
    json_scalars,
    json_values,
)
from tests.table.test_table_api import ANNA, BERT, FixedSeeds, auth, start_two_humans

EXAMPLES = 60
"""Per test; each example is a few requests to the in-process app and a read of the log (well under 30 s)."""
MOVE_KEYS = ("source", "schale", "farbe", "reihe", "bestaetigt", "spalte")
"""The Kachelwand's move keys (the game these tests play)."""
HYPOTHESIS = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                      suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                             HealthCheck.data_too_large])
CONTENT_TYPES = (None, "application/json", "text/plain", "application/x-www-form-urlencoded",
                 "multipart/form-data; boundary=zzz", "application/json; charset=latin-1", "application/xml")
RAW_BODIES = (
    b"", b"{", b"{not json", b"null", b"[]", b"{}", b'"move"', b"\x00", b"\xff\xfe\xfd", b'{"move": NaN}',
    b'{"move": {"source": "mitte", "farbe": "blau", "reihe": NaN}}',
    b'{"move": {"source": "mitte", "farbe": "blau", "reihe": 1e400}}',
    b'{"move": {"source": "mitte", "farbe": "blau", "reihe": -Infinity}}',
    b'{"move": {"source": "schale", "schale": 18446744073709551617, "farbe": "blau", "reihe": 1}}',
    b'{"move": {"source": "mitte", "farbe": "\\ud800", "reihe": 1}}', b'{"move": "\\udfff"}',
    b'{"move": {"\\ud800": 1}}', b'{"\\ud800": {}}',
    b'{"move": {"source": "mitte\\u0000", "farbe": "blau", "reihe": 1}}',
    b'{"move": {}, "expected_n": 1e400}', b'{"move": {}, "expected_n": NaN}', b'{"move": {}, "expected_n": "2"}',
    b'{"move": {}, "expected_n": 18446744073709551616}', b'{"move": {}, "expected_n": ' + b"9" * 400 + b"}",
    b'{"move": {}, "expected_n": -1}', b'{"move": {}, "expected_n": 0}', b'{"move": {}, "expected_n": true}',
    b'{"move": {}, "move": []}', b'{"move": {"source": "mitte", "farbe": "blau", "reihe": 1}, "expected_n": 1.5}',
    b'{"move": ' + b"[" * 5000 + b"]" * 5000 + b"}", b'{"move": {"a": ' + b'{"a": ' * 3000 + b"1" + b"}" * 3001 + b"}",
    b'{"move": {"source": "' + "Ü".encode() * 200_000 + b'"}}', b"\xef\xbb\xbf{\"move\": {}}",
)
"""Bodies no JSON encoder writes: NaN and infinities, escaped lone surrogates, NUL, numbers past 64 bits,
duplicate keys, deep nesting, a byte-order mark, invalid UTF-8, a body past the size limit."""


@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with running_app(create_app(settings, seeds=FixedSeeds())) as client:
        yield client


@pytest.fixture(scope="module")
async def game_id(table: httpx.AsyncClient, nc: NatsClient) -> str:
    """A Kachelwand game of Anna and Bert, two moves in (so the log, the factories and the centre hold something)."""
    game_id = await start_two_humans(nc)
    for player in (ANNA, BERT):
        view = (await table.get(f"/games/{game_id}/view", headers=auth(player))).json()
        move = next(move for move in view["legal_moves"] if move["source"] == "schale")
        answer = await table.post(f"/games/{game_id}/moves", json={"move": move}, headers=auth(player))
        assert answer.status_code == 200, answer.text
    return game_id


@dataclass(frozen=True)
class Seen:
    """What a change would show: the log's last sequence, hash and length, and every view (spectator, both seats)."""

    log: tuple[int, str, int]
    views: str
    legal: dict[str, list[Any]]
    """Each player's legal moves (empty for the seat not to move)."""


async def _seen(table: httpx.AsyncClient, nc: NatsClient, game_id: str) -> Seen:
    events = await GameLog(nc.jetstream()).read(game_id)
    views = [(await table.get(f"/games/{game_id}")).json()]
    legal = {}
    for player in (ANNA, BERT):
        view = (await table.get(f"/games/{game_id}/view", headers=auth(player))).json()
        views.append(view)
        legal[player.player_id] = view["legal_moves"]
    return Seen((events[-1].seq, events[-1].event.hash, len(events)), canonical_json(views), legal)


def _assert_refusal_body(answer: httpx.Response) -> None:
    """A 4xx answer whose JSON ``detail`` is a German reason (never a 5xx, never an English list of errors)."""
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
    body = answer.json()
    assert isinstance(body, dict) and "detail" in body, answer.text[:300]
    assert_german_reason(body["detail"])


def _encode(body: Any) -> bytes:
    """JSON text as a lax client writes it: NaN and infinities as literals, lone surrogates escaped."""
    return json.dumps(body, allow_nan=True).encode("ascii")


def _mostly(usual: st.SearchStrategy[Any], hostile: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Three draws in four from ``usual``: one hostile field at a time gets past the others to the rules."""
    return st.one_of(usual, usual, usual, hostile)


# ---- HTTP ----------------------------------------------------------------------------------------------------
expected_ns = st.one_of(st.integers(-5, 10), st.sampled_from(ODD_INTS), st.sampled_from(ODD_FLOATS), json_scalars())


@st.composite
def move_bodies(draw: st.DrawFn, legal: list[Any]) -> Any:
    """A request body around a hostile move: ``{"move": …}`` with fields missing, extra or of the wrong type."""
    body: dict[str, Any] = {}
    if draw(st.integers(0, 5)):  # usually there is a move
        body["move"] = draw(hostile_moves(legal, MOVE_KEYS))
    if draw(st.booleans()):
        body["expected_n"] = draw(expected_ns)
    if draw(st.integers(0, 3)) == 0:
        body[draw(st.sampled_from(("zug", "seat", "actor", "chosen_by", "\ud800", "move ")))] = draw(json_values())
    return body if draw(st.integers(0, 7)) else draw(json_values(MOVE_KEYS))


@pytest.mark.parametrize("endpoint", ["moves", "preview"])
@HYPOTHESIS
@given(data=st.data())
async def test_hostile_move_requests_get_a_german_4xx_and_change_nothing(
        table: httpx.AsyncClient, nc: NatsClient, game_id: str, endpoint: str, data: st.DataObject) -> None:
    before = await _seen(table, nc, game_id)
    legal = before.legal
    mover = next(p for p in (ANNA, BERT) if legal[p.player_id])
    player = data.draw(_mostly(st.just(mover), st.sampled_from((ANNA, BERT))), label="player")
    bodies = move_bodies(legal[mover.player_id]).map(_encode)
    raw = data.draw(st.one_of(st.sampled_from(RAW_BODIES), bodies, bodies), label="body")
    content_type = data.draw(_mostly(st.just("application/json"), st.sampled_from(CONTENT_TYPES)), label="content type")
    headers = auth(player) | ({"Content-Type": content_type} if content_type else {})
    answer = await table.post(f"/games/{game_id}/{endpoint}", content=raw, headers=headers)
    event(f"{answer.status_code} {answer.json().get('code') if answer.status_code < 500 else ''}")
    if answer.status_code == 200:  # a move that is legal after all (the rules' tests check those): it counts
        assert endpoint == "preview" or legal[player.player_id], answer.text[:300]
        return
    _assert_refusal_body(answer)
    assert await _seen(table, nc, game_id) == before


# ---- NATS ----------------------------------------------------------------------------------------------------
ODD_GAME_IDS = ("", "\x00", "abc\x00", "a.b", "games.>", "*", "\u202eabc", "é", "x" * 500, "../../etc")
"""Game ids no game has: NUL, NATS wildcards and separators, RTL override, non-ASCII, far too long."""


@st.composite
def move_commands(draw: st.DrawFn, game_id: str, legal: list[Any]) -> Any:
    """A table.cmd.move request with hostile fields (wrong types, out of range, missing, extra)."""
    command: dict[str, Any] = {
        "game_id": draw(_mostly(st.just(game_id), st.one_of(st.sampled_from(ODD_GAME_IDS), json_scalars()))),
        "seat": draw(_mostly(st.integers(0, 1), st.one_of(st.sampled_from(ODD_INTS), json_scalars()))),
        "move": draw(hostile_moves(legal, MOVE_KEYS)),
    }
    optional = (
        ("expected_n", _mostly(st.integers(1, 4), expected_ns)),
        ("actor", _mostly(st.sampled_from((ANNA.player_id, BERT.player_id, "system")), json_scalars())),
        ("chosen_by", _mostly(st.sampled_from(("player", "bot", "timeout", "departed")), json_scalars())),
    )
    for key, values in optional:
        if draw(st.booleans()):
            command[key] = draw(values)
    if draw(st.integers(0, 5)) == 0:  # a required field missing or junk
        field = draw(st.sampled_from(("game_id", "seat", "move")))
        if draw(st.booleans()):
            del command[field]
        else:
            command[field] = draw(json_values(MOVE_KEYS))
    return command


@HYPOTHESIS
@given(data=st.data())
async def test_hostile_move_commands_are_refused_with_a_german_reason_and_change_nothing(
        table: httpx.AsyncClient, nc: NatsClient, game_id: str, data: st.DataObject) -> None:
    before = await _seen(table, nc, game_id)
    legal = before.legal
    mover_moves = next(moves for moves in legal.values() if moves)
    commands = move_commands(game_id, mover_moves).map(_encode)
    raw = data.draw(st.one_of(st.sampled_from(RAW_BODIES), commands, commands), label="command")
    assume(len(raw) <= nc.max_payload)  # NATS clients refuse to send more; the server never sees it
    reply = json.loads((await nc.request(TABLE_MOVE, raw, timeout=10)).data)
    event("accepted" if reply["ok"] else f"{reply['status']} {reply['code']}")
    if reply["ok"]:  # the mover's legal move after all (NATS trusts the caller's seat): it counts
        return
    assert 400 <= reply["status"] < 500, reply
    assert isinstance(reply["code"], str) and reply["code"], reply
    assert_german_reason(reply["reason"])
    assert await _seen(table, nc, game_id) == before



@pytest.mark.parametrize("odd_id", ODD_GAME_IDS, ids=repr)
async def test_a_move_for_a_game_id_no_game_can_have_is_refused_with_a_clean_reason(
        table: httpx.AsyncClient, nc: NatsClient, odd_id: str) -> None:
    reply = json.loads((await nc.request(TABLE_MOVE, _encode({"game_id": odd_id, "seat": 0, "move": {}}),
                                         timeout=10)).data)
    assert not reply["ok"] and reply["status"] == 404, reply
    assert_german_reason(reply["reason"])
    assert odd_id not in reply["reason"] or not odd_id, reply  # never echoed: it may hold NUL or RTL characters


@pytest.mark.parametrize("odd_id", ODD_GAME_IDS, ids=repr)
@pytest.mark.parametrize("endpoint", ["moves", "preview"])
async def test_a_move_request_for_a_game_id_no_game_can_have_gets_a_clean_4xx(
        table: httpx.AsyncClient, odd_id: str, endpoint: str) -> None:
    move = {"source": "mitte", "farbe": "blau", "reihe": 1}
    answer = await table.post(f"/games/{quote(odd_id, safe='')}/{endpoint}", json={"move": move}, headers=auth(ANNA))
    _assert_refusal_body(answer)
    assert odd_id not in answer.json()["detail"] or not odd_id, answer.text
