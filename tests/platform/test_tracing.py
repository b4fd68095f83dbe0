"""Trace context: continued from a request's `traceparent`, sent on in NATS headers, written on log lines, exported
by OTLP only where the standard `OTEL_*` variables ask for it (libs/platform/tracing.py)."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from contextlib import redirect_stdout
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from fastapi import APIRouter
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.trace import SpanKind
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from libs.devservers import free_port
from libs.devservers.processes import ServiceProcess
from libs.platform.logging import configure_logging, get_logger
from libs.platform.service import create_http_service_app
from libs.platform.settings import Settings
from libs.platform.tracing import (
    Traced,
    TraceIds,
    current_ids,
    is_exporting,
    otlp_exporter,
    parent_of,
    parent_of_asgi,
    parse_traceparent,
    with_trace,
)
from services.web.api import Api
from tests.conftest import Infrastructure
from tests.e2e.client import wait_for

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


@pytest.mark.parametrize(("environ", "exporting"), [
    ({}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, True),
    ({"OTEL_TRACES_EXPORTER": "otlp"}, True),
    ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, False),
    ({"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, False),
    ({"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://collector:4318/v1/metrics"}, False),
])
def test_spans_are_exported_only_where_the_standard_variables_name_an_otlp_exporter(
        environ: dict[str, str], exporting: bool) -> None:
    assert is_exporting(environ) is exporting


def test_an_otlp_protocol_the_exporter_cannot_speak_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="http/json"):
        otlp_exporter({"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"})


def test_work_continues_the_trace_its_message_carries_and_sends_it_on() -> None:
    with Traced("process bot.turn", SpanKind.CONSUMER, parent_of({"Nats-Msg-Id": "g:1", "traceparent": PARENT})):
        ids = current_ids()
        assert ids is not None and ids[0] == TRACE_ID and ids[1] != "00f067aa0ba902b7"
        sent = with_trace({"Nats-Msg-Id": "g:2"})
    assert sent == {"Nats-Msg-Id": "g:2", "traceparent": f"00-{TRACE_ID}-{ids[1]}-00"}  # not sampled: not exported
    assert current_ids() is None and with_trace({}) == {}  # outside any work: nothing to send on


def test_work_without_a_trace_context_starts_a_trace_of_its_own() -> None:
    seen = []
    for headers in (None, {"Nats-Msg-Id": "g:1"}, {"traceparent": "not a trace context"},
                    {"traceparent": f"00-{'0' * 32}-00f067aa0ba902b7-01"}):
        with Traced("process", SpanKind.CONSUMER, parent_of(headers)):
            ids = current_ids()
            assert ids is not None and int(ids[0], 16) != 0 and int(ids[1], 16) != 0
            seen.append(ids[0])
    assert len(set(seen)) == 4 and TRACE_ID not in seen


def test_an_http_request_continues_the_trace_its_traceparent_names() -> None:
    assert parent_of_asgi([(b"host", b"x"), (b"traceparent", PARENT.encode())]) == \
        TraceIds(int(TRACE_ID, 16), 0x00f067aa0ba902b7, 1)
    assert parent_of_asgi([(b"host", b"x")]) is None


HEX = "0123456789abcdef"
traceparents = st.one_of(
    st.text(max_size=80),
    st.builds(lambda version, trace_id, span_id, flags, more, pad:
              f"{pad}{version}-{trace_id}-{span_id}-{flags}{more}{pad}",
              st.sampled_from(["00", "01", "ff", "0g", "0"]), st.sampled_from(["0" * 32, TRACE_ID, TRACE_ID.upper()]),
              st.sampled_from(["0" * 16, "00f067aa0ba902b7", "00F067AA0BA902B7"]),
              st.text(HEX, min_size=1, max_size=3), st.sampled_from(["", "-", "-ab", "\n", "x"]),
              st.sampled_from(["", " ", "\t"])),
)


@given(traceparents)
def test_a_traceparent_is_read_as_opentelemetrys_w3c_propagator_reads_it(value: str) -> None:
    theirs = trace.get_current_span(TraceContextTextMapPropagator().extract({"traceparent": value}))
    context = theirs.get_span_context()
    expected = TraceIds(context.trace_id, context.span_id, int(context.trace_flags)) if context.is_valid else None
    assert parse_traceparent(value) == expected


def test_log_lines_within_traced_work_carry_its_trace_id() -> None:
    printed = io.StringIO()
    with redirect_stdout(printed):
        configure_logging("test", "info")
        with Traced("process", SpanKind.SERVER, parent_of({"traceparent": PARENT})):
            get_logger(game_id="g").info("inside")
        get_logger().info("outside")
    inside, outside = (json.loads(line) for line in printed.getvalue().splitlines()[-2:])
    assert inside["trace_id"] == TRACE_ID and len(inside["span_id"]) == 16 and inside["service"] == "test"
    assert "trace_id" not in outside


class Collector(ThreadingHTTPServer):
    """An OTLP/HTTP receiver for traces on this machine: keeps every span it is sent, with its service's name."""

    def __init__(self, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Receive)
        self.spans: list[tuple[str, str, str, str]] = []  # (service, name, trace id, parent span id)


class _Receive(BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/v1/traces":
            request = ExportTraceServiceRequest.FromString(body)
            for resource_spans in request.resource_spans:
                service = next((attribute.value.string_value for attribute in resource_spans.resource.attributes
                                if attribute.key == "service.name"), "")
                for scope_spans in resource_spans.scope_spans:
                    self.server.spans += [(service, span.name, span.trace_id.hex(), span.parent_span_id.hex())
                                          for span in scope_spans.spans]
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: object) -> None:  # the stdlib's name
        pass


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector(free_port())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_a_service_exports_its_spans_by_otlp_where_an_operator_names_an_endpoint(
        infra: Infrastructure, collector: Collector, tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{collector.server_address[1]}"
    leaderboard = ServiceProcess("leaderboard", env=infra.env(), port=free_port(),
                                 log_path=tmp_path / "leaderboard.log",
                                 extra_env={"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_BSP_SCHEDULE_DELAY": "100"})
    leaderboard.start()
    try:
        leaderboard.wait_ready(timeout=60)
        answer = httpx.get(f"{leaderboard.url}/leaderboards/speedmosaik/kachelwand", headers={"traceparent": PARENT},
                           timeout=10)
        assert answer.status_code == 200, answer.text
        span = wait_for(lambda: next((span for span in collector.spans if span[2] == TRACE_ID), None), timeout=30)
    finally:
        leaderboard.stop()
    assert span == ("leaderboard", "GET /leaderboards/{game}/{variant}", TRACE_ID, "00f067aa0ba902b7")
    # The probes are no one's work: no spans for them, though the test polled /readyz until the service was up.
    assert not any(name.endswith(("/readyz", "/healthz", "/metrics")) for _, name, _, _ in collector.spans)


async def test_the_web_front_end_sends_its_page_requests_trace_on_to_the_services() -> None:
    seen: list[str | None] = []

    def table(request: httpx.Request) -> httpx.Response:  # stands in for the table's HTTP API
        seen.append(request.headers.get("traceparent"))
        return httpx.Response(200, json={"ok": True})

    api = Api.for_settings(Settings(auth_secret="x" * 40), transport=httpx.MockTransport(table))
    try:
        with Traced("POST /spiele/{game_id}/zug", SpanKind.SERVER, parent_of({"traceparent": PARENT})):
            await api.call("table", "POST", "/games/g/moves", token="t", json={"move": {}})
            ids = current_ids()
        await api.call("table", "GET", "/games/g/view", token="t")
    finally:
        await api.close()
    assert ids is not None and seen == [f"00-{TRACE_ID}-{ids[1]}-00", None]


async def test_a_request_that_fails_is_logged_in_its_trace() -> None:
    router = APIRouter()

    @router.get("/kaputt")
    async def broken() -> None:
        raise RuntimeError("kaputt")

    app = create_http_service_app("test", routers=[router], settings=Settings(auth_secret="x" * 40))
    printed = io.StringIO()
    with redirect_stdout(printed):
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
                answer = await client.get("/kaputt", headers={"traceparent": PARENT})
    assert answer.status_code == 500 and "kaputt" not in answer.text
    failed = [json.loads(line) for line in printed.getvalue().splitlines()
              if line.startswith("{") and '"request_failed"' in line]
    assert len(failed) == 1 and failed[0]["trace_id"] == TRACE_ID and failed[0]["route"] == "/kaputt"
    assert "RuntimeError: kaputt" in failed[0]["exception"]
