"""OpenTelemetry spans, one per sanitised reply, when `opentelemetry-api` is installed
(`pip install 'rendersafe[otel]'`) and the application configured a tracer provider;
otherwise `reply_span` returns None and costs a function call.

Span `rendersafe.sanitize`, with the GenAI semantic conventions' attributes where they
exist (`gen_ai.system`, `gen_ai.request.model`, `gen_ai.operation.name`: known to the
middleware from the request) and rendersafe's own: `rendersafe.source` (run, stream,
middleware, scan), `rendersafe.mode`, `rendersafe.findings`, `rendersafe.held_chars`
(the most characters held back at once) and, on failure, `error.type`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._build import __version__

__all__ = ["SPAN_NAME", "ReplySpan", "reply_span"]

SPAN_NAME = "rendersafe.sanitize"


class ReplySpan:
    """The span of one reply, ended once with what the reply came to."""

    def __init__(self, span: Any) -> None:
        self._span = span
        self._ended = False

    def set(self, name: str, value: str | int) -> None:
        """Add an attribute (known only after the span started)."""
        self._span.set_attribute(name, value)

    def end(self, *, findings: int, held: int = 0, error: str | None = None) -> None:
        """End the span (once; later calls do nothing)."""
        if self._ended:
            return
        self._ended = True
        span = self._span
        span.set_attribute("rendersafe.findings", findings)
        span.set_attribute("rendersafe.held_chars", held)
        if error is not None:
            span.set_attribute("error.type", error)
            span.set_status(_trace.Status(_trace.StatusCode.ERROR, error))
        span.end()


def reply_span(
    source: str, mode: str, attributes: Mapping[str, str] | None = None
) -> ReplySpan | None:
    """A started span for one reply from `source`; None when nothing records it."""
    # No provider set yet: nothing records (asking the API says so too, in microseconds).
    if _trace is None or getattr(_trace, "_TRACER_PROVIDER", True) is None:
        return None
    names = {"rendersafe.source": source, "rendersafe.mode": mode, **(attributes or {})}
    span = _tracer.start_span(SPAN_NAME, attributes=names)
    if not span.is_recording():
        return None
    return ReplySpan(span)


def _load() -> Any:
    try:
        from opentelemetry import trace  # noqa: PLC0415  # optional: only if installed
    except ImportError:
        return None
    return trace


_trace = _load()
# A proxy until the application sets a provider; it follows the provider set later.
_tracer: Any = _trace.get_tracer("rendersafe", __version__) if _trace is not None else None
