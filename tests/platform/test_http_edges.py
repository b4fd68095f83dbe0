"""The HTTP edges of all five services under hostile input: a German 4xx every time, never a 5xx, never an echo
of what was sent at length, no new metric series for made-up paths, and /docs that works offline."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import APIRouter
from nats.aio.client import Client as NatsClient

from libs.platform.auth import Identity, PlayerKind, issue_token
from libs.platform.contracts.subjects import TABLE_START
from libs.platform.http_errors import field_problem
from libs.platform.rpc import request
from libs.platform.service import RuntimeDep, create_service_app
from libs.platform.settings import Settings
from services.bot.app import create_app as create_bot
from services.leaderboard.app import create_app as create_leaderboard
from services.ledger.app import create_app as create_ledger
from services.lobby.app import create_app as create_lobby
from services.table.app import create_app as create_table
from tests.conftest import running_app

SERVICES = {"table": create_table, "lobby": create_lobby, "ledger": create_ledger,
            "leaderboard": create_leaderboard, "bot": create_bot}


@dataclass
class Edges:
    """The five services in-process, each with an HTTP client, and a player's bearer header."""

    clients: dict[str, httpx.AsyncClient]
    headers: dict[str, str]
    player: Identity


@pytest.fixture(scope="module")
async def edges(settings: Settings) -> AsyncIterator[Edges]:
    async with AsyncExitStack() as stack:
        clients = {name: await stack.enter_async_context(running_app(create(settings)))
                   for name, create in SERVICES.items()}
        guest = (await clients["lobby"].post("/guests", json={"name": "Kante"})).json()
        player = Identity(player_id=guest["player_id"], name=guest["name"], kind=PlayerKind.GUEST)
        yield Edges(clients, {"Authorization": f"Bearer {guest['token']}"}, player)


async def start_game(nc: NatsClient, player: Identity) -> str:
    """A game of two humans with `player` on seat 0 (the table writes GameStarted)."""
    result = await request(nc, TABLE_START, {
        "game": "speedmosaik", "settings": {"workshop": "kachelwand"},
        "seats": [{"kind": "human", "player_id": player.player_id, "name": player.name},
                  {"kind": "human", "player_id": uuid.uuid4().hex, "name": "Bert"}],
    })
    return str(result["game_id"])


def german_refusal(answer: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    """Assert a refusal in the shared shape with a German sentence; return its body."""
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    assert isinstance(body["detail"], str) and body["detail"]
    assert not re.search(r"\b(the|should|must|Input|Field required|valid)\b", body["detail"]), body["detail"]
    if code is not None:
        assert body["code"] == code, body
    return body


JSON = {"Content-Type": "application/json"}

HOSTILE_BODIES = {
    "NaN": b'{"name": NaN}',
    "Infinity": b'{"name": -Infinity}',
    "1e400": b'{"name": 1e400}',
    "beyond 64 bits": b'{"name": 9223372036854775808}',
    "lone surrogate": b'{"name": "Anna\\ud800"}',
    "lone surrogate as key": b'{"\\udc00": "Anna"}',
    "NUL in a field": b'{"name": "An\\u0000na"}',
    "not UTF-8": b'{"name": "\xff\xfe"}',
    "deeply nested": b"[" * 20_000 + b"]" * 20_000,
    "only blanks": b"   ",
    "trailing garbage": b'{"name": "Anna"} x',
}


@pytest.mark.parametrize("kind", list(HOSTILE_BODIES))
async def test_json_no_store_can_hold_is_refused_in_german_before_any_route(edges: Edges, kind: str) -> None:
    raw = HOSTILE_BODIES[kind]
    lobby = edges.clients["lobby"]
    names_before = (await lobby.get("/me", headers=edges.headers)).json()

    for service, path in [("lobby", "/guests"), ("lobby", "/players"), ("lobby", "/tables"),
                          ("table", "/games/0123456789abcdef0123456789abcdef/moves")]:
        answer = await edges.clients[service].post(path, content=raw, headers={**edges.headers, **JSON})
        german_refusal(answer, 422, "invalid_json")

    assert (await lobby.get("/me", headers=edges.headers)).json() == names_before


async def test_hostile_values_in_a_move_are_refused_and_the_log_stays_as_it_was(
        edges: Edges, nc: NatsClient) -> None:
    table = edges.clients["table"]
    game_id = await start_game(nc, edges.player)
    view = (await table.get(f"/games/{game_id}/view", headers=edges.headers)).json()
    legal = view["legal_moves"][0]
    key = next(iter(legal))

    for value in [b"NaN", b"1e400", b"18446744073709551616", b'"\\ud83d"', b'"\\u0000"']:
        move = httpx.Request("POST", "/", json={**legal, key: "__X__"}).content.replace(b'"__X__"', value)
        for path in ("moves", "preview"):
            answer = await table.post(f"/games/{game_id}/{path}", content=b'{"move": ' + move + b"}",
                                      headers={**edges.headers, **JSON})
            german_refusal(answer, 422, "invalid_json")
    too_far = b'{"move": %s, "expected_n": 99999999999999999999999}' % httpx.Request("POST", "/", json=legal).content
    german_refusal(await table.post(f"/games/{game_id}/moves", content=too_far, headers={**edges.headers, **JSON}),
                   422, "invalid_json")

    assert (await table.get(f"/games/{game_id}")).json()["n"] == 1


async def test_a_list_or_an_object_where_a_setting_value_belongs_is_refused(edges: Edges) -> None:
    lobby = edges.clients["lobby"]
    for settings in [{"workshop": []}, {"workshop": {"a": 1}}, {"workshop": "kachelwand", "wall": []},
                     {"tempo": ["schnell"]}, {"think_time": {"s": 30}}, {"stake": [10]}, {"turbo": [True]}]:
        for path, body in [("/tables", {"settings": settings, "player_count": 2}),
                           ("/tables/solo", {"settings": settings})]:
            german_refusal(await lobby.post(path, json=body, headers=edges.headers), 422, "invalid_settings")


def hostile_paths(service: str, app_paths: dict[str, Any]) -> list[tuple[str, str]]:
    """Every operation of the service's schema with a NUL in each path parameter, or in a query parameter."""
    cases = []
    for template, operations in app_paths.items():
        for method in operations:
            if "{" in template:
                cases.append((method.upper(), re.sub(r"{\w+}", "a%00b", template)))
            cases.append((method.upper(), re.sub(r"{\w+}", "abc", template) + "?offset=%00&status=x%00"))
    return cases


@pytest.mark.parametrize("service", list(SERVICES))
async def test_nul_in_any_path_or_query_of_any_route_is_a_german_400(edges: Edges, service: str) -> None:
    client = edges.clients[service]
    paths = (await client.get("/openapi.json")).json()["paths"]

    for method, path in hostile_paths(service, paths):
        answer = await client.request(method, path, headers=edges.headers)
        german_refusal(answer, 400, "invalid_characters")


async def test_offsets_beyond_64_bits_are_refused_with_the_field_named(edges: Edges, settings: Settings) -> None:
    registered = {"Authorization": "Bearer " + issue_token(settings.auth_secret, Identity(
        player_id=uuid.uuid4().hex, name="Rita", kind=PlayerKind.REGISTERED))}
    for service, path in [("leaderboard", "/leaderboards/speedmosaik/kachelwand"),
                          ("leaderboard", f"/players/{uuid.uuid4().hex}/results"),
                          ("ledger", "/wallets/me/transactions")]:
        for offset in ["9223372036854775808", "99999999999999999999999999"]:
            answer = await edges.clients[service].get(f"{path}?offset={offset}", headers=registered)
            body = german_refusal(answer, 422, "invalid_request")
            assert body["errors"][0]["field"] == "query.offset"
            assert body["errors"][0]["key"] == "less_than_equal"
            assert body["errors"][0]["params"] == {"le": 9223372036854775807}
    largest = await edges.clients["leaderboard"].get(
        "/leaderboards/speedmosaik/kachelwand?offset=9223372036854775807")
    assert largest.status_code == 200 and largest.json()["entries"] == []


async def test_validation_errors_are_german_sentences_with_structured_fields(edges: Edges) -> None:
    lobby = edges.clients["lobby"]
    count = await lobby.post("/tables", json={"player_count": "vier"}, headers=edges.headers)
    missing = await lobby.post("/players", json={"name": "Dora"})
    extra = await lobby.post("/guests", json={"name": "Dora", "admin": True})
    not_json = await lobby.post("/guests", content=b"kein json")

    body = german_refusal(count, 422, "invalid_request")
    assert body["errors"] == [{"field": "body.player_count", "key": "int_parsing", "params": {},
                               "text": "Erwartet wird eine ganze Zahl."}]
    assert body["detail"] == "Die Anfrage ist ungültig (Inhalt „player_count“): Erwartet wird eine ganze Zahl."
    assert german_refusal(missing, 422)["errors"][0] == {"field": "body.password", "key": "missing", "params": {},
                                                         "text": "Diese Angabe fehlt."}
    assert german_refusal(extra, 422)["errors"][0]["field"] == "body.admin"
    assert german_refusal(not_json, 422)["errors"][0]["text"] == "Erwartet wird ein JSON-Objekt."


async def test_the_frameworks_own_refusals_are_german_too(edges: Edges) -> None:
    for client in edges.clients.values():
        german_refusal(await client.get("/gibt-es-nicht"), 404, "not_found")
        german_refusal(await client.delete("/healthz"), 405, "method_not_allowed")


async def test_bodies_over_64_kib_are_refused_with_413_declared_or_streamed(edges: Edges) -> None:
    lobby = edges.clients["lobby"]
    huge = b'{"name": "' + b"a" * 1_000_000 + b'"}'

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the limit must hold while reading
        for start in range(0, len(huge), 16_384):
            yield huge[start:start + 16_384]

    declared = await lobby.post("/guests", content=huge, headers=JSON)
    absurd = await lobby.post("/guests", content=b"{}", headers={**JSON, "Content-Length": "9" * 5_000})
    streamed = await lobby.post("/guests", content=chunks(), headers=JSON)
    plain = await lobby.post("/guests", content=chunks(), headers={"Content-Type": "text/plain"})

    for answer in (declared, absurd, streamed, plain):
        assert german_refusal(answer, 413, "too_large")["detail"] == "Die Anfrage ist zu groß: höchstens 64 KiB."
        assert len(answer.content) < 200
    just_under = await lobby.post("/guests", json={"name": "Ute", "x": "a" * 60_000})
    assert just_under.status_code == 422  # read, checked, refused for the extra field: not for its size


async def test_refusals_never_echo_what_was_sent_at_length(edges: Edges) -> None:
    long = "x" * 10_000
    answers = [
        await edges.clients["lobby"].post("/guests", json={"name": long}),
        await edges.clients["lobby"].post("/tables", json={"game": long}, headers=edges.headers),
        await edges.clients["lobby"].get(f"/games/{long}"),
        await edges.clients["lobby"].post("/tables", json={"settings": {long: 1}}, headers=edges.headers),
        await edges.clients["leaderboard"].get(f"/games/{long}"),
        await edges.clients["leaderboard"].get(f"/leaderboards/{long}"),
        await edges.clients["leaderboard"].get(f"/leaderboards/{long}/kachelwand"),
        await edges.clients["table"].get(f"/games/{long}"),
        await edges.clients["lobby"].post("/guests", json={"name": "Ute", long: 1}),
    ]
    for answer in answers:
        assert 400 <= answer.status_code < 500, answer.text[:200]
        assert "x" * 65 not in answer.text
        assert len(answer.content) < 1000


async def test_made_up_paths_add_no_time_series_to_the_metrics(edges: Edges) -> None:
    table = edges.clients["table"]
    await table.get("/games/0123456789abcdef0123456789abcdef")  # a real route: its template is the label

    async def made_up(word: str) -> None:
        for path in [f"/{word}\u202egnp.exe", f"/{word}" * 2_000, f"/{word}%00/c", f"/%E2%80%AE{word}/%F0%9F%98%80",
                     f"/..%2F{word}%2Fetc", f"/{word}/{uuid.uuid4().hex}", f"/games/{word}/b/c/d"]:
            for method in ("GET", "POST", "BREW"):
                await table.request(method, path)

    def series(text: str) -> set[str]:
        return {line.split(" ")[0] for line in text.splitlines() if line.startswith("speed_http_")}

    await made_up("eins")  # the series of these kinds of answers (404, 400; GET, POST, other) exist from here on
    before = series((await table.get("/metrics")).text)
    await made_up("zwei")
    await made_up("\u05e9\u05dc\u05d5\u05dd")
    after_text = (await table.get("/metrics")).text

    assert series(after_text) == before
    routes = set(re.findall(r'route="([^"]*)"', after_text))
    assert "unmatched" in routes and "/games/{game_id}" in routes
    assert all(route == "unmatched" or (route.startswith("/") and "\u202e" not in route and len(route) < 60)
               for route in routes)


@pytest.mark.parametrize("service", list(SERVICES))
async def test_docs_load_their_assets_from_the_service_itself(edges: Edges, service: str) -> None:
    client = edges.clients[service]
    for page in ("/docs", "/redoc"):
        html = await client.get(page)
        assert html.status_code == 200 and "text/html" in html.headers["content-type"]
        assert not re.search(r"https?:|//[\w.-]+/", html.text)  # no other host: no CDN, no web fonts
        assets = re.findall(r'(?:src|href)="([^"]+)"', html.text)
        assert assets and all(asset.startswith("/docs/assets/") for asset in assets)
        for asset in assets:
            answer = await client.get(asset)
            assert answer.status_code == 200 and len(answer.content) > 1000, asset
    assert (await client.get("/openapi.json")).status_code == 200


async def test_a_command_nobody_answers_is_a_german_503_not_a_crash(settings: Settings) -> None:
    router = APIRouter()

    @router.get("/ask")
    async def ask(runtime: RuntimeDep) -> dict[str, str]:
        await runtime.nc.request(f"nobody.listens.{uuid.uuid4().hex}", b"{}", timeout=0.5)
        return {"answered": "yes"}

    async with running_app(create_service_app("probe", routers=[router], settings=settings)) as client:
        answer = await client.get("/ask")

    assert german_refusal(answer, 503, "unavailable")["detail"].startswith("Ein Dienst dahinter antwortet")


async def test_json_as_fastapi_reads_it_still_passes(edges: Edges) -> None:
    lobby = edges.clients["lobby"]
    with_bom = await lobby.post("/guests", content='\ufeff{"name": "Bom"}'.encode(), headers=JSON)
    emoji = await lobby.post("/guests", content=b'{"name": "Emil \\ud83d\\ude00"}', headers=JSON)  # a proper pair

    assert with_bom.status_code == 201 and with_bom.json()["name"] == "Bom"
    assert emoji.status_code == 422 and emoji.json()["code"] == "name_invalid"  # past the edge: the name rule


def test_pydantics_choices_and_limits_are_given_in_german() -> None:
    choice = field_problem({"type": "literal_error", "loc": ("body", "tempo"),
                            "ctx": {"expected": "'normal' or 'schnell'"}, "input": "x" * 10_000})
    unknown = field_problem({"type": "some_new_type", "loc": ("query", "y" * 500), "ctx": {"error": ValueError()}})

    assert choice.text == "Erlaubt ist nur: 'normal' oder 'schnell'." and "x" * 41 not in choice.model_dump_json()
    assert unknown.text == "Der Wert ist ungültig." and unknown.params == {} and len(unknown.field) < 60
