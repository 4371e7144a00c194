"""The proxy's own counters, in prometheus_client's default registry when it is
installed (without it they are kept only for `/healthz`).

    rendersafe_proxy_requests_total{route, status}   answered requests
    rendersafe_proxy_upstream_errors_total{cause}    refused, timeout, protocol, shutdown, ...
    rendersafe_proxy_rejected_total{reason}          busy (503), too_large (413),
        bad_request (400, 405), header_timeout, body_timeout (408), idle_timeout,
        client_limit (503: one address's connections)
    rendersafe_proxy_in_flight                       requests being forwarded now
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["Counters", "exposition"]


class Counters:
    """One proxy's requests in flight, and the process's counters in prometheus_client
    (one registry per process: every proxy in it adds to the same counters)."""

    def __init__(self) -> None:
        self.in_flight = 0
        self._prometheus = _prometheus()

    def request(self, route: str, status: int) -> None:
        """A request answered with `status`."""
        if self._prometheus:
            self._prometheus["requests"].labels(route=route, status=str(status)).inc()

    def upstream_error(self, cause: str) -> None:
        """The upstream failed: refused, timeout, protocol, shutdown, other."""
        if self._prometheus:
            self._prometheus["upstream_errors"].labels(cause=cause).inc()

    def rejected(self, reason: str) -> None:
        """A request refused before it was forwarded."""
        if self._prometheus:
            self._prometheus["rejected"].labels(reason=reason).inc()

    def started(self) -> None:
        """A request is being forwarded."""
        self.in_flight += 1
        if self._prometheus:
            self._prometheus["in_flight"].inc()

    def finished(self) -> None:
        """A forwarded request is over."""
        self.in_flight -= 1
        if self._prometheus:
            self._prometheus["in_flight"].dec()


@functools.cache
def _prometheus() -> dict[str, Any]:
    """The metrics, registered once per process (the registry refuses a second)."""
    try:
        import prometheus_client as prom  # noqa: PLC0415  (optional: the proxy extra)
    except ImportError:
        return {}
    return {
        "requests": prom.Counter(
            "rendersafe_proxy_requests", "Requests answered", ["route", "status"]
        ),
        "upstream_errors": prom.Counter(
            "rendersafe_proxy_upstream_errors", "Upstream failures, by cause", ["cause"]
        ),
        "rejected": prom.Counter(
            "rendersafe_proxy_rejected", "Requests refused before forwarding", ["reason"]
        ),
        "in_flight": prom.Gauge("rendersafe_proxy_in_flight", "Requests being forwarded"),
    }


def exposition() -> tuple[bytes, str] | None:
    """The default registry in Prometheus' text format, and its content type; None
    without prometheus_client."""
    try:
        import prometheus_client as prom  # noqa: PLC0415  (optional: the proxy extra)
    except ImportError:
        return None
    return prom.generate_latest(), prom.CONTENT_TYPE_LATEST
