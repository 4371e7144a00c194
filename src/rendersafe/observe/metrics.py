"""Prometheus metrics, in `prometheus_client`'s default registry when it is installed
(`pip install 'rendersafe[metrics]'`); without it, `METRICS` is a no-op object.

    rendersafe_replies_total{source,mode}                 replies sanitised (or shadowed)
    rendersafe_findings_total{construct,action,reason,enforced}   one per reason of a finding
    rendersafe_withheld_responses_total{cause,enforced}   responses ended by the middleware
    rendersafe_client_disconnects_total                   clients gone mid-response
    rendersafe_delta_seconds                              sanitiser time per text delta
    rendersafe_held_chars                                 characters held back, per release
    rendersafe_audit_records_lost_total                   audit records a sink never wrote
    rendersafe_audit_backlog_records                      records kept for a retry
    rendersafe_audit_degraded                             1 while an audit log cannot write
    rendersafe_mode{mode}                                 1 for each mode a sanitiser runs in

Expose them as any `prometheus_client` metric is (`start_http_server`, `make_asgi_app`).
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..findings import Finding

__all__ = ["METRICS", "DeltaTimes", "Metrics"]

# Seconds of CPU per text delta: honest tokens take 1-10 µs, floods up to milliseconds.
DELTA_BUCKETS = (1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 1e-3, 5e-3, 0.025, 0.1)
# Characters held back at a release: a link's length, a paragraph's, the hold limit.
HELD_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536)
# Deltas a `DeltaTimes` counts before it merges them into the histogram.
MERGE_EVERY = 64

Merge = Callable[[list[int], float], None]
"""Adds counts per bucket of `DELTA_BUCKETS` (and one past the last) and their sum."""


class DeltaTimes:
    """The deltas one response's texts took, counted here and merged into
    `rendersafe_delta_seconds` every `MERGE_EVERY` deltas and at `flush`: observing
    a `prometheus_client` histogram (a lock per bucket and per sum) costs more than
    the usual token's feed. One response's feeds run one at a time."""

    __slots__ = ("_counts", "_merge", "_seen", "_sum")

    def __init__(self, merge: Merge) -> None:
        self._merge = merge
        self._counts = [0] * (len(DELTA_BUCKETS) + 1)
        self._sum = 0.0
        self._seen = 0

    def add(self, seconds: float) -> None:
        """Count one delta that took `seconds`."""
        self._counts[bisect_left(DELTA_BUCKETS, seconds)] += 1
        self._sum += seconds
        self._seen += 1
        if self._seen >= MERGE_EVERY:
            self.flush()

    def flush(self) -> None:
        """Merge what was counted since the last merge into the histogram."""
        if self._seen:
            counts, total = self._counts, self._sum
            self._counts, self._sum, self._seen = [0] * len(counts), 0.0, 0
            self._merge(counts, total)


class Metrics(Protocol):
    """What rendersafe counts. Every method is cheap, and does nothing when disabled."""

    enabled: bool

    def reply(self, source: str, mode: str) -> None: ...

    def finding(self, finding: Finding) -> None: ...

    def withheld(self, cause: str, *, enforced: bool) -> None: ...

    def disconnect(self) -> None: ...

    def delta_times(self) -> DeltaTimes: ...

    def held(self, chars: int) -> None: ...

    def audit_lost(self, records: int) -> None: ...

    def watch_backlog(self, read: Callable[[], float]) -> None: ...

    def watch_degraded(self, read: Callable[[], float]) -> None: ...

    def mode(self, mode: str) -> None: ...


class _NoMetrics:
    """`prometheus_client` is not installed: nothing is counted."""

    enabled = False

    def reply(self, source: str, mode: str) -> None:
        pass

    def finding(self, finding: Finding) -> None:
        pass

    def withheld(self, cause: str, *, enforced: bool) -> None:
        pass

    def disconnect(self) -> None:
        pass

    def delta_times(self) -> DeltaTimes:
        return DeltaTimes(_ignored)

    def held(self, chars: int) -> None:
        pass

    def audit_lost(self, records: int) -> None:
        pass

    def watch_backlog(self, read: Callable[[], float]) -> None:
        pass

    def watch_degraded(self, read: Callable[[], float]) -> None:
        pass

    def mode(self, mode: str) -> None:
        pass


class _Prometheus:
    """The metrics, registered once in the default registry."""

    enabled = True

    def __init__(self, client: Any) -> None:
        counter, gauge = client.Counter, client.Gauge
        self._replies = counter(
            "rendersafe_replies", "Replies sanitised (mode monitor: shadowed)", ["source", "mode"]
        )
        self._findings = counter(
            "rendersafe_findings",
            "Findings, one per reason (enforced false: shadow mode, nothing was changed)",
            ["construct", "action", "reason", "enforced"],
        )
        self._withheld = counter(
            "rendersafe_withheld_responses",
            "Responses the middleware refused or ended early (enforced false: would have)",
            ["cause", "enforced"],
        )
        self._disconnects = counter(
            "rendersafe_client_disconnects", "Clients that went away mid-response"
        )
        self._delta = _MergedHistogram(
            client,
            "rendersafe_delta_seconds",
            "Seconds the middleware's sanitiser took over one text delta (wall clock)",
            DELTA_BUCKETS,
        )
        self._held = _MergedHistogram(
            client,
            "rendersafe_held_chars",
            "Characters a stream held back, measured when they were released",
            HELD_BUCKETS,
        )
        self._lost = counter(
            "rendersafe_audit_records_lost", "Audit records a sink could not write, given up"
        )
        self._backlog = gauge(
            "rendersafe_audit_backlog_records", "Audit records kept for a retry, over all logs"
        )
        self._degraded = gauge(
            "rendersafe_audit_degraded",
            "1 while an audit log holds records it could not write, or its writer stopped",
        )
        self._mode = gauge("rendersafe_mode", "1 for each mode a sanitiser was built in", ["mode"])

    def reply(self, source: str, mode: str) -> None:
        self._replies.labels(source, mode).inc()

    def finding(self, finding: Finding) -> None:
        enforced = "true" if finding.enforced else "false"
        for reason in finding.reasons:
            self._findings.labels(finding.kind, finding.action, reason, enforced).inc()

    def withheld(self, cause: str, *, enforced: bool) -> None:
        self._withheld.labels(cause, "true" if enforced else "false").inc()

    def disconnect(self) -> None:
        self._disconnects.inc()

    def delta_times(self) -> DeltaTimes:
        return DeltaTimes(self._delta.merge)

    def held(self, chars: int) -> None:
        self._held.observe(chars)

    def audit_lost(self, records: int) -> None:
        self._lost.inc(records)

    def watch_backlog(self, read: Callable[[], float]) -> None:
        self._backlog.set_function(read)

    def watch_degraded(self, read: Callable[[], float]) -> None:
        self._degraded.set_function(read)

    def mode(self, mode: str) -> None:
        self._mode.labels(mode).set(1)


class _MergedHistogram:
    """A histogram counted here and exposed as `prometheus_client` exposes one of its
    own (a collector in its registry): taken in batches (`merge`) or one value at a
    time under one lock (`observe`), where `prometheus_client`'s histogram takes a lock
    per bucket and per sum and costs more than a stream's usual step."""

    def __init__(
        self, client: Any, name: str, documentation: str, bounds: tuple[float, ...]
    ) -> None:
        from prometheus_client.core import HistogramMetricFamily  # noqa: PLC0415  # optional
        from prometheus_client.utils import floatToGoString  # noqa: PLC0415

        self._family = HistogramMetricFamily
        go_string: Callable[[float], str] = floatToGoString
        self._upper = bounds
        self._bounds = [go_string(b) for b in bounds] + ["+Inf"]
        self._name, self._documentation = name, documentation
        self._lock = threading.Lock()
        self._counts = [0] * (len(bounds) + 1)
        self._sum = 0.0
        client.REGISTRY.register(self)

    def observe(self, value: float) -> None:
        """Count one value in its bucket (a bound holds the values up to it)."""
        at = bisect_left(self._upper, value)
        with self._lock:
            self._counts[at] += 1
            self._sum += value

    def merge(self, counts: list[int], total: float) -> None:
        """Add counts per bucket (and past the last) and their sum."""
        with self._lock:
            for at, count in enumerate(counts):
                self._counts[at] += count
            self._sum += total

    def describe(self) -> Iterator[Any]:
        """The metric's name, for the registry's check of names taken."""
        yield self._family(self._name, self._documentation)

    def collect(self) -> Iterator[Any]:
        """The histogram now: cumulative counts per bound, and the sum."""
        with self._lock:
            counts, total = list(self._counts), self._sum
        cumulative, buckets = 0, []
        for bound, count in zip(self._bounds, counts, strict=True):
            cumulative += count
            buckets.append((bound, cumulative))
        yield self._family(self._name, self._documentation, buckets=buckets, sum_value=total)


def _ignored(counts: list[int], total: float) -> None:
    pass


def _load() -> Metrics:
    try:
        import prometheus_client  # noqa: PLC0415  # optional: only if installed
    except ImportError:
        return _NoMetrics()
    return _Prometheus(prometheus_client)


METRICS: Metrics = _load()
