"""The lean path of GET /games/{id}/view and POST /games/{id}/moves answers exactly as FastAPI's routes do.

Two table apps run side by side against the same JetStream: one with the lean path (the default), one with
TABLE_HOT_ROUTES off, where every request goes through FastAPI. Each plays its own twin of the same game (same
seats, same seed, game ids of the same length), and every request is sent to both in lockstep: valid turns,
each kind of refusal (401, 403, 404, 409, 422), hostile bodies and content types. Status, headers and body must
be the same byte for byte (the game id aside), and so must the logs the two games leave.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

import httpx
import jwt
import pytest
from fastapi import FastAPI
from hypothesis import given
from hypothesis import strategies as st
from nats.aio.client import Client as NatsClient
from prometheus_client import REGISTRY

from libs.platform.auth import Identity, PlayerKind, issue_token
from libs.platform.contracts.commands import StartGame
from libs.platform.settings import Settings
from services.table.app import create_app
from services.table.event_store import GameLog
from services.table.fast_routes import HotRoutes
from services.table.games import Games
from tests.conftest import TEST_AUTH_SECRET, running_app
from tests.table.test_malformed_moves_http import CONTENT_TYPES, HYPOTHESIS, RAW_BODIES, move_bodies
from tests.table.test_table_api import ANNA, BERT, FixedSeeds, auth

CARLA = Identity(player_id="carla-" + uuid.uuid4().hex[:8], name="Carla", kind=PlayerKind.GUEST)
"""Has a valid token, and no seat at these games."""


@dataclass
class Twins:
    """The app with the lean path (`on`) and the app without it (`off`), each with its twin of a game."""

    on: httpx.AsyncClient
    off: httpx.AsyncClient
    on_id: str
    off_id: str

    async def both(self, method: str, path: str, *, headers: dict[str, str] | None = None,
                   content: bytes | None = None) -> httpx.Response:
        """Send the request (`{game}` in `path` naming each app's own twin) to both apps; assert the answers
        are the same (status, every header, body with the twin's id for its own); return the lean path's."""
        on = await self.on.request(method, path.replace("{game}", self.on_id), headers=headers, content=content)
        off = await self.off.request(method, path.replace("{game}", self.off_id), headers=headers, content=content)
        assert on.status_code == off.status_code, (method, path, on.text[:300], off.text[:300])
        lean = _unsigned(on.content.replace(self.on_id.encode(), self.off_id.encode()))
        assert lean == _unsigned(off.content), _first_difference(lean, _unsigned(off.content))
        assert on.headers.multi_items() == off.headers.multi_items(), (on.headers, off.headers)
        return on


_RECEIPT = re.compile(rb'"hash":"[0-9a-f]{64}","kid":"([0-9a-f]{16})","sig":"[0-9a-f]{128}"')


def _unsigned(body: bytes) -> bytes:
    """`body` with a move receipt's hash and signature blanked: they sign the twin's own event, whose hash differs
    (its game id and time); the key id stays."""
    return _RECEIPT.sub(rb'"hash":"-","kid":"\1","sig":"-"', body)


def _first_difference(a: bytes, b: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"at byte {at}: lean …{a[max(0, at - 60):at + 60]!r}… FastAPI …{b[max(0, at - 60):at + 60]!r}…"


@pytest.fixture(scope="module")
def lean_app(settings: Settings) -> FastAPI:
    return create_app(settings, seeds=FixedSeeds())


@pytest.fixture(scope="module")
async def apps(settings: Settings, lean_app: FastAPI) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """Clients of the app with the lean path and of the app without it."""
    async with running_app(lean_app) as on, \
            running_app(create_app(settings.model_copy(update={"table_hot_routes": False}),
                                   seeds=FixedSeeds())) as off:
        yield on, off


async def start_twins(nc: NatsClient, apps: tuple[httpx.AsyncClient, httpx.AsyncClient]) -> Twins:
    """A Kachelwand game of Anna and Bert per app, twins: same seats, same seed, ids of the same length.

    Started straight into the log, so that both apps read their twin from it alike: the app that starts a
    game keeps its settings in the order the rules wrote them, one that reads the log has them sorted.
    """
    stem = uuid.uuid4().hex[:12]
    starter = Games(GameLog(nc.jetstream(), nc), FixedSeeds())
    ids = []
    for suffix in ("on", "of"):
        record = await starter.start(StartGame.from_data({
            "game": "speedmosaik", "game_id": f"fast-{stem}-{suffix}", "settings": {"workshop": "kachelwand"},
            "seats": [{"kind": "human", "player_id": ANNA.player_id, "name": "Anna"},
                      {"kind": "human", "player_id": BERT.player_id, "name": "Bert"}],
        }))
        ids.append(record.game_id)
    return Twins(apps[0], apps[1], ids[0], ids[1])


async def assert_logs_alike(nc: NatsClient, twins: Twins) -> None:
    """The twins' logs hold the same events: type, n, and who made which move how (ids, hashes and the salted
    digests of private parts differ, as their salts include the game's id)."""
    log = GameLog(nc.jetstream())

    def shape(events: Iterable[Any]) -> list[tuple[Any, ...]]:
        return [(stored.event.type, stored.event.n, stored.event.data.get("seat"), stored.event.data.get("move"),
                 stored.event.data.get("chosen_by")) for stored in events]

    assert shape(await log.read(twins.on_id)) == shape(await log.read(twins.off_id))


def mover_of(view: dict[str, Any]) -> Identity:
    return ANNA if view["to_move"] == [0] else BERT


def bad_tokens() -> dict[str, dict[str, str]]:
    """Authorization headers FastAPI refuses with 401, and some it accepts (scheme in other cases, spaces)."""
    valid = issue_token(TEST_AUTH_SECRET, ANNA)
    expired = issue_token(TEST_AUTH_SECRET, ANNA, days=-1)
    foreign = issue_token("not-our-secret-" + "x" * 32, ANNA)
    unsigned = jwt.encode({"sub": ANNA.player_id, "name": "Anna", "kind": "guest", "iss": "speed-lobby",
                           "exp": 4102444800}, key=None, algorithm="none")
    tampered = valid[:-6] + ("AAAAAA" if not valid.endswith("AAAAAA") else "BBBBBB")
    return {
        "none": {}, "empty": {"Authorization": ""}, "scheme only": {"Authorization": "Bearer"},
        "scheme and space": {"Authorization": "Bearer "}, "basic": {"Authorization": f"Basic {valid}"},
        "garbage": {"Authorization": "Bearer garbage"}, "expired": {"Authorization": f"Bearer {expired}"},
        "foreign secret": {"Authorization": f"Bearer {foreign}"},
        "unsigned": {"Authorization": f"Bearer {unsigned}"}, "tampered": {"Authorization": f"Bearer {tampered}"},
        "lower case scheme": {"Authorization": f"bearer {valid}"},
        "upper case scheme": {"Authorization": f"BEARER {valid}"},
        "spaces": {"Authorization": f"Bearer    {valid}   "}, "tab": {"Authorization": f"Bearer\t{valid}"},
        "no space": {"Authorization": f"Bearer{valid}"},
        "stranger": auth(CARLA),
    }


# ---- the lean path is the one answering --------------------------------------------------------------------
@dataclass
class Reached:
    """An inner app standing for FastAPI: records what reaches it (the request's body as it arrives)."""

    bodies: list[bytes]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        self.bodies.append(b"".join(chunks))
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": b"fastapi"})


async def test_the_lean_path_answers_what_it_is_sure_of_and_hands_on_the_rest_with_its_body(
        apps: tuple[httpx.AsyncClient, httpx.AsyncClient], lean_app: FastAPI, nc: NatsClient) -> None:
    twins = await start_twins(nc, apps)
    [mounted] = [entry for entry in lean_app.user_middleware if entry.cls is HotRoutes]
    reached = Reached([])
    hot = HotRoutes(reached, **mounted.kwargs)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=hot), base_url="http://testserver") as client:
        game = f"/games/{twins.on_id}"
        view = await client.get(f"{game}/view", headers=auth(ANNA))
        assert view.status_code == 200 and view.json()["you"] == 0
        stranger = await client.get(f"{game}/view", headers=auth(CARLA))  # refused here, by the app's handler
        assert stranger.status_code == 403 and stranger.json()["detail"] == "Du sitzt nicht an dieser Partie."
        assert stranger.json()["code"] == "not_seated"
        move = {"move": view.json()["legal_moves"][0], "expected_n": view.json()["n"]}
        assert (await client.post(f"{game}/moves", json=move, headers=auth(ANNA))).status_code == 200
        assert reached.bodies == []
        handed_on = [
            ("GET", f"{game}/view", {}, b""),  # no token: FastAPI's 401
            ("GET", f"{game}/view", {"Authorization": "Bearer garbage"}, b""),
            ("HEAD", f"{game}/view", auth(ANNA), b""),
            ("GET", f"{game}/view/", auth(ANNA), b""),
            ("POST", f"{game}/view", auth(ANNA), b""),
            ("GET", f"{game}/moves", auth(ANNA), b""),
            ("POST", f"{game}/moves", auth(BERT) | {"Content-Type": "text/plain"}, b'{"move": {}}'),
            ("POST", f"{game}/moves", auth(BERT), b'{"move": {}}'),  # no content type
            ("POST", f"{game}/moves", auth(BERT) | {"Content-Type": "application/json"}, b'{"move": []}'),
            ("POST", f"{game}/moves", auth(BERT) | {"Content-Type": "application/json"},
             b'{"move": {}, "expected_n": 0}'),
            ("POST", f"{game}/moves", auth(BERT) | {"Content-Type": "application/json"},
             b'{"move": {}, "expected_n": true}'),
            ("POST", f"{game}/moves", {"Content-Type": "application/json"}, b'{"move": {}}'),
            ("GET", f"{game}", auth(ANNA), b""),
            ("GET", "/healthz", {}, b""),
        ]
        for method, path, headers, content in handed_on:
            answer = await client.request(method, path, headers=headers, content=content)
            assert answer.status_code == 299, (method, path, answer.text)  # what reached the stand-in
        assert reached.bodies == [content for *_, content in handed_on]


async def test_without_the_setting_every_request_goes_through_fastapi(settings: Settings) -> None:
    off = create_app(settings.model_copy(update={"table_hot_routes": False}))
    followup_only = create_app(settings.model_copy(update={"table_roles": "followup,timers"}))
    assert not [entry for entry in off.user_middleware if entry.cls is HotRoutes]
    assert not [entry for entry in followup_only.user_middleware if entry.cls is HotRoutes]
    assert [entry for entry in create_app(settings).user_middleware if entry.cls is HotRoutes]


# ---- the same answers ----------------------------------------------------------------------------------------
async def test_valid_turns_and_every_refusal_are_answered_alike(
        apps: tuple[httpx.AsyncClient, httpx.AsyncClient], nc: NatsClient) -> None:
    twins = await start_twins(nc, apps)
    for headers in bad_tokens().values():
        await twins.both("GET", "/games/{game}/view", headers=headers)
        await twins.both("POST", "/games/{game}/moves", content=b'{"move": {}}',
                         headers=headers | {"Content-Type": "application/json"})
        await twins.both("POST", "/games/{game}/moves", content=b'{"move": 1}',  # 401 before the body's 422
                         headers=headers | {"Content-Type": "application/json"})
        await twins.both("POST", "/games/{game}/moves", content=b'{"move": ',  # the edge's 422 before 401
                         headers=headers | {"Content-Type": "application/json"})
    for game in ("nope-" + uuid.uuid4().hex, "a.b", "x" * 300, "%C3%A9", "*", "%20"):
        assert (await twins.both("GET", f"/games/{game}/view", headers=auth(ANNA))).status_code in (404, 422)
        await twins.both("POST", f"/games/{game}/moves", content=b'{"move": {}}',
                         headers=auth(ANNA) | {"Content-Type": "application/json"})
    for turn in range(6):
        views = {player.player_id: (await twins.both("GET", "/games/{game}/view", headers=auth(player))).json()
                 for player in (ANNA, BERT)}
        view = views[ANNA.player_id]
        mover = mover_of(view)
        other = BERT if mover is ANNA else ANNA
        legal = views[mover.player_id]["legal_moves"]
        json_headers = {"Content-Type": "application/json"}
        n = view["n"]
        refusals = [
            (other, {"move": legal[0]}),  # not their turn
            (mover, {"move": {"source": "mitte", "farbe": "lila", "reihe": 9}}),  # illegal
            (mover, {"move": {}}),
            (mover, {"move": legal[0], "expected_n": n + 5}),  # stale
            (mover, {"move": legal[0], "expected_n": n + 1}),
            (CARLA, {"move": legal[0]}),  # no seat
            (mover, {"move": legal[0], "expected_n": str(n + 5)}),  # pydantic reads "6" as 6: stale
            (mover, {"move": legal[0], "expected_n": float(n + 5)}),
            (mover, {"move": legal[0], "expected_n": n + 0.5}),
            (mover, {"move": legal[0], "expected_n": 0}),
            (mover, {"move": legal[0], "expected_n": False}),  # (pydantic reads true as 1: FastAPI decides)
            (mover, {"zug": legal[0]}),
            (mover, {"move": [legal[0]]}),
            (mover, [{"move": legal[0]}]),
        ]
        for player, body in refusals:
            answer = await twins.both("POST", "/games/{game}/moves", content=json.dumps(body).encode(),
                                      headers=auth(player) | json_headers)
            assert answer.status_code in (403, 409, 422), answer.text
        # The turn's move, each time in another form the lean path serves.
        body = ({"move": legal[-1]}, {"move": legal[-1], "expected_n": n},
                {"move": legal[-1], "expected_n": None, "zug": 1}, {"expected_n": n, "move": legal[-1]})[turn % 4]
        content_type = ("application/json", "Application/JSON; charset=utf-8", "application/json;charset=UTF-8",
                        "application/json")[turn % 4]
        answer = await twins.both("POST", "/games/{game}/moves", content=json.dumps(body).encode(),
                                  headers=auth(mover) | {"Content-Type": content_type})
        assert answer.status_code == 200 and answer.json()["n"] == n + 1, answer.text
    # A player who left: 403 on their moves, their view still served.
    await twins.both("POST", "/games/{game}/leave", headers=auth(BERT))
    view = (await twins.both("GET", "/games/{game}/view", headers=auth(BERT))).json()
    await twins.both("POST", "/games/{game}/moves", content=json.dumps({"move": {}}).encode(),
                     headers=auth(BERT) | {"Content-Type": "application/json"})
    assert view["seats"][1]["left"]
    await assert_logs_alike(nc, twins)


@pytest.fixture(scope="module")
async def hostile_twins(apps: tuple[httpx.AsyncClient, httpx.AsyncClient], nc: NatsClient) -> Twins:
    return await start_twins(nc, apps)


@HYPOTHESIS
@given(data=st.data())
async def test_hostile_bodies_and_content_types_are_answered_alike(
        hostile_twins: Twins, nc: NatsClient, data: st.DataObject) -> None:
    twins = hostile_twins
    views = {player.player_id: (await twins.both("GET", "/games/{game}/view", headers=auth(player))).json()
             for player in (ANNA, BERT)}
    mover = mover_of(views[ANNA.player_id])
    player = data.draw(st.sampled_from((mover, mover, mover, ANNA, BERT, CARLA)), label="player")
    bodies = move_bodies(views[mover.player_id]["legal_moves"]).map(
        lambda body: json.dumps(body, allow_nan=True).encode("ascii"))
    raw = data.draw(st.one_of(st.sampled_from(RAW_BODIES), bodies, bodies), label="body")
    content_type = data.draw(st.sampled_from(("application/json", "application/json", *CONTENT_TYPES)),
                             label="content type")
    headers = auth(player) | ({"Content-Type": content_type} if content_type else {})
    answer = await twins.both("POST", "/games/{game}/moves", content=raw, headers=headers)
    assert answer.status_code < 500, answer.text[:300]
    await assert_logs_alike(nc, twins)


async def test_every_hostile_body_of_the_malformed_moves_test_is_answered_alike(
        apps: tuple[httpx.AsyncClient, httpx.AsyncClient], nc: NatsClient) -> None:
    """Broken JSON, NaN, numbers past 64 bits, lone surrogates, NUL, deep nesting, a byte-order mark, bodies past
    the size limit (declared, and streamed in chunks without a length): the edge's refusals hold on both."""
    twins = await start_twins(nc, apps)
    for content_type in ("application/json", "application/json; charset=utf-8", "text/plain"):
        for raw in RAW_BODIES:
            answer = await twins.both("POST", "/games/{game}/moves", content=raw,
                                      headers=auth(ANNA) | {"Content-Type": content_type})
            assert answer.status_code in (400, 403, 409, 413, 422), (raw[:80], answer.text[:300])

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"move": {"source": "'
        for _ in range(80):
            yield b"x" * 1024
        yield b'"}}'

    on, off = [await client.post(f"/games/{game}/moves", content=chunks(),
                                 headers=auth(ANNA) | {"Content-Type": "application/json"})
               for client, game in ((twins.on, twins.on_id), (twins.off, twins.off_id))]
    assert on.status_code == 413 and on.json()["code"] == "too_large", on.text
    assert (on.status_code, on.headers.multi_items(), on.content) == (
        off.status_code, off.headers.multi_items(), off.content)
    await assert_logs_alike(nc, twins)


async def test_the_rate_limit_and_the_metrics_label_hold_on_the_lean_path(
        settings: Settings, nc: NatsClient) -> None:
    limited = settings.model_copy(update={"rate_limit_per_second": 0.01, "rate_limit_burst": 3})
    async with running_app(create_app(limited, seeds=FixedSeeds())) as on, \
            running_app(create_app(limited.model_copy(update={"table_hot_routes": False}),
                                   seeds=FixedSeeds())) as off:
        twins = await start_twins(nc, (on, off))
        labels = {"service": "table", "method": "GET", "route": "/games/{game_id}/view"}

        def counted(status: str) -> float:
            return REGISTRY.get_sample_value("speed_http_requests_total", labels | {"status": status}) or 0.0

        before = counted("200"), counted("429")
        answers = [await twins.both("GET", "/games/{game}/view", headers=auth(ANNA)) for _ in range(4)]
        assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
        assert int(answers[-1].headers["Retry-After"]) >= 1 and answers[-1].json()["code"] == "rate_limited"
        # Three answers of each app labelled by the route's template; the 429 comes before any route matched.
        assert (counted("200") - before[0], counted("429") - before[1]) == (6, 0)
        move = await twins.both("POST", "/games/{game}/moves", content=b'{"move": {}}',
                                headers=auth(ANNA) | {"Content-Type": "application/json"})
        assert move.status_code == 429


async def test_the_routes_stay_in_the_openapi_schema(apps: tuple[httpx.AsyncClient, httpx.AsyncClient]) -> None:
    on, off = [(await client.get("/openapi.json")).json() for client in apps]
    assert on == off
    assert "get" in on["paths"]["/games/{game_id}/view"] and "post" in on["paths"]["/games/{game_id}/moves"]
    assert on["paths"]["/games/{game_id}/moves"]["post"]["security"]
