"""The lobby's limits: login attempts per client and per account, sign-ups per client.

Per client (in each replica's memory): a token bucket of login attempts, where a failed attempt costs
three, and one of sign-ups (guests and registrations alike). Per account (in PostgreSQL, shared by every
replica): at most `login_failures_per_account` attempts that did not succeed within the window; an attacker
who spreads guesses over replicas or addresses gets no more. An attempt counts as failed from the moment
it starts (and is forgiven when it succeeds), so guesses sent at once cannot slip through together.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from fastapi import Request
from sqlalchemy import delete, func, select, text

from libs.platform.clock import Clock, clock_of
from libs.platform.ratelimit import (
    TOO_MANY_LOGINS,
    TOO_MANY_SIGNUPS,
    MonotonicClock,
    RateLimited,
    TokenBuckets,
    client_address,
)
from libs.platform.rpc import CommandRefused
from libs.platform.service import Runtime
from libs.platform.settings import Settings
from services.lobby.database import sessions_of
from services.lobby.models import LoginAttempt

ACCOUNT_KEY_MAX = 120
"""Characters of an account key (a name's skeleton) kept in `login_failures.account_key`."""

FAILED_LOGIN_COST = 3
"""Tokens a failed login takes from the client's bucket (a success takes one): stricter after failures."""


class _LobbySeconds(MonotonicClock):
    """The buckets run on the lobby's clock (the edge tests stop or move), in seconds."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    def now(self) -> float:
        return self._clock.now().timestamp()


class LobbyLimits:
    """The per-client buckets of one lobby replica."""

    def __init__(self, settings: Settings, clock: Clock) -> None:
        seconds = _LobbySeconds(clock)
        self.logins = TokenBuckets(settings.login_attempts_per_minute, settings.login_attempts_per_minute / 60,
                                   clock=seconds)
        self.signups = TokenBuckets(settings.signup_burst, settings.signups_per_hour / 3600, clock=seconds)


def limits_of(runtime: Runtime) -> LobbyLimits:
    """Return the replica's limits (made at startup)."""
    limits: LobbyLimits = runtime.extras["limits"]
    return limits


async def make_limits(runtime: Runtime) -> None:
    """Startup step: the replica's per-client buckets."""
    runtime.extras["limits"] = LobbyLimits(runtime.settings, clock_of(runtime))


def client_of(request: Request, runtime: Runtime) -> str:
    """The client's address a limit counts by (libs/platform/ratelimit.client_address)."""
    return client_address(request.scope, runtime.settings.trusted_proxies)


@contextmanager
def counted_signup(runtime: Runtime, client: str) -> Iterator[None]:
    """Count a sign-up of `client` (guest or registration), or refuse it (429) when the client has made too
    many; a sign-up the lobby refuses (name taken or invalid) is given back, so a typo costs nothing."""
    signups = limits_of(runtime).signups
    wait = signups.take(client)
    if wait > 0:
        raise RateLimited(TOO_MANY_SIGNUPS, wait)
    try:
        yield
    except CommandRefused:
        signups.give_back(client)
        raise


def take_login(runtime: Runtime, client: str) -> None:
    """Count a login attempt of `client`, or refuse it (429) before any password is checked."""
    wait = limits_of(runtime).logins.take(client)
    if wait > 0:
        raise RateLimited(TOO_MANY_LOGINS, wait)


def login_failed(runtime: Runtime, client: str) -> None:
    """Make the client pay for a failed login (the attempt itself was already taken)."""
    limits_of(runtime).logins.charge(client, FAILED_LOGIN_COST - 1)


async def begin_account_attempt(runtime: Runtime, account_key: str) -> str:
    """Record an attempt to log in to `account_key` as failed until it succeeds, and return its id; refuse it
    (429) when the account already has its limit of failures within the window (nothing is recorded then).

    An advisory lock per account makes "count, then record" one step across replicas.
    """
    settings = runtime.settings
    limit, window = settings.login_failures_per_account, timedelta(seconds=settings.login_failure_window_seconds)
    if limit <= 0:
        return ""
    now = clock_of(runtime).now()
    async with sessions_of(runtime).begin() as session:
        await session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"),
                              {"key": f"lobby.login:{account_key}"})
        await session.execute(delete(LoginAttempt).where(LoginAttempt.failed_at <= now - window))
        # The limit-th most recent failure: while it is inside the window, the account waits until it leaves.
        blocking = (await session.execute(
            select(LoginAttempt.failed_at).where(LoginAttempt.account_key == account_key)
            .order_by(LoginAttempt.failed_at.desc()).offset(limit - 1).limit(1))).scalar_one_or_none()
        if blocking is not None:
            raise RateLimited(TOO_MANY_LOGINS, _seconds_until(blocking + window, now))
        attempt_id = uuid.uuid4().hex
        session.add(LoginAttempt(attempt_id=attempt_id, account_key=account_key, failed_at=now))
    return attempt_id


async def account_login_succeeded(runtime: Runtime, account_key: str) -> None:
    """Forget the account's failures: the player knows the password."""
    if runtime.settings.login_failures_per_account <= 0:
        return
    async with sessions_of(runtime).begin() as session:
        await session.execute(delete(LoginAttempt).where(LoginAttempt.account_key == account_key))


async def account_failures(runtime: Runtime, account_key: str) -> int:
    """How many failed attempts the account has within the window now."""
    window = timedelta(seconds=runtime.settings.login_failure_window_seconds)
    async with sessions_of(runtime)() as session:
        count = await session.scalar(select(func.count()).select_from(LoginAttempt).where(
            LoginAttempt.account_key == account_key, LoginAttempt.failed_at > clock_of(runtime).now() - window))
    return int(count or 0)


def _seconds_until(moment: datetime, now: datetime) -> float:
    return max(1.0, (moment - now).total_seconds())
