"""The rate limiter: token buckets, concurrency slots, who the client is, and the 429 every service gives."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from libs.platform.ratelimit import (
    ClientRateLimit,
    MonotonicClock,
    RateLimited,
    Slots,
    TokenBuckets,
    client_address,
    wait_text,
)


class ManualClock(MonotonicClock):
    """A clock at the edge that stands still until the test moves it."""

    def __init__(self) -> None:
        self.at = 1000.0

    def now(self) -> float:
        return self.at


def test_a_bucket_lets_a_burst_through_then_one_request_per_refill() -> None:
    clock = ManualClock()
    buckets = TokenBuckets(3, 0.5, clock=clock)  # 3 at once, then one every 2 s
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == pytest.approx(2.0)
    assert buckets.take("b") == 0.0  # every key has its own bucket
    clock.at += 1.0
    assert buckets.take("a") == pytest.approx(1.0)  # a refused request takes nothing
    clock.at += 1.0
    assert buckets.take("a") == 0.0
    clock.at += 3600
    assert [buckets.take("a") for _ in range(4)][-1] > 0  # refilled to the capacity, never beyond


def test_a_charge_puts_a_key_into_debt_so_it_waits_longer() -> None:
    clock = ManualClock()
    buckets = TokenBuckets(10, 10 / 60, clock=clock)  # 10 a minute
    assert buckets.take("client") == 0.0
    buckets.charge("client", 2)  # a failed login costs three in all
    assert buckets.wait("client") == 0.0
    for _ in range(10):
        buckets.charge("client", 3)
    assert buckets.wait("client") == pytest.approx(11 * 6.0)  # debt is at most one bucket: −10 → 1 token
    assert buckets.take("client") > 60


def test_a_limit_of_zero_is_off() -> None:
    buckets = TokenBuckets(0, 0)
    assert not buckets.enabled
    assert all(buckets.take("a") == 0.0 for _ in range(10_000))
    slots = Slots(0)
    assert all(slots.acquire("a") for _ in range(10_000))


def test_buckets_forget_the_least_recently_used_keys_beyond_their_bound() -> None:
    clock = ManualClock()
    buckets = TokenBuckets(1, 0.001, clock=clock, max_keys=3)
    for key in "abcd":
        assert buckets.take(key) == 0.0
    assert buckets.take("d") > 0 and buckets.take("c") > 0
    assert buckets.take("a") == 0.0  # "a" was forgotten: a fresh, full bucket


def test_slots_count_per_key_and_come_back_when_released() -> None:
    slots = Slots(2)
    assert slots.acquire("anna") and slots.acquire("anna")
    assert not slots.acquire("anna") and slots.held("anna") == 2
    assert slots.acquire("bert")
    slots.release("anna")
    assert slots.acquire("anna")
    for _ in range(3):
        slots.release("anna")
    assert slots.held("anna") == 0


def scope(peer: str | None, forwarded: tuple[str, ...] | list[str] = ()) -> dict[str, object]:
    return {"type": "http", "client": (peer, 4711) if peer else None,
            "headers": [(b"x-forwarded-for", value.encode()) for value in forwarded]}


def test_the_client_is_the_peer_unless_the_peer_is_a_trusted_proxy() -> None:
    assert client_address(scope("203.0.113.9", ["198.51.100.1"])) == "203.0.113.9"  # no proxy trusted
    assert client_address(scope("203.0.113.9", ["198.51.100.1"]), "10.0.0.0/8") == "203.0.113.9"
    assert client_address(scope("10.1.2.3", ["198.51.100.1"]), "10.0.0.0/8") == "198.51.100.1"
    # A client cannot hide behind an address it forges in front: the rightmost untrusted hop counts.
    assert client_address(scope("10.1.2.3", ["1.2.3.4, 198.51.100.1, 10.9.9.9"]), "10.0.0.0/8") == "198.51.100.1"
    assert client_address(scope("10.1.2.3", ["1.2.3.4", "198.51.100.7"]), "10.0.0.0/8, ::1") == "198.51.100.7"
    assert client_address(scope("10.1.2.3"), "10.0.0.0/8") == "10.1.2.3"
    assert client_address(scope(None)) == "unknown"
    assert client_address(scope("::1", ["2001:db8::5"]), "::1") == "2001:db8::5"


def test_the_german_wait_reads_naturally() -> None:
    assert wait_text(0.2) == "in 1 Sekunde"
    assert wait_text(29.1) == "in 30 Sekunden"
    assert wait_text(600) == "in 10 Minuten"
    refusal = RateLimited("Zu viele Anmeldeversuche. Bitte {wait} erneut versuchen.", 29.5)
    assert refusal.status_code == 429 and refusal.code == "rate_limited"
    assert refusal.detail == "Zu viele Anmeldeversuche. Bitte in 30 Sekunden erneut versuchen."
    assert refusal.headers == {"Retry-After": "30"}


async def test_every_service_answers_429_with_a_german_reason_and_retry_after_over_its_limit() -> None:
    clock = ManualClock()
    app = FastAPI()

    @app.get("/thing")
    async def thing() -> dict[str, str]:
        return {"ok": "ja"}

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    app.add_middleware(ClientRateLimit, per_second=1.0, burst=2, clock=clock)
    transport = httpx.ASGITransport(app=app, client=("192.0.2.1", 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        assert [(await client.get("/thing")).status_code for _ in range(2)] == [200, 200]
        refused = await client.get("/thing")
        assert refused.status_code == 429
        assert refused.json() == {"detail": "Zu viele Anfragen. Bitte in 1 Sekunde erneut versuchen.",
                                  "code": "rate_limited"}
        assert refused.headers["Retry-After"] == "1"
        assert [(await client.get("/healthz")).status_code for _ in range(10)] == [200] * 10  # probes: never
        clock.at += 1.0
        assert (await client.get("/thing")).status_code == 200
    other = httpx.ASGITransport(app=app, client=("192.0.2.2", 1234))
    async with httpx.AsyncClient(transport=other, base_url="http://test") as client:
        assert (await client.get("/thing")).status_code == 200  # another client has its own bucket
