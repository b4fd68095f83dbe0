"""JSON-lines logging through structlog, with the service name and the trace id of the work on every line."""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

from libs.platform.tracing import current_ids

_debug = False


def _add_trace(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Write the current span's trace and span id (hex, as in `traceparent`) on the line: the ids that follow a
    move from service to service (libs/platform/tracing.py)."""
    ids = current_ids()
    if ids is not None:
        event.setdefault("trace_id", ids[0])
        event.setdefault("span_id", ids[1])
    return event


def _add_service(service: str) -> Any:
    """A processor that names `service` on every line that does not name one (HTTP requests run outside the
    context the lifespan bound `service` in)."""

    def add(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        event.setdefault("service", service)
        return event

    return add


def configure_logging(service: str, level: str = "info") -> None:
    """Send JSON log lines to stdout, each carrying `service` (and `trace_id`, `span_id` within traced work)."""
    global _debug
    _debug = logging.getLevelName(level.upper()) <= logging.DEBUG
    logging.basicConfig(format="%(message)s", stream=sys.stdout, level=level.upper())
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            _add_service(service),
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _add_trace,
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(),
        cache_logger_on_first_use=True,
    )
    structlog.contextvars.bind_contextvars(service=service)


def get_logger(**bound: Any) -> Any:
    """Return a structlog logger with `bound` fields."""
    return structlog.get_logger().bind(**bound)


def debug_enabled() -> bool:
    """Whether debug lines are written (`LOG_LEVEL=debug`): a busy path asks before it builds one, since even a
    line that is dropped costs 2–5 µs to hand to structlog."""
    return _debug
