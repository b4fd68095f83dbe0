"""The lobby's limits: login attempts per client and per account (shared by replicas), sign-ups per client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import httpx
import pytest
from fastapi import FastAPI

from libs.platform.settings import Settings
from services.lobby.app import create_app
from services.lobby.limits import account_failures
from services.lobby.names import skeleton
from tests.conftest import running_app
from tests.lobby.conftest import ShiftedClock, unique_name

PASSWORD = "richtig-123"


@asynccontextmanager
async def client_at(app: FastAPI, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client that reaches `app` from `address` (the app must be running)."""
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://lobby") as client:
        yield client


@pytest.fixture(scope="module")
def limited_settings(lobby_settings: Settings) -> Settings:
    return lobby_settings.model_copy(update={
        "login_attempts_per_minute": 10.0, "login_failures_per_account": 5, "login_failure_window_seconds": 300,
        "signups_per_hour": 20.0, "signup_burst": 5})


class StoppedClock(ShiftedClock):
    """The lobby's clock standing still (limits refill only when a test moves it), from now on."""

    def __init__(self) -> None:
        super().__init__()
        self.start = datetime.now(UTC)

    def now(self) -> datetime:
        return self.start + self.offset


@pytest.fixture(scope="module")
def clock() -> Iterator[ShiftedClock]:
    yield StoppedClock()


@pytest.fixture(scope="module")
async def replicas(limited_settings: Settings, clock: ShiftedClock) -> AsyncIterator[tuple[FastAPI, FastAPI]]:
    """Two lobby replicas with the production limits on one database, on a clock tests move forward."""
    first, second = create_app(limited_settings, clock=clock), create_app(limited_settings, clock=clock)
    async with running_app(first), running_app(second):
        yield first, second


async def register(app: FastAPI, address: str) -> str:
    name = unique_name("Konto")
    async with client_at(app, address) as client:
        answer = await client.post("/players", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return name


def assert_too_many_logins(answer: httpx.Response) -> int:
    assert answer.status_code == 429, answer.text
    body = answer.json()
    assert body["code"] == "rate_limited"
    assert body["detail"].startswith("Zu viele Anmeldeversuche. Bitte in ") and "erneut versuchen." in body["detail"]
    retry_after = int(answer.headers["Retry-After"])
    assert retry_after >= 1
    assert f"in {retry_after} Sekunden" in body["detail"] or f"in {-(-retry_after // 60)} Minuten" in body["detail"]
    return retry_after


async def test_an_account_takes_five_wrong_passwords_however_they_are_spread_over_replicas_and_addresses(
        replicas: tuple[FastAPI, FastAPI], clock: ShiftedClock) -> None:
    first, second = replicas
    name = await register(first, "198.51.100.10")
    answers = []
    for attempt in range(5):  # each from another address, alternating replicas
        async with client_at(replicas[attempt % 2], f"203.0.113.{attempt + 1}") as client:
            answers.append(await client.post("/sessions", json={"name": name, "password": f"falsch-{attempt}"}))
    assert [answer.status_code for answer in answers] == [401] * 5

    for app, address in ((first, "203.0.113.50"), (second, "203.0.113.51")):
        async with client_at(app, address) as client:
            # Even the right password waits: otherwise a refusal would tell the guesser when they hit it.
            retry_after = assert_too_many_logins(
                await client.post("/sessions", json={"name": name, "password": PASSWORD}))
            assert 290 <= retry_after <= 300
    # Look-alikes of the name are the same account.
    async with client_at(second, "203.0.113.52") as client:
        assert_too_many_logins(await client.post("/sessions", json={"name": name.upper(), "password": PASSWORD}))
    assert await account_failures(first.state.runtime, skeleton(name)) == 5

    clock.advance(seconds=301)
    async with client_at(second, "203.0.113.53") as client:
        login = await client.post("/sessions", json={"name": name, "password": PASSWORD})
    assert login.status_code == 200
    assert await account_failures(first.state.runtime, skeleton(name)) == 0  # a success forgives


async def test_guesses_sent_at_once_cannot_slip_past_the_account_limit(replicas: tuple[FastAPI, FastAPI]) -> None:
    import asyncio

    name = await register(replicas[0], "198.51.100.11")

    async def guess(index: int) -> int:
        async with client_at(replicas[index % 2], f"192.0.2.{index + 1}") as client:
            return (await client.post("/sessions", json={"name": name, "password": f"rate-{index}"})).status_code

    statuses = await asyncio.gather(*(guess(index) for index in range(12)))
    assert sorted(statuses) == [401] * 5 + [429] * 7


async def test_one_address_gets_fewer_tries_after_failures(replicas: tuple[FastAPI, FastAPI],
                                                           clock: ShiftedClock) -> None:
    app = replicas[0]
    names = [await register(app, "198.51.100.12") for _ in range(4)]
    async with client_at(app, "203.0.113.99") as client:
        # Successful logins: ten a minute from one address.
        for _ in range(10):
            assert (await client.post("/sessions", json={"name": names[0], "password": PASSWORD})).status_code == 200
        assert_too_many_logins(await client.post("/sessions", json={"name": names[0], "password": PASSWORD}))
    async with client_at(app, "203.0.113.98") as client:
        # Failures (spread over accounts, so no account limit helps): each costs three tries.
        statuses = [(await client.post("/sessions", json={"name": names[1 + i % 3], "password": "falsch-999"}))
                    .status_code for i in range(6)]
        assert statuses == [401, 401, 401, 401, 429, 429]
        assert_too_many_logins(await client.post("/sessions", json={"name": names[0], "password": PASSWORD}))
        clock.advance(seconds=18)  # four failures left the bucket at −2: three tries' worth, 6 s each
        assert (await client.post("/sessions", json={"name": names[0], "password": PASSWORD})).status_code == 200


async def test_guest_sign_ups_and_registrations_share_a_limit_per_address(replicas: tuple[FastAPI, FastAPI]) -> None:
    app = replicas[0]
    async with client_at(app, "203.0.113.77") as client:
        taken = await register(app, "198.51.100.13")
        # Refused sign-ups (a taken or an invalid name) do not count.
        assert (await client.post("/guests", json={"name": taken})).status_code == 409
        assert (await client.post("/guests", json={"name": "<>"})).status_code == 422
        created = [(await client.post("/guests", json={"name": unique_name("Gast")})).status_code for _ in range(3)]
        created += [(await client.post("/players", json={"name": unique_name(), "password": PASSWORD})).status_code
                    for _ in range(2)]
        assert created == [201] * 5
        refused = await client.post("/guests", json={"name": unique_name("Gast")})
        also = await client.post("/players", json={"name": unique_name(), "password": PASSWORD})
    for answer in (refused, also):
        assert answer.status_code == 429
        assert answer.json()["code"] == "rate_limited"
        assert answer.json()["detail"].startswith("Zu viele neue Konten von dieser Adresse. Bitte in ")
        assert 170 <= int(answer.headers["Retry-After"]) <= 180  # one sign-up every three minutes
    async with client_at(app, "203.0.113.78") as other:
        assert (await other.post("/guests", json={"name": unique_name("Gast")})).status_code == 201


async def test_behind_a_trusted_proxy_the_forwarded_address_is_the_client(
        limited_settings: Settings, clock: ShiftedClock) -> None:
    settings = limited_settings.model_copy(update={"trusted_proxies": "10.0.0.0/8", "signup_burst": 1})
    app = create_app(settings, clock=clock)
    async with running_app(app), client_at(app, "10.0.0.5") as proxy:
        first = await proxy.post("/guests", json={"name": unique_name("Gast")},
                                 headers={"X-Forwarded-For": "198.51.100.200"})
        second = await proxy.post("/guests", json={"name": unique_name("Gast")},
                                  headers={"X-Forwarded-For": "198.51.100.200"})
        someone_else = await proxy.post("/guests", json={"name": unique_name("Gast")},
                                        headers={"X-Forwarded-For": "198.51.100.201"})
    assert (first.status_code, second.status_code, someone_else.status_code) == (201, 429, 201)
    # Not behind a trusted proxy, the header is the client's own word and counts for nothing.
    async with running_app(create_app(limited_settings.model_copy(update={"signup_burst": 1}), clock=clock)) as direct:
        statuses = [(await direct.post("/guests", json={"name": unique_name("Gast")},
                                       headers={"X-Forwarded-For": f"198.51.100.{i}"})).status_code for i in range(2)]
    assert statuses == [201, 429]


async def test_a_login_with_an_absurd_name_is_an_ordinary_refusal(replicas: tuple[FastAPI, FastAPI]) -> None:
    # U+FDFA is one character that NFKC spells out in eighteen: the name's skeleton outgrows any column.
    async with client_at(replicas[1], "203.0.113.120") as client:
        answer = await client.post("/sessions", json={"name": "\ufdfa" * 200, "password": "egal-1234"})
    assert answer.status_code == 401 and answer.json()["code"] == "wrong_login"
