"""The composition root every service shares: a FastAPI app whose lifespan runs the NATS workers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext
from opentelemetry.trace import Span, SpanKind, StatusCode
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from libs.platform import nats_client
from libs.platform.auth import Identity, InvalidToken, verify_token
from libs.platform.body_limit import BodyLimit
from libs.platform.consumers import FETCH_TIMEOUT, SHUTDOWN_GRACE
from libs.platform.database import create_engine
from libs.platform.docs_assets import add_offline_docs
from libs.platform.gc_tuning import tune_collector
from libs.platform.http_errors import document_refusals, install_error_handlers
from libs.platform.logging import configure_logging, get_logger
from libs.platform.metrics import HTTP_LATENCY, HTTP_REQUESTS, render_metrics
from libs.platform.nats_permissions import inbox_prefix, streams_owned_by
from libs.platform.ratelimit import ClientRateLimit
from libs.platform.rpc import finish_in_flight, stop_answering
from libs.platform.settings import Settings, get_settings
from libs.platform.streams import ensure_streams
from libs.platform.strict_input import StrictInput
from libs.platform.tracing import Traced, configure_tracing, parent_of_asgi
from libs.rules import registry


@dataclass
class Runtime:
    """What a service's handlers and workers share: settings and live connections."""

    name: str
    settings: Settings
    nc: NatsClient
    js: JetStreamContext
    engine: AsyncEngine | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the service begins to stop: workers take no new work and finish what they hold."""

    async def pause(self, seconds: float) -> bool:
        """Wait `seconds`, or less if the service begins to stop; return True while it keeps running."""
        try:
            await asyncio.wait_for(self.stopping.wait(), seconds)
        except TimeoutError:
            return True
        return False


Worker = Callable[[Runtime], Awaitable[None]]
Startup = Callable[[Runtime], Awaitable[None]]


async def get_runtime(request: Request) -> Runtime:
    """FastAPI dependency: the service's runtime."""
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def bearer_token(authorization: str | None) -> str | None:
    """Return the token of an `Authorization: Bearer <token>` header (scheme in any case), else None."""
    if authorization is None or not authorization.lower().startswith("bearer "):
        return None
    return authorization[7:].strip()


def identity_of(runtime: Runtime, token: str) -> Identity:
    """Return the player behind a bearer token, or 401 with the German reason."""
    try:
        return verify_token(runtime.settings.auth_secret, token)
    except InvalidToken as error:
        raise HTTPException(401, "Ungültiges oder abgelaufenes Token.",
                            headers={"WWW-Authenticate": "Bearer"}) from error


_BEARER = HTTPBearer(auto_error=False, description="Das Token aus POST /guests, /players oder /sessions (Lobby).")
"""Reads the `Authorization: Bearer` header and declares it in the OpenAPI schema (Swagger UI's "Authorize")."""


async def current_identity(request: Request,
                           credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)]) -> Identity:
    """FastAPI dependency: the player behind the bearer token, or 401."""
    token = credentials.credentials.strip() if credentials is not None else None
    if not token:
        raise HTTPException(401, "Anmeldung fehlt: Bearer-Token erforderlich.",
                            headers={"WWW-Authenticate": "Bearer"})
    return identity_of(request.app.state.runtime, token)


CurrentPlayer = Annotated[Identity, Depends(current_identity)]


async def connect_nats(settings: Settings, name: str,
                       login: tuple[str | None, str | None] | None = None, *,
                       connection_name: str | None = None) -> NatsClient:
    """Connect to NATS as the service's own user (`Settings.nats_login`, or the `login` given), retrying while
    the server comes up, and reconnecting for ever afterwards. The server lists the connection (`/connz`) under
    `connection_name` (default `name`). Replies arrive on the user's own inbox prefix, the only `_INBOX` subjects
    its NATS permissions let it read (libs/platform/nats_permissions)."""
    user, password = login if login is not None else settings.nats_login(name)
    return await nats_client.connect(
        settings.nats_url, name=connection_name or name, max_reconnect_attempts=-1, reconnect_time_wait=0.5,
        connect_timeout=5, allow_reconnect=True, user=user, password=password,
        inbox_prefix=inbox_prefix(user) if user else "_INBOX",
    )


def create_service_app(
    name: str,
    *,
    routers: Sequence[APIRouter] = (),
    workers: Sequence[Worker] = (),
    on_startup: Sequence[Startup] = (),
    uses_database: bool = False,
    settings: Settings | None = None,
    process: str | None = None,
) -> FastAPI:
    """Build the service's app: /healthz, /readyz, /metrics, `routers`, and `workers` run in the lifespan.

    `name` is the service: its NATS user and the streams it owns. `process` (default `name`) is what this process
    is called where an operator sees it: the `service` of its log lines, its NATS connection's name (the server's
    `/connz`), its spans' service and the `service` label of its HTTP metrics (the table's follow-up process is
    `table-followup`, the table's user all the same)."""
    settings = settings or get_settings()
    process = process or name
    if settings.rule_plugins:  # extra games (e.g. the conformance suite's tiny game) before any route is served
        registry.load_plugins(settings.rule_plugins)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        configure_logging(process, settings.log_level)
        configure_tracing(process)
        tune_collector()
        log = get_logger()
        nc = await connect_nats(settings, name, connection_name=process)
        js = nc.jetstream()
        # Each service creates only the streams it writes (its NATS user may create no others).
        await ensure_streams(js, settings.stream_replicas, only=streams_owned_by(settings.nats_login(name)[0]))
        engine = create_engine(settings) if uses_database else None
        runtime = Runtime(name=name, settings=settings, nc=nc, js=js, engine=engine)
        app.state.runtime = runtime
        for step in on_startup:
            await step(runtime)
        tasks = [asyncio.create_task(_supervise(worker, runtime), name=getattr(worker, "__name__", "worker"))
                 for worker in workers]
        app.state.ready = True
        log.info("service_started", workers=len(tasks))
        try:
            yield
        finally:
            app.state.ready = False
            await _stop_gracefully(runtime, tasks)
            try:
                await nc.drain()
            except Exception:
                await nc.close()
            if engine is not None:
                await engine.dispose()
            log.info("service_stopped")

    app = _http_app(process, settings, lifespan)

    @app.get("/readyz", tags=["operations"],
             responses={503: {"description": "Nicht bereit; `problems` nennt, woran es liegt."}})
    async def readyz(request: Request) -> JSONResponse:
        """The service can do its work: NATS connected (and the database answering, where it has one)."""
        runtime: Runtime | None = getattr(request.app.state, "runtime", None)
        problems = []
        if runtime is None or not request.app.state.ready:
            problems.append("starting")
        else:
            if not runtime.nc.is_connected:
                problems.append("nats")
            if runtime.engine is not None:
                try:
                    async with runtime.engine.connect() as connection:
                        await connection.execute(text("SELECT 1"))
                except Exception:
                    problems.append("database")
        status = 200 if not problems else 503
        return JSONResponse({"status": "ready" if not problems else "not ready", "problems": problems},
                            status_code=status)

    for router in routers:
        app.include_router(router)
    return app


HttpStep = Callable[[FastAPI], Awaitable[None]]


def create_http_service_app(
    name: str,
    *,
    routers: Sequence[APIRouter] = (),
    on_startup: Sequence[HttpStep] = (),
    on_shutdown: Sequence[HttpStep] = (),
    settings: Settings | None = None,
) -> FastAPI:
    """Build a service that talks to the others only over their public HTTP APIs (the web front end): no NATS
    connection, no database; the same /healthz, /readyz, /metrics, limits, metrics and refusals as every
    service. `on_startup` / `on_shutdown` get the app (e.g. to open and close its HTTP clients)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        configure_logging(name, settings.log_level)
        configure_tracing(name)
        log = get_logger()
        for step in on_startup:
            await step(app)
        app.state.ready = True
        log.info("service_started", workers=0)
        try:
            yield
        finally:
            app.state.ready = False
            for step in on_shutdown:
                await step(app)
            log.info("service_stopped")

    app = _http_app(name, settings, lifespan)

    @app.get("/readyz", tags=["operations"],
             responses={503: {"description": "Nicht bereit; `problems` nennt, woran es liegt."}})
    async def readyz(request: Request) -> JSONResponse:
        """The service can do its work (it has started and not begun to stop)."""
        problems = [] if request.app.state.ready else ["starting"]
        return JSONResponse({"status": "ready" if not problems else "not ready", "problems": problems},
                            status_code=200 if not problems else 503)

    for router in routers:
        app.include_router(router)
    return app


def _http_app(name: str, settings: Settings,
              lifespan: Callable[[FastAPI], Any]) -> FastAPI:
    """The FastAPI app every service shares: middleware (limits, metrics, strict input), refusals in German,
    offline API docs, /healthz and /metrics; the caller adds /readyz and its routers."""
    # Not FastAPI's own OpenTelemetry support: the platform's metrics are Prometheus' (`libs/platform/metrics.py`)
    # and its request spans `RequestMetrics`' (libs/platform/tracing.py), at a fortieth of the cost per request.
    app = FastAPI(title=f"Speed {name}", lifespan=lifespan, docs_url=None, redoc_url=None,
                  telemetry={"tracing": False, "metrics": False, "logs": False})
    app.state.ready = False

    # Outermost last: metrics see every answer, the body limit bounds what StrictInput reads whole.
    app.add_middleware(StrictInput)
    app.add_middleware(BodyLimit)
    # Per-client request limit (429 before any body is read); inside the metrics, which count the 429s too.
    app.add_middleware(ClientRateLimit, per_second=settings.rate_limit_per_second, burst=settings.rate_limit_burst,
                       trusted_proxies=settings.trusted_proxies)
    app.add_middleware(RequestMetrics, service=name)
    install_error_handlers(app)
    add_offline_docs(app)
    document_refusals(app)

    @app.get("/healthz", tags=["operations"])
    async def healthz() -> dict[str, str]:
        """The process is alive."""
        return {"status": "ok", "service": name}

    @app.get("/metrics", tags=["operations"], response_class=PlainTextResponse)
    async def metrics() -> Response:
        """Prometheus metrics of this process."""
        body, content_type = render_metrics()
        return Response(body, media_type=content_type)

    return app


async def _supervise(worker: Worker, runtime: Runtime) -> None:
    """Run a worker, restarting it after a crash (a worker must never silently stop) until the service stops."""
    log = get_logger(worker=getattr(worker, "__name__", "worker"))
    while True:
        try:
            await worker(runtime)
            return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("worker_crashed")
            if not await runtime.pause(1.0):
                return


async def _stop_gracefully(runtime: Runtime, workers: list[asyncio.Task[None]]) -> None:
    """Stop taking work and finish the work taken, within a bounded time (SIGTERM, after uvicorn has
    answered the HTTP requests in flight).

    Commands: leave the queue groups (other replicas answer from now on), then let those received be
    answered. Workers: consumers stop fetching and give their running handlers SHUTDOWN_GRACE seconds,
    then hand the rest back to JetStream for immediate redelivery; a worker still running after that
    (and a fetch's second) is cancelled.
    """
    runtime.stopping.set()
    await stop_answering(runtime.nc)
    bound = SHUTDOWN_GRACE + FETCH_TIMEOUT + 1.0
    commands = asyncio.create_task(finish_in_flight(timeout=bound))
    if workers:
        _, late = await asyncio.wait(workers, timeout=bound)
        for task in late:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    await commands


class RequestMetrics:
    """Pure ASGI middleware: latency and count per route template (never the raw path), and the request's span.

    A plain ASGI class rather than ``@app.middleware("http")``: that one wraps every request in extra
    tasks and streams, which cost more than the request itself on a busy table. The route template comes
    from the route the router matched (``scope["route"]``); a path no route matches is "unmatched", so
    made-up paths cannot add time series.

    The span (libs/platform/tracing.py) continues the trace of the request's `traceparent`, else starts one, and
    is current for everything the request does, so its log lines and the NATS messages it sends carry its trace
    id. Started here rather than by FastAPI's own OpenTelemetry support, which costs ~40 µs a request even when
    nothing is sampled (attributes, header parsing, wrapped send and receive), against about 1 µs here. The probes
    (`/healthz`, `/readyz`, `/metrics`) get no span: traces are for players' and operators' work.
    """

    def __init__(self, app: ASGIApp, service: str) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        method = scope.get("method", "GET")
        method = method if method in _METHODS else "other"
        traced = None if scope.get("path") in _PROBES else \
            Traced(method, SpanKind.SERVER, parent_of_asgi(scope.get("headers", ())))

        async def send_with_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            if traced is None:
                await self.app(scope, receive, send_with_status)
            else:
                with traced as span:
                    try:
                        await self.app(scope, receive, send_with_status)
                    except Exception:
                        # In the request's trace (Starlette's own report of it, further out, is not).
                        get_logger(service=self.service).exception("request_failed", method=method,
                                                                   route=getattr(scope.get("route"), "path", None))
                        raise
                    finally:
                        if span.is_recording():  # named by its route once routed (OpenTelemetry's HTTP conventions)
                            _describe(span, method, scope, status)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            if route != "/metrics":
                HTTP_LATENCY.labels(self.service, method, route).observe(time.perf_counter() - started)
                HTTP_REQUESTS.labels(self.service, method, route, str(status)).inc()


_PROBES = frozenset({"/healthz", "/readyz", "/metrics"})


def _describe(span: Span, method: str, scope: Scope, status: int) -> None:
    """Name a sampled request's span by its route template and note the answer's status (5xx: failed)."""
    route = getattr(scope.get("route"), "path", None) or "unmatched"
    span.update_name(f"{method} {route}")
    span.set_attributes({"http.request.method": method, "http.route": route, "http.response.status_code": status})
    if status >= 500:
        span.set_status(StatusCode.ERROR)
_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})


def run_service(app: FastAPI, default_port: int) -> None:
    """Serve `app` with uvicorn on HOST:PORT (PORT=0 means `default_port`)."""
    import uvicorn

    settings = get_settings()
    uvicorn.run(app, host=settings.host, port=settings.port or default_port, log_level="warning",
                access_log=False, timeout_graceful_shutdown=5)
