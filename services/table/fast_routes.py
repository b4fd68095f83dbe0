"""The table's two busiest HTTP routes, served without FastAPI's per-request machinery.

A turn over HTTP is one GET /games/{id}/view and one POST /games/{id}/moves. For those, FastAPI's routing,
dependency solving and exception middlewares cost more CPU than the table's own work (py-spy at 200 games:
about 30 % of the table against 17 % for the endpoints). `HotRoutes` is a pure ASGI middleware just inside the
platform's edge (request metrics, the rate limit, the body limit, the strict JSON check all still run first)
that answers those two routes itself, with the very functions the FastAPI routes call (`routes.seat_view`,
`routes.seat_move`) and the app's own exception handlers for their refusals.

It answers only requests whose answer it knows to be FastAPI's: a bearer token that verifies and, for a move,
an `application/json` body of exactly the declared shape (`MoveRequest`: `move` an object, `expected_n`
absent, null or an integer ≥ 1). Anything else (no or a bad token, another content type, a body that does
not fit, another method or path) goes on to FastAPI untouched, the body handed on as it was received, and
gets FastAPI's answer. The FastAPI routes stay declared: they document the API (OpenAPI) and serve that rest.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from inspect import isawaitable
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from libs.platform.auth import Identity, InvalidToken, verify_token
from libs.platform.service import Runtime
from services.table.routes import make_move, read_view, router, seat_move, seat_view

JSON_CONTENT_TYPES = frozenset({b"application/json", b"application/json; charset=utf-8",
                                b"application/json;charset=utf-8"})
"""The `Content-Type` values (in any case) of a move served here; FastAPI and the strict JSON edge both read
these bodies as JSON. Others, JSON or not, are left to FastAPI."""

Handler = Callable[[Request, Exception], Any]


def mount_hot_routes(app: FastAPI) -> None:
    """Serve the view and move routes of `app` (which includes the table's `router` as it is) by the lean
    path, innermost of its middlewares, so every edge middleware still runs first; the FastAPI routes stay."""
    view, move = _route(read_view), _route(make_move)
    app.user_middleware.append(Middleware(HotRoutes, fastapi_app=app, view=view, move=move))


def _route(endpoint: Callable[..., Any]) -> APIRoute:
    """The router's route of `endpoint`: the object FastAPI puts in `scope["route"]` when it serves it."""
    return next(route for route in router.routes if isinstance(route, APIRoute) and route.endpoint is endpoint)


class HotRoutes:
    """Pure ASGI middleware: `GET <view route>` and `POST <move route>` answered as FastAPI would answer them,
    when the request is one whose answer is certain (see the module's docstring); everything else passes on."""

    def __init__(self, app: ASGIApp, fastapi_app: FastAPI, view: APIRoute, move: APIRoute) -> None:
        self.app = app
        self.fastapi_app = fastapi_app
        self.view = view
        self.move = move
        # The app's refusal handlers, sorted as FastAPI's ExceptionMiddleware sorts them: by status code and
        # by exception class; the handler of Exception (500) stays with the outer ServerErrorMiddleware.
        self.status_handlers: dict[int, Handler] = {}
        self.exception_handlers: dict[type[Exception], Handler] = {}
        for key, handler in fastapi_app.exception_handlers.items():
            if key in (500, Exception):
                continue
            if isinstance(key, int):
                self.status_handlers[key] = handler
            else:
                self.exception_handlers[key] = handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path") and not self.fastapi_app.dependency_overrides:
            method = scope["method"]
            if method == "GET":
                match = self.view.path_regex.match(scope["path"])
                if match is not None:
                    found = self._caller(scope)
                    if found is not None:
                        self._route_to(scope, self.view, match["game_id"])
                        await self._answer(scope, receive, send, seat_view(found[0], match["game_id"], found[1]))
                        return
            elif method == "POST":
                match = self.move.path_regex.match(scope["path"])
                if match is not None and _header(scope, b"content-type").lower() in JSON_CONTENT_TYPES:
                    found = self._caller(scope)
                    if found is not None:
                        await self._move(scope, receive, send, match["game_id"], *found)
                        return
        await self.app(scope, receive, send)

    async def _move(self, scope: Scope, receive: Receive, send: Send, game_id: str, runtime: Runtime,
                    player: Identity) -> None:
        """Read the body; serve the move if it has the declared shape, else hand the request on as received."""
        messages: list[Message] = []
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        body = b"".join(message.get("body", b"") for message in messages) \
            if messages[-1]["type"] == "http.request" else b""
        request = _move_request(body)
        if request is None:
            pending = deque(messages)

            async def replay() -> Message:
                return pending.popleft() if pending else await receive()

            await self.app(scope, replay, send)
            return
        self._route_to(scope, self.move, game_id)
        await self._answer(scope, receive, send, seat_move(runtime, game_id, player, *request))

    def _caller(self, scope: Scope) -> tuple[Runtime, Identity] | None:
        """The runtime and the player behind the request's bearer token, read as FastAPI's HTTPBearer and
        `current_identity` read it; None when FastAPI would refuse (401) or the service is not running."""
        runtime: Runtime | None = getattr(self.fastapi_app.state, "runtime", None)
        authorization = _header(scope, b"authorization").decode("latin-1")
        scheme, _, credentials = authorization.partition(" ")
        token = credentials.strip()
        if runtime is None or not scheme or not token or scheme.lower() != "bearer":
            return None
        try:
            return runtime, verify_token(runtime.settings.auth_secret, token)
        except InvalidToken:
            return None

    def _route_to(self, scope: Scope, route: APIRoute, game_id: str) -> None:
        """Fill the scope as FastAPI's router does for `route` (RequestMetrics labels by `scope["route"]`)."""
        scope["endpoint"] = route.endpoint
        scope["path_params"] = {"game_id": game_id}
        scope["route"] = route

    async def _answer(self, scope: Scope, receive: Receive, send: Send, work: Any) -> None:
        """Send what `work` (the route's coroutine) returns, or the app's refusal of what it raised; an
        exception without a handler goes up to the server error middleware, as from a FastAPI route."""
        try:
            response: Response = await work
        except Exception as error:
            handler = self._handler(error)
            if handler is None:
                raise
            answer = handler(Request(scope, receive, send), error)
            response = await answer if isawaitable(answer) else answer
        await response(scope, receive, send)

    def _handler(self, error: Exception) -> Handler | None:
        """The handler Starlette's exception middleware would pick for `error`."""
        if isinstance(error, HTTPException) and error.status_code in self.status_handlers:
            return self.status_handlers[error.status_code]
        return next((self.exception_handlers[cls] for cls in type(error).__mro__ if cls in self.exception_handlers),
                    None)


def _header(scope: Scope, name: bytes) -> bytes:
    """The first value of header `name` (lower case), as Starlette's `Headers.get` picks it; b"" if absent."""
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return b""


def _move_request(body: bytes) -> tuple[dict[str, Any], int | None] | None:
    """`move` and `expected_n` of a body FastAPI would accept as `MoveRequest` with these very values (parsed
    by `json.loads`, as Starlette's `Request.json`); None for any other body, which FastAPI then answers."""
    if not body:
        return None
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if type(value) is not dict:
        return None
    move, expected_n = value.get("move"), value.get("expected_n")
    if type(move) is not dict or not (expected_n is None or (type(expected_n) is int and expected_n >= 1)):
        return None
    return move, expected_n
