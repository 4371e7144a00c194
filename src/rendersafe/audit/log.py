"""`AuditLog`: records go to every sink from a background writer thread.

    with AuditLog([JsonlSink("audit.jsonl"), LoggingSink("rendersafe.audit")]) as audit:
        Sanitizer(policy, audit=audit).run(reply, context={"conversation_id": "c1"})

`emit` queues a record and returns; the writer hands records to the sinks in batches.
The queue is bounded: when it is full, `emit` waits (`aemit` waits without blocking
the event loop) rather than drop a record. `close()` (also at exit) writes everything
queued and closes the sinks. A sink that fails is reported through `logging` and
counted in `failures`, and `broken` stays true until a write succeeds again;
sanitisation goes on (the middleware answers 503 instead when the policy says
`audit_required`).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import queue
import threading
import weakref
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Protocol, runtime_checkable

from ..config import AUDIT_KEY_ENV
from ..findings import Finding
from ..policy import Policy
from .record import AuditRecord, Event, Source, policy_digest
from .recorder import AuditRecorder, Emit

__all__ = ["AuditLog", "BatchSink", "Sink", "audit_key"]

Sink = Callable[[AuditRecord], None]
# Not under "rendersafe.audit" (LoggingSink's default): a handler that fails there
# must not be asked to log its own failure.
logger = logging.getLogger("rendersafe.audit_failures")

_STOP = object()
_BATCH = 512  # records handed to a sink at once, at most


@runtime_checkable
class BatchSink(Protocol):
    """A sink that takes many records at once (one write for a batch)."""

    def write_batch(self, records: list[AuditRecord]) -> None: ...


class AuditLog:
    """The audit log. Thread-safe; one writer thread per log.

    `key` keys the hash of each removed URL (`url_hmac`): give the same key to every
    process whose records you want to match (or set `RENDERSAFE_AUDIT_KEY`); without
    one, a random key makes hashes comparable within this log only. `full_urls=True`
    stores whole URLs instead of redacted ones: the log then holds what was leaked.
    """

    def __init__(
        self,
        sinks: Iterable[Sink],
        *,
        key: bytes | str | None = None,
        full_urls: bool = False,
        queue_size: int = 10_000,
    ) -> None:
        self.sinks = tuple(sinks)
        self.key = audit_key(key)
        self.full_urls = full_urls
        self.failures = 0
        self.broken = False
        self._queue_size = queue_size
        self._closed = False
        self._start()
        atexit.register(self.close)
        _LIVE.add(self)

    def _start(self) -> None:
        self._queue: queue.Queue[object] = queue.Queue(maxsize=self._queue_size)
        self._lock = threading.Lock()
        self._writer = threading.Thread(target=self._write, name="rendersafe-audit", daemon=True)
        self._writer.start()

    def _after_fork(self) -> None:
        if self._closed:
            return
        for sink in self.sinks:
            reopen = getattr(sink, "reopen", None)
            if callable(reopen):
                reopen()
        self._start()

    def emit(self, record: AuditRecord) -> None:
        """Queue `record`; wait while the queue is full."""
        with self._lock:
            self._put(record, block=True)

    async def aemit(self, record: AuditRecord) -> None:
        """Queue `record` from async code: a full queue suspends the caller only."""
        # Never wait on the event loop: not for room, not for the lock a waiting
        # emitter holds; a thread does the waiting.
        if self._lock.acquire(blocking=False):
            try:
                if self._put(record, block=False):
                    return
            finally:
                self._lock.release()
        await asyncio.to_thread(self.emit, record)

    def _put(self, record: AuditRecord, *, block: bool) -> bool:
        """Queue `record` (the caller holds the lock); False if the queue is full and
        `block` is False.

        The lock is held while waiting for room, so close() cannot stop the writer
        between the check that the log is open and the put: a record `emit` accepted
        is always written. (The writer keeps taking records meanwhile.)"""
        if self._closed:
            raise RuntimeError("the audit log is closed; records can no longer be written")
        if not self._writer.is_alive():
            self.broken = True
            raise RuntimeError("the audit log's writer has stopped")
        try:
            self._queue.put(record, block=block)
        except queue.Full:
            return False
        return True

    def recorder(
        self, source: Source, policy: Policy, *, emit: Emit | None = None
    ) -> AuditRecorder:
        """The recorder of `source`'s records under `policy` (its digest computed once).

        Records go to `emit` if given (a list's `append`, to hand them to `aemit`
        later), else straight to this log's `emit`."""
        return AuditRecorder(self, source, policy_digest(policy), emit or self.emit)

    def finding_record(self, finding: Finding, source: Source, policy_digest: str) -> AuditRecord:
        """The record of `finding`, its URL hashed with this log's key."""
        return AuditRecorder(self, source, policy_digest, self.emit).finding_record(finding)

    def event_record(
        self, event: Event, source: Source, policy_digest: str, message: str
    ) -> AuditRecord:
        """The record of an error or a disconnect."""
        return AuditRecorder(self, source, policy_digest, self.emit).event_record(event, message)

    def flush(self) -> None:
        """Wait until every record queued so far has been handed to the sinks."""
        self._queue.join()

    def close(self) -> None:
        """Write everything queued, stop the writer and close the sinks. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._queue.put(_STOP)
        self._writer.join()
        self._drain()  # records that waited for room while the writer stopped
        for sink in self.sinks:
            close = getattr(sink, "close", None)
            if callable(close):
                close()
        atexit.unregister(self.close)

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _write(self) -> None:
        while True:
            batch = [self._queue.get()]
            while len(batch) < _BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self._deliver([item for item in batch if isinstance(item, AuditRecord)])
            finally:
                for _ in batch:
                    self._queue.task_done()
            if _STOP in batch:
                return

    def _drain(self) -> None:
        records = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            self._queue.task_done()
            if isinstance(item, AuditRecord):
                records.append(item)
        self._deliver(records)

    def _deliver(self, records: list[AuditRecord]) -> None:
        if not records:
            return
        failed = False
        for sink in self.sinks:
            try:
                if isinstance(sink, BatchSink):
                    sink.write_batch(records)
                else:
                    for record in records:
                        sink(record)
            except Exception as exc:
                failed = True
                self.failures += 1
                _report_failure(sink, len(records), exc)
        self.broken = failed


def _report_failure(sink: object, count: int, exc: Exception) -> None:
    with contextlib.suppress(Exception):  # a failing log handler must not stop the writer
        logger.error("rendersafe audit sink %r failed on %d records: %r", sink, count, exc)


def audit_key(key: bytes | str | None = None) -> bytes:
    """`key` as bytes; without one, `$RENDERSAFE_AUDIT_KEY`, else a random key."""
    if key is None:
        key = os.environ.get(AUDIT_KEY_ENV) or os.urandom(32)
    return key.encode() if isinstance(key, str) else key


_LIVE: weakref.WeakSet[AuditLog] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # A forked child (gunicorn --preload, multiprocessing) has no writer thread:
    # give each open log one, and its sinks their own file descriptions.
    for log in list(_LIVE):
        log._after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
