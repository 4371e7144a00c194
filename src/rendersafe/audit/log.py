"""`AuditLog`: hand every record to each sink.

    audit = AuditLog([records.append])        # any callable taking an AuditRecord
    audit.emit(record)

A sink that raises is reported through `logging` and counted in `failures`; it never
stops sanitisation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from types import TracebackType

from .record import AuditRecord

__all__ = ["AuditLog", "Sink"]

Sink = Callable[[AuditRecord], None]

logger = logging.getLogger("rendersafe.audit")


class AuditLog:
    """The audit log: a list of sinks. Thread-safe as long as its sinks are."""

    def __init__(self, sinks: Iterable[Sink]) -> None:
        self.sinks = tuple(sinks)
        self.failures = 0

    def emit(self, record: AuditRecord) -> None:
        """Give `record` to every sink."""
        for sink in self.sinks:
            try:
                sink(record)
            except Exception:
                self.failures += 1
                logger.exception("rendersafe audit sink %r failed", sink)

    def close(self) -> None:
        """Close every sink that can be closed."""
        for sink in self.sinks:
            close = getattr(sink, "close", None)
            if callable(close):
                close()

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
