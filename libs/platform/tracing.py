"""One trace id follows a move across the services: W3C trace context in HTTP and NATS headers, the ids in every log
line; OpenTelemetry spans leave the process (OTLP) only where an operator sets the standard `OTEL_*` variables.

Every unit of work a service does for someone runs in a span (`Traced`): an HTTP request (`RequestMetrics`), a NATS
command (`rpc`), a message taken from a stream (`consumers`). Its parent is the trace context that came with the
request or message (`traceparent`), else it starts a trace of its own. Whatever the work sends on (a command, an
append to a game's log, a bot turn, a fact) carries the current context in its NATS headers (`with_trace`), never in
the payload: events are hashed and signed, and their bytes must not depend on who traced them.

A consumer's span is the child of the message's context, not a span link: a message is handled alone (never in a
batch), and the point is that the move, the event it appended, the follow-up, the computer's answer, the game's end,
the payout and the lists share one trace id. So a computer's moves belong to the trace of the human move (or game
start) that set them off; a game of computers only is one trace from its start command to its end.

Two ways, one behaviour. Without export (the default) a span is only its ids, kept in a context variable of this
module and read and written as W3C `traceparent` here: a few Python calls per command or message. The OpenTelemetry
API's context, spans and propagators take about five times as many calls per turn (a whole turn's CPU +6 to +9 %
through them, +4 % this way; docs/benchmarks.md, "Tracing"). With export the SDK's tracer makes each span (sampled by
`OTEL_TRACES_SAMPLER`, batched, sent by OTLP) and it is also made current in OpenTelemetry's context; the ids here
are then the SDK span's. Only W3C trace context is read and written (`traceparent`; `tracestate` and baggage are
not carried: the platform sets neither).
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterable, Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass
from types import TracebackType

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from opentelemetry.trace import INVALID_SPAN, NonRecordingSpan, Span, SpanContext, SpanKind, StatusCode, TraceFlags

TRACER = "speed-platform"
TRACEPARENT = "traceparent"
_TRACEPARENT_KEY = TRACEPARENT.encode("latin-1")
_TRACEPARENT = re.compile(r"^[ \t]*([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?[ \t]*$")
"""W3C Trace Context's `traceparent` (version, trace id, parent id, flags), as OpenTelemetry's propagator reads it."""
_TRACEPARENT_MAX = 512
_ZERO_TRACE, _ZERO_SPAN = "0" * 32, "0" * 16


@dataclass(frozen=True, slots=True)
class TraceIds:
    """A span's place in its trace: the trace id, the span's own id, the W3C flags (1: sampled)."""

    trace_id: int
    span_id: int
    flags: int = 0

    def traceparent(self) -> str:
        """The W3C `traceparent` header naming this span as the parent."""
        return f"00-{self.trace_id:032x}-{self.span_id:016x}-{self.flags:02x}"

    def log_fields(self) -> dict[str, str]:
        """The ids as a log line carries them (hex): for a line written after the span ended, e.g. once the
        transaction its work was part of has committed."""
        return {"trace_id": f"{self.trace_id:032x}", "span_id": f"{self.span_id:016x}"}


_current: ContextVar[TraceIds | None] = ContextVar("speed_trace", default=None)
_provider: TracerProvider | None = None
_tracer: trace.Tracer | None = None
"""The SDK's tracer where spans are recorded (export, or a test's processor); None while spans are ids only
(no export, and before `configure_tracing` runs: tools, tests that call the plumbing directly)."""
_random = random.Random()  # seeded from the OS; as the SDK's ids, which come from `random` too: unique, not secret

OTLP_PROTOCOLS = ("http/protobuf", "grpc")


def is_exporting(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the standard variables ask for spans to be exported: an OTLP endpoint is named (for all signals or
    for traces) or `OTEL_TRACES_EXPORTER=otlp` is set; `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true`
    keep export off. Unset, nothing leaves the process."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporters = {name.strip().lower() for name in environ.get("OTEL_TRACES_EXPORTER", "").split(",") if name.strip()}
    if "none" in exporters:
        return False
    return "otlp" in exporters or bool(environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
                                       or environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def otlp_exporter(environ: Mapping[str, str] = os.environ) -> SpanExporter:
    """The OTLP span exporter the standard variables describe: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (or
    `OTEL_EXPORTER_OTLP_PROTOCOL`) `http/protobuf` (the default) or `grpc`; the exporter reads the endpoint, headers,
    timeout, compression and certificates from the environment itself. Raises ValueError for another protocol."""
    protocol = (environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
                or "http/protobuf").strip().lower()
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter

        return GrpcExporter()
    if protocol == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter

        return HttpExporter()
    raise ValueError(f"OTEL_EXPORTER_OTLP_PROTOCOL {protocol!r} is not supported: use one of {OTLP_PROTOCOLS}")


def configure_tracing(service: str, processors: Iterable[SpanProcessor] = ()) -> TracerProvider:
    """Set up this process's tracer once (later calls return the first provider unchanged: in-process tests run
    several services in one process). With export (`is_exporting`) spans are sampled by `OTEL_TRACES_SAMPLER`
    (default: a child follows its parent's decision, a new trace is sampled) and sent in batches (`OTEL_BSP_*`);
    `processors` (tests: an in-memory exporter) turn recording on just the same. Else nothing is sampled and spans
    are ids only. The resource names `service` (`OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` add to it)."""
    global _provider, _tracer
    if _provider is not None:
        return _provider
    resource = Resource.create({SERVICE_NAME: os.environ.get("OTEL_SERVICE_NAME") or service})
    added = list(processors)
    if is_exporting():
        added.append(BatchSpanProcessor(otlp_exporter()))
    if added:
        provider = TracerProvider(resource=resource)  # the sampler from OTEL_TRACES_SAMPLER
        for processor in added:
            provider.add_span_processor(processor)
        _tracer = provider.get_tracer(TRACER)
    else:
        provider = TracerProvider(sampler=ALWAYS_OFF, resource=resource)
    trace.set_tracer_provider(provider)  # for any library's instrumentation: the same spans, or none
    _provider = provider
    return provider


def tracer_provider() -> TracerProvider | None:
    """The provider `configure_tracing` set up, if it ran."""
    return _provider


def parse_traceparent(value: str) -> TraceIds | None:
    """The parent a W3C `traceparent` value names, or None when it names none (malformed, version ff, an id of
    zeros, or version 00 with more fields): what OpenTelemetry's W3C propagator accepts, no more."""
    if len(value) > _TRACEPARENT_MAX:
        return None
    match = _TRACEPARENT.search(value)
    if match is None:
        return None
    version, trace_id, span_id, flags, more = match.groups()
    if trace_id == _ZERO_TRACE or span_id == _ZERO_SPAN or version == "ff" or (version == "00" and more):
        return None
    return TraceIds(int(trace_id, 16), int(span_id, 16), int(flags, 16))


def parent_of(headers: Mapping[str, str] | None) -> TraceIds | None:
    """The parent a NATS message names in its headers, or None (its work starts a trace)."""
    if not headers:
        return None
    value = headers.get(TRACEPARENT)
    return parse_traceparent(value) if value else None


def parent_of_asgi(raw_headers: Iterable[tuple[bytes, bytes]]) -> TraceIds | None:
    """The parent an HTTP request names in its `traceparent` header (ASGI headers, names in lower case), or None."""
    for key, value in raw_headers:
        if key == _TRACEPARENT_KEY:
            return parse_traceparent(value.decode("latin-1"))
    return None


def with_trace(headers: dict[str, str]) -> dict[str, str]:
    """Add the current span as `traceparent` to `headers` of a NATS message this work sends on, and return them;
    outside a span nothing is added."""
    ids = _current.get()
    if ids is not None:
        headers[TRACEPARENT] = ids.traceparent()
    return headers


def current_ids() -> tuple[str, str] | None:
    """The current span's trace id and span id in hex (as in `traceparent`), or None outside any span."""
    ids = _current.get()
    return None if ids is None else (f"{ids.trace_id:032x}", f"{ids.span_id:016x}")


class Traced:
    """A span made current for a block of work: `with Traced(name, kind, parent) as span: ...`.

    Its parent is `parent` (None: a trace of its own, never the ambient span's). Without export it is only its
    ids and `span` is OpenTelemetry's invalid span (not recording); with export the SDK's tracer starts it (with
    `attributes`), it is current in OpenTelemetry's context too, and an exception leaving the block marks it failed.
    """

    __slots__ = ("_otel_token", "_token", "ids", "span")

    def __init__(self, name: str, kind: SpanKind, parent: TraceIds | None,
                 attributes: Mapping[str, str] | None = None) -> None:
        self._token: Token[TraceIds | None] | None = None
        self._otel_token: object = None
        if _tracer is None:
            self.span: Span = INVALID_SPAN
            self.ids = TraceIds(parent.trace_id if parent is not None else _random.getrandbits(128) or 1,
                                _random.getrandbits(64) or 1)
            return
        context = Context() if parent is None else trace.set_span_in_context(NonRecordingSpan(SpanContext(
            parent.trace_id, parent.span_id, is_remote=True, trace_flags=TraceFlags(parent.flags))), Context())
        self.span = _tracer.start_span(name, context=context, kind=kind, attributes=attributes)
        span_context = self.span.get_span_context()
        self.ids = TraceIds(span_context.trace_id, span_context.span_id, int(span_context.trace_flags))

    def __enter__(self) -> Span:
        self._token = _current.set(self.ids)
        if self.span is not INVALID_SPAN:
            self._otel_token = otel_context.attach(trace.set_span_in_context(self.span))
        return self.span

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._token is not None:
            _current.reset(self._token)
        if self.span is INVALID_SPAN:
            return
        otel_context.detach(self._otel_token)  # type: ignore[arg-type]  # the token attach returned
        if error is not None and isinstance(error, Exception) and self.span.is_recording():
            self.span.record_exception(error)
            self.span.set_status(StatusCode.ERROR, type(error).__name__)
        self.span.end()


def nats_attributes(subject: str, **more: str) -> dict[str, str]:
    """The span attributes of work on a NATS subject (OpenTelemetry's messaging conventions)."""
    return {"messaging.system": "nats", "messaging.destination.name": subject, **more}
