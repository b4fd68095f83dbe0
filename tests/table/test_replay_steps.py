"""Step-through replay of ended games over HTTP (issue 13, point 4), on real JetStream: a player's step is the view
they had live at that event, nothing of another seat's hand leaks, operators see any seat and the whole game,
everyone else is refused, and scrubbing forward folds each event once."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity, PlayerKind, issue_operator_token, issue_token
from libs.platform.contracts.subjects import TABLE_START
from libs.platform.rpc import request
from libs.platform.settings import Settings
from services.table.app import create_app
from services.table.replays import Replays
from tests.conftest import TEST_AUTH_SECRET, running_app
from tests.e2e.test_protocol_game import hidden_from

ANNA = Identity(player_id="anna-" + uuid.uuid4().hex[:8], name="Anna", kind=PlayerKind.GUEST)
BERT = Identity(player_id="bert-" + uuid.uuid4().hex[:8], name="Bert", kind=PlayerKind.GUEST)
CARL = Identity(player_id="carl-" + uuid.uuid4().hex[:8], name="Carl", kind=PlayerKind.GUEST)
PLAYERS = (ANNA, BERT)
OPERATOR = {"Authorization": f"Bearer {issue_operator_token(TEST_AUTH_SECRET, 'replay-test')}"}


def auth(identity: Identity) -> dict[str, str]:
    return {"Authorization": f"Bearer {issue_token(TEST_AUTH_SECRET, identity)}"}


@dataclass
class Played:
    """A Speednova game two humans played to its end, with every view they (and a spectator) had live, by n."""

    game_id: str
    last: int
    live: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    public: dict[int, dict[str, Any]] = field(default_factory=dict)


@pytest.fixture(scope="module")
async def table(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    app = create_app(settings)
    async with running_app(app) as client:
        yield client, app


async def start(nc: NatsClient) -> str:
    result = await request(nc, TABLE_START, {"game": "speednova", "seats": [
        {"kind": "human", "player_id": player.player_id, "name": player.name} for player in PLAYERS]})
    return str(result["game_id"])


async def views_now(client: httpx.AsyncClient, game_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    seats = [(await client.get(f"/games/{game_id}/view", headers=auth(player))).json() for player in PLAYERS]
    return seats, (await client.get(f"/games/{game_id}")).json()


@pytest.fixture(scope="module")
async def played(table: tuple[httpx.AsyncClient, FastAPI], nc: NatsClient) -> Played:
    client, _ = table
    game_id = await start(nc)
    game = Played(game_id=game_id, last=0)
    for _ in range(400):
        seats, public = await views_now(client, game_id)
        n = seats[0]["n"]
        if all(view["n"] == n for view in [*seats, public]):
            game.live[n], game.public[n] = seats, public
        if seats[0]["status"] == "ended":
            game.last = n
            return game
        acting = [view for view in seats if view["you"] in view["to_move"] and view["legal_moves"]]
        if not acting:
            await asyncio.sleep(0.05)  # the game is over: GameEnded is on its way
            continue
        view = acting[0]
        answer = await client.post(f"/games/{game_id}/moves", headers=auth(PLAYERS[view["you"]]),
                                   json={"move": view["legal_moves"][0], "expected_n": view["n"]})
        assert answer.status_code == 200, answer.text
    raise AssertionError("the game did not end")


async def step(client: httpx.AsyncClient, game_id: str, n: int, seat: str | None,
               headers: dict[str, str]) -> httpx.Response:
    params = {"n": str(n)} | ({"seat": seat} if seat is not None else {})
    return await client.get(f"/games/{game_id}/replay", params=params, headers=headers)




async def test_a_players_step_is_the_view_they_had_live_with_that_moves_lines_and_no_other_hand(
        table: tuple[httpx.AsyncClient, FastAPI], played: Played) -> None:
    client, app = table
    assert played.last > 30 and len(played.live) > 30
    for n in sorted(played.live):
        for seat, player in enumerate(PLAYERS):
            answer = await step(client, played.game_id, n, str(seat), auth(player))
            assert answer.status_code == 200, answer.text
            body = answer.json()
            assert body["view"] == played.live[n][seat], (n, seat)
            assert (body["n"], body["of"], body["seat"]) == (n, played.last, str(seat))
            assert body["prev"] == (n - 1 if n > 1 else None) and body["next"] == (n + 1 if n < played.last else None)
            assert body["event"]["n"] == n
            assert not hidden_from(seat, body), (n, seat)
            if body["event"]["type"] == "MoveMade":
                assert body["chosen_by"] == "player"
                assert body["lines"] == [effect["text"] for effect in played.live[n][seat]["last_effects"]]
            whole = (await step(client, played.game_id, n, "all", OPERATOR)).json()
            assert whole["view"]["seat_boards"][seat] == played.live[n][seat]["board"]
            other = whole["view"]["seat_boards"][1 - seat]
            if other != whole["view"]["board"]:  # the other seat's rack is hidden in this seat's view
                assert body["view"]["board"] != other
        public = await step(client, played.game_id, n, "public", auth(ANNA))
        assert public.status_code == 200 and public.json()["view"] == played.public[n]
    replays: Replays = app.state.runtime.extras["replays"]
    kept = replays.cached(played.game_id)
    assert kept is not None and kept.folds < played.last  # scrubbing forward folded each event once
    for n in sorted(played.live, reverse=True):  # scrubbing back starts from the checkpoints: the same views
        assert (await step(client, played.game_id, n, "1", auth(BERT))).json()["view"] == played.live[n][1], n
    ended = (await step(client, played.game_id, played.last, "0", auth(ANNA))).json()
    assert ended["event"]["type"] == "GameEnded" and ended["lines"][0].startswith("Die Partie ist zu Ende.")
    # Every hand a seat drew is in the log sealed for that seat: the operator reads them, a player only theirs.
    drawn_by_bert = [line for n in range(1, played.last + 1)
                     for line in (await step(client, played.game_id, n, "1", OPERATOR)).json()["lines"]
                     if line.startswith("Du ziehst")]
    drawn_for_anna = [line for n in range(1, played.last + 1)
                      for line in (await step(client, played.game_id, n, "0", auth(ANNA))).json()["lines"]
                      if line.startswith("Du ziehst")]
    assert drawn_by_bert and drawn_for_anna and len(drawn_by_bert) + len(drawn_for_anna) == len(
        [line for n in range(1, played.last + 1)
         for line in (await step(client, played.game_id, n, None, OPERATOR)).json()["lines"]
         if line.startswith("Du ziehst")])


async def test_players_see_only_their_own_seat_operators_everything_and_strangers_nothing(
        table: tuple[httpx.AsyncClient, FastAPI], played: Played) -> None:
    client, _ = table
    n = played.last // 2
    for seat, player in enumerate(PLAYERS):
        for refused in (str(1 - seat), "all", None):
            answer = await step(client, played.game_id, n, refused, auth(player))
            assert answer.status_code == 403, (seat, refused, answer.text)
            assert answer.json()["code"] == "not_yours"
    for asked in ("0", "1", "public", "all", None):
        answer = await step(client, played.game_id, n, asked, OPERATOR)
        assert answer.status_code == 200, answer.text
    whole = (await step(client, played.game_id, n, None, OPERATOR)).json()
    assert whole["seat"] == "all" and len(whole["view"]["seat_boards"]) == 2
    for headers in (auth(CARL), {}):
        answer = await step(client, played.game_id, n, "public", headers)
        assert answer.status_code == 403, answer.text
    assert (await step(client, played.game_id, n, "0", {"Authorization": "Bearer nonsense"})).status_code == 401


async def test_out_of_range_steps_unknown_seats_and_running_games_are_refused_in_german(
        table: tuple[httpx.AsyncClient, FastAPI], played: Played, nc: NatsClient) -> None:
    client, _ = table
    for n in (0, played.last + 1):
        answer = await step(client, played.game_id, n, "0", auth(ANNA))
        assert answer.status_code == 404 and "Ereignis" in answer.json()["detail"], answer.text
    for seat in ("2", "-1", "anna"):
        answer = await step(client, played.game_id, 1, seat, OPERATOR)
        assert answer.status_code == 422 and "Platz" in answer.json()["detail"], answer.text
    running = await start(nc)
    answer = await step(client, running, 1, "0", auth(ANNA))
    assert answer.status_code == 409 and answer.json()["code"] == "game_running", answer.text
    assert "läuft noch" in answer.json()["detail"]
    assert (await step(client, running, 1, "0", auth(CARL))).status_code == 403
    assert (await step(client, "no-such-game", 1, "0", OPERATOR)).status_code == 404
