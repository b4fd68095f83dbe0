"""The web front end's one way to the platform: the services' public HTTP APIs, as any other client uses them.

One `httpx.AsyncClient` per service (keep-alive, a bounded pool), the player's bearer token in the
`Authorization` header (never in a URL), the browser's address passed on as `X-Forwarded-For` so the services'
per-client limits see players rather than this service (they read it when the web service is one of their
`TRUSTED_PROXIES`), the page request's trace context as `traceparent`. Every refusal becomes an `ApiError`
carrying the service's German reason.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from libs.platform.settings import Settings
from libs.platform.tracing import with_trace

SERVICES = ("lobby", "table", "leaderboard", "bot")
UNAVAILABLE = "Der Dienst antwortet gerade nicht. Bitte versuche es gleich noch einmal."


class ApiError(Exception):
    """A service refused (4xx) or could not answer (5xx, unreachable); `detail` is German, for the player."""

    def __init__(self, status: int, detail: str, code: str | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.code = code


@dataclass
class Api:
    """HTTP clients for lobby, table, leaderboard and bot."""

    clients: dict[str, httpx.AsyncClient]

    @classmethod
    def for_settings(cls, settings: Settings, transport: httpx.AsyncBaseTransport | None = None) -> Api:
        urls = {"lobby": settings.lobby_url, "table": settings.table_url,
                "leaderboard": settings.leaderboard_url, "bot": settings.bot_url}
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=50, keepalive_expiry=30)
        return cls({name: httpx.AsyncClient(base_url=url.rstrip("/"), timeout=httpx.Timeout(10.0), limits=limits,
                                            transport=transport)
                    for name, url in urls.items()})

    async def close(self) -> None:
        for client in self.clients.values():
            await client.aclose()

    async def call(self, service: str, method: str, path: str, *, token: str | None = None,
                   client_ip: str | None = None, json: Any = None,
                   params: dict[str, Any] | None = None) -> Any:
        """Send one request and return its JSON answer, or raise ApiError with the German reason."""
        try:
            answer = await self.clients[service].request(method, path, json=json, params=params,
                                                         headers=_headers(token, client_ip))
        except httpx.HTTPError as error:
            raise ApiError(503, UNAVAILABLE, "unavailable") from error
        if answer.status_code >= 400:
            raise _refusal(answer)
        return answer.json() if answer.content else None

    @asynccontextmanager
    async def stream(self, service: str, path: str, *, token: str | None, client_ip: str | None,
                     last_event_id: str | None = None) -> AsyncIterator[httpx.Response]:
        """Open a server-sent event stream (no read timeout: keep-alives come every 15 s)."""
        headers = _headers(token, client_ip)
        headers["Accept"] = "text/event-stream"
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        request = self.clients[service].build_request("GET", path, headers=headers,
                                                      timeout=httpx.Timeout(10.0, read=60.0))
        try:
            answer = await self.clients[service].send(request, stream=True)
        except httpx.HTTPError as error:
            raise ApiError(503, UNAVAILABLE, "unavailable") from error
        try:
            if answer.status_code >= 400:
                await answer.aread()
                raise _refusal(answer)
            yield answer
        finally:
            await answer.aclose()


def _headers(token: str | None, client_ip: str | None) -> dict[str, str]:
    # The page request's trace context goes on (`traceparent`): a move made on a page keeps one trace id from the
    # web service through the table to what follows it (libs/platform/tracing.py).
    headers: dict[str, str] = with_trace({})
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if client_ip:
        headers["X-Forwarded-For"] = client_ip
    return headers


def _refusal(answer: httpx.Response) -> ApiError:
    """The service's German reason; never its body verbatim when it is not the platform's refusal shape."""
    try:
        body = answer.json()
    except ValueError:
        body = None
    if answer.status_code >= 500:
        return ApiError(answer.status_code, UNAVAILABLE, "unavailable")
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        code = body.get("code")
        return ApiError(answer.status_code, body["detail"], code if isinstance(code, str) else None)
    return ApiError(answer.status_code, "Das hat nicht geklappt.", None)
