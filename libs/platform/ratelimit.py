"""Rate limits: token buckets per (client, action) or (account, action), concurrency slots, and the client's
address.

Everything here lives in one process's memory: a limit holds per replica. That is enough where a replica's
own resources are at stake (requests, open live streams) or the cost of a few more tries is small; what an
attacker must not multiply by spreading over replicas (password guesses per account) is kept in the
owning service's database instead (the lobby's `login_failures`). See docs/architecture.md, "Limits".

A refusal is 429 with a German reason, ``code: "rate_limited"`` and a ``Retry-After`` header (whole
seconds, rounded up).
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from libs.platform.http_errors import refusal

MAX_KEYS = 100_000
"""Buckets kept per limiter; the least recently used goes first (a full bucket loses nothing by it)."""

TOO_MANY_REQUESTS = "Zu viele Anfragen. Bitte {wait} erneut versuchen."
TOO_MANY_LOGINS = "Zu viele Anmeldeversuche. Bitte {wait} erneut versuchen."
TOO_MANY_SIGNUPS = "Zu viele neue Konten von dieser Adresse. Bitte {wait} erneut versuchen."
TOO_MANY_STREAMS = ("Zu viele Live-Verbindungen gleichzeitig. Bitte schließe eine andere Ansicht "
                    "und versuche es {wait} erneut.")

UNLIMITED_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
"""Probes and scrapes: never limited (a throttled probe would restart a healthy pod)."""


class MonotonicClock:
    """The time limits run on (seconds, never going back); a test may subclass it to move time forward."""

    def now(self) -> float:
        return time.monotonic()


def wait_text(seconds: float) -> str:
    """Return German for "in <seconds>" (whole seconds rounded up; minutes from two minutes on)."""
    whole = max(1, math.ceil(seconds))
    if whole >= 120:
        minutes = math.ceil(whole / 60)
        return f"in {minutes} Minuten"
    return "in 1 Sekunde" if whole == 1 else f"in {whole} Sekunden"


def retry_after_header(seconds: float) -> str:
    """The Retry-After value: whole seconds, rounded up, at least 1."""
    return str(max(1, math.ceil(seconds)))


class RateLimited(HTTPException):
    """429 with a German reason (`template` with "{wait}" for when to try again) and Retry-After."""

    code = "rate_limited"

    def __init__(self, template: str, retry_after: float) -> None:
        super().__init__(429, template.format(wait=wait_text(retry_after)),
                         headers={"Retry-After": retry_after_header(retry_after)})
        self.retry_after = retry_after


@dataclass
class _Bucket:
    tokens: float
    updated: float


class TokenBuckets:
    """One token bucket per key: `capacity` tokens at most, refilled at `per_second`.

    A request takes a token when at least one is there; `charge` may take more (down to −capacity), so a
    key that misbehaves (a failed login) waits longer. A capacity or rate of 0 turns the limit off.
    """

    def __init__(self, capacity: float, per_second: float, *, clock: MonotonicClock | None = None,
                 max_keys: int = MAX_KEYS) -> None:
        self.capacity = float(capacity)
        self.per_second = float(per_second)
        self._clock = clock or MonotonicClock()
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self._max_keys = max_keys

    @property
    def enabled(self) -> bool:
        return self.capacity > 0 and self.per_second > 0

    def take(self, key: str) -> float:
        """Take one token for `key`; return 0.0 if it was there, else the seconds until one will be (and
        take nothing)."""
        if not self.enabled:
            return 0.0
        bucket = self._refilled(key)
        if bucket.tokens < 1.0:
            return (1.0 - bucket.tokens) / self.per_second
        bucket.tokens -= 1.0
        return 0.0

    def charge(self, key: str, cost: float) -> None:
        """Take `cost` more tokens from `key`'s bucket, whether or not they are there (at most one bucket
        of debt)."""
        if not self.enabled:
            return
        bucket = self._refilled(key)
        bucket.tokens = max(-self.capacity, bucket.tokens - cost)

    def give_back(self, key: str) -> None:
        """Return one token to `key`'s bucket (a request that turned out not to count), never beyond its capacity."""
        if not self.enabled:
            return
        bucket = self._refilled(key)
        bucket.tokens = min(self.capacity, bucket.tokens + 1.0)

    def wait(self, key: str) -> float:
        """Return the seconds until `key` has a token (0.0 now), taking nothing."""
        if not self.enabled:
            return 0.0
        bucket = self._refilled(key)
        return 0.0 if bucket.tokens >= 1.0 else (1.0 - bucket.tokens) / self.per_second

    def _refilled(self, key: str) -> _Bucket:
        now = self._clock.now()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(tokens=self.capacity, updated=now)
            while len(self._buckets) > self._max_keys:
                self._buckets.popitem(last=False)
        else:
            elapsed = max(0.0, now - bucket.updated)
            bucket.tokens = min(self.capacity, bucket.tokens + elapsed * self.per_second)
            bucket.updated = now
            self._buckets.move_to_end(key)
        return bucket


class Slots:
    """At most `limit` things at once per key (open live streams); a limit of 0 turns it off."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: dict[str, int] = {}

    def acquire(self, key: str) -> bool:
        """Take a slot for `key`; False (nothing taken) if all its slots are taken."""
        held = self._held.get(key, 0)
        if self.limit > 0 and held >= self.limit:
            return False
        self._held[key] = held + 1
        return True

    def release(self, key: str) -> None:
        """Give back a slot taken by `acquire`."""
        held = self._held.get(key, 0) - 1
        if held > 0:
            self._held[key] = held
        else:
            self._held.pop(key, None)

    def held(self, key: str) -> int:
        return self._held.get(key, 0)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=16)
def trusted_networks(spec: str) -> tuple[Network, ...]:
    """Parse TRUSTED_PROXIES: addresses or networks, comma-separated ("10.0.0.0/8, 127.0.0.1")."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in spec.split(",") if part.strip())


def _is_trusted(address: str, networks: Iterable[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(scope: Scope, trusted_proxies: str = "") -> str:
    """Return the client's address for limits: the connection's peer, or, when that peer is a trusted proxy,
    the nearest address in X-Forwarded-For that is not a trusted proxy itself.

    X-Forwarded-For is read only behind a trusted proxy: anyone can send the header, and a client that
    names itself anew with every request would have no limits at all.
    """
    client = scope.get("client")
    peer = str(client[0]) if client else "unknown"
    networks = trusted_networks(trusted_proxies) if trusted_proxies else ()
    if not networks or not _is_trusted(peer, networks):
        return peer
    forwarded: list[str] = [value.decode("latin-1") for key, value in scope.get("headers", ())
                            if key == b"x-forwarded-for"]
    hops = [hop.strip() for header in forwarded for hop in header.split(",") if hop.strip()]
    for hop in reversed(hops):  # appended by each proxy in turn: the rightmost untrusted one is the client
        if not _is_trusted(hop, networks):
            return hop[:64]
    return hops[0][:64] if hops else peer


class ClientRateLimit:
    """Pure ASGI middleware: every service's general limit of requests per client (token bucket), except
    probes and metrics; over it, 429 before the request reaches a route."""

    def __init__(self, app: ASGIApp, per_second: float, burst: int, trusted_proxies: str = "",
                 clock: MonotonicClock | None = None) -> None:
        self.app = app
        self.buckets = TokenBuckets(burst, per_second, clock=clock)
        self.trusted_proxies = trusted_proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.buckets.enabled or scope.get("path") in UNLIMITED_PATHS:
            await self.app(scope, receive, send)
            return
        wait = self.buckets.take(client_address(scope, self.trusted_proxies))
        if wait <= 0:
            await self.app(scope, receive, send)
            return
        response = refusal(429, TOO_MANY_REQUESTS.format(wait=wait_text(wait)), RateLimited.code,
                           headers={"Retry-After": retry_after_header(wait)})
        await response(scope, receive, send)
