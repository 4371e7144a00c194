"""Metrics and traces: Prometheus counters (`metrics`) and OpenTelemetry spans
(`tracing`), each a no-op when its optional package is not installed."""

from __future__ import annotations

from .metrics import METRICS, Metrics
from .tracing import ReplySpan, reply_span

__all__ = ["METRICS", "Metrics", "ReplySpan", "reply_span"]
