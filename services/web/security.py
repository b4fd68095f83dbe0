"""Cookies, CSRF and the headers every page carries.

- The player's bearer token lives only in the `speed_session` cookie: HttpOnly (no script reads it),
  SameSite=Lax, Secure behind TLS (`WEB_COOKIE_SECURE`), never in a URL.
- CSRF: a synchroniser token. Every browser gets a random `speed_csrf` cookie (HttpOnly, SameSite=Lax); the
  pages carry HMAC(secret, that cookie) in each form and in the body's `hx-headers`, so htmx sends it as
  `X-CSRF-Token` too. A state-changing request must present it; another site can neither read the cookie nor
  the page, so it cannot forge the token.
- Content-Security-Policy without 'unsafe-inline': scripts and styles only from this service's own files.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from fastapi import Request, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_COOKIE = "speed_session"
CSRF_COOKIE = "speed_csrf"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf"
SESSION_DAYS = 30

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """Pure ASGI middleware: the CSP and its companions on every answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


def is_secure(request: Request, setting: str) -> bool:
    """Whether cookies get `Secure`: always, never, or ("auto") when the request came over TLS."""
    if setting.lower() in ("true", "1", "yes"):
        return True
    if setting.lower() in ("false", "0", "no"):
        return False
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme == "https" or forwarded == "https"


def csrf_seed(request: Request) -> tuple[str, bool]:
    """The browser's CSRF cookie value, and whether it is new (then the answer must set it)."""
    seed = request.cookies.get(CSRF_COOKIE, "")
    if len(seed) == 43 and seed.replace("-", "").replace("_", "").isalnum():
        return seed, False
    return secrets.token_urlsafe(32), True


def csrf_token(secret: str, seed: str) -> str:
    return hmac.new(secret.encode(), b"csrf:" + seed.encode(), hashlib.sha256).hexdigest()


def csrf_valid(secret: str, request: Request, presented: str | None) -> bool:
    seed = request.cookies.get(CSRF_COOKIE, "")
    return bool(seed and presented) and hmac.compare_digest(csrf_token(secret, seed), str(presented))


def set_cookie(response: Response, request: Request, name: str, value: str, secure_setting: str,
               max_age: int = SESSION_DAYS * 86400) -> None:
    response.set_cookie(name, value, max_age=max_age, path="/", httponly=True, samesite="lax",
                        secure=is_secure(request, secure_setting))


def drop_cookie(response: Response, request: Request, name: str, secure_setting: str) -> None:
    response.delete_cookie(name, path="/", httponly=True, samesite="lax", secure=is_secure(request, secure_setting))
