"""Prometheus metrics shared by all services, and the /metrics response."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest

HTTP_REQUESTS = Counter(
    "speed_http_requests_total", "HTTP requests served", ["service", "method", "route", "status"]
)
HTTP_LATENCY = Histogram(
    "speed_http_request_seconds", "HTTP request latency", ["service", "method", "route"]
)


def render_metrics() -> tuple[bytes, str]:
    """Return the Prometheus exposition of this process's metrics and its content type."""
    return generate_latest(), CONTENT_TYPE_LATEST
