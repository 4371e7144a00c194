"""`AuditRecorder`: the records of one source under one policy, the one way anything
writes to an audit log.

    recorder = audit.recorder(Source(kind="function"), policy)
    recorder.finding(finding)                       # made and emitted
    recorder.event("error", "the upstream failed")
    line = recorder.at(Source(kind="batch", file="a.jsonl", line=3))
    pending: list[AuditRecord] = []
    request = recorder.at(source, emit=pending.append)  # collected, for `aemit` later

The policy digest is computed once, when the log makes the recorder; `at` gives the
same recorder another source (and, with `emit`, another destination) for free.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from .._build import __version__
from ..findings import Finding
from .record import AuditRecord, Event, Source

if TYPE_CHECKING:
    from .log import AuditLog

__all__ = ["AuditRecorder", "Emit"]

Emit = Callable[[AuditRecord], None]


@dataclass(frozen=True, slots=True)
class AuditRecorder:
    """Makes the records of `source` under the policy `digest` names; `emit` takes
    each one (the log's `emit`, unless the log's maker said otherwise)."""

    log: AuditLog
    source: Source
    digest: str
    emit: Emit
    enforced: bool = True  # False: the policy's mode is monitor, its records say so
    # What its error and disconnect records carry (the request's context).
    context: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def at(
        self,
        source: Source,
        *,
        emit: Emit | None = None,
        context: Mapping[str, str] | None = None,
    ) -> AuditRecorder:
        """This recorder for records from `source` (sent to `emit`, if given; its error
        and disconnect records carrying `context`, if given)."""
        return replace(
            self,
            source=source,
            emit=self.emit if emit is None else emit,
            context=self.context if context is None else MappingProxyType(dict(context)),
        )

    def finding_record(self, finding: Finding) -> AuditRecord:
        """The record of `finding`, its URL hashed with the log's key."""
        log = self.log
        return AuditRecord.of_finding(
            finding,
            self.source,
            policy_digest=self.digest,
            version=__version__,
            key=log.key,
            full_urls=log.full_urls,
        )

    def event_record(self, event: Event, message: str) -> AuditRecord:
        """The record of an error or a disconnect."""
        return AuditRecord(
            rendersafe_version=__version__,
            policy_digest=self.digest,
            event=event,
            source=self.source,
            message=message,
            context=dict(self.context),
            enforced=self.enforced,
        )

    def finding(self, finding: Finding) -> None:
        """Record `finding`."""
        self.emit(self.finding_record(finding))

    def event(self, event: Event, message: str) -> None:
        """Record an error or a disconnect."""
        self.emit(self.event_record(event, message))
