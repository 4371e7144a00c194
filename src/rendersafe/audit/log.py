"""`AuditLog`: records go to every sink from a background writer thread.

    with AuditLog([JsonlSink("audit.jsonl"), LoggingSink("rendersafe.audit")]) as audit:
        Sanitizer(policy, audit=audit).run(reply, context={"conversation_id": "c1"})

`emit` queues a record and returns; the writer hands records to the sinks in batches.
The queue is bounded: when it is full, `emit` waits (`aemit` waits without blocking
the event loop) rather than drop a record. `close()` (also at exit) writes everything
queued and closes the sinks.

A sink that fails (a full disk) keeps what it could not write: each sink has a backlog
of up to `retry_records` records, retried before its next batch, on `flush()`, every
`retry_interval` seconds while it is not empty, and at `close()`. A sink that writes
part of a batch (`SinkWriteError`: the disk had room for some) keeps only the rest, so
the backlog drains as space returns, a record at a time if need be, in order. Past the
bound the oldest records are dropped and counted as lost; so are those still unwritten
when the log closes. Every failure and every loss is logged on `rendersafe.audit_failures`
(naming the sink, never a record's content) and counted (`failures`, `lost`,
`backlog`); the next batch a sink writes after a loss starts with a `lost` record
holding the count, which `rendersafe audit summary` adds up. `broken` is true while
any sink holds records it could not write, `degraded` also when the writer has stopped
(the `rendersafe_audit_degraded` gauge; `rendersafe proxy`'s `/healthz`); sanitisation
goes on (the middleware holds replies back instead when the policy says
`audit_required`: `awritten`).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import errno
import logging
import os
import queue
import threading
import weakref
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Protocol, runtime_checkable

from .._build import __version__
from ..config import AUDIT_KEY_ENV
from ..findings import Finding
from ..observe import METRICS
from ..policy import Policy
from ..urls.redact import exception_text
from .record import AuditRecord, Event, Source, policy_digest
from .recorder import AuditRecorder, Emit
from .sinks import SinkWriteError

__all__ = ["AuditLog", "BatchSink", "Sink", "audit_key"]

Sink = Callable[[AuditRecord], None]
# Not under "rendersafe.audit" (LoggingSink's default): a handler that fails there
# must not be asked to log its own failure.
logger = logging.getLogger("rendersafe.audit_failures")

_STOP = object()
_BATCH = 512  # records handed to a sink at once, at most


class _Barrier:
    """Put on the queue after some records: done once they were handed to the sinks,
    `ok` if no sink holds a record it could not write."""

    def __init__(self, future: asyncio.Future[bool] | None = None) -> None:
        self.ok = False
        self._event = threading.Event()
        self._future = future

    def done(self, ok: bool) -> None:
        self.ok = ok
        self._event.set()
        if self._future is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                self._future.get_loop().call_soon_threadsafe(_settle, self._future, ok)

    def wait(self) -> bool:
        self._event.wait()
        return self.ok


def _settle(future: asyncio.Future[bool], ok: bool) -> None:
    if not future.done():
        future.set_result(ok)


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
        retry_records: int = 10_000,
        retry_interval: float = 1.0,
    ) -> None:
        self.sinks = tuple(sinks)
        self.key = audit_key(key)
        self.full_urls = full_urls
        self.failures = 0  # failed writes (a batch a sink raised on)
        self.lost = 0  # records a sink never wrote: past `retry_records`, or at close
        self.broken = False
        self.retry_records = retry_records
        self.retry_interval = retry_interval
        # Per sink: the records it could not write yet, and those lost since the last
        # `lost` record it wrote.
        self._backlogs: list[list[AuditRecord]] = [[] for _ in self.sinks]
        self._unmarked = [0] * len(self.sinks)
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
        # What the parent could not write is the parent's to retry, not ours too.
        self._backlogs = [[] for _ in self.sinks]
        self._unmarked = [0] * len(self.sinks)
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

    @property
    def backlog(self) -> int:
        """Records kept for a retry, over all sinks."""
        return sum(map(len, self._backlogs))

    @property
    def degraded(self) -> bool:
        """Does a sink hold records it could not write, or has the writer stopped?"""
        return self.broken or (not self._closed and not self._writer.is_alive())

    async def awritten(self) -> bool:
        """Wait (without blocking the event loop) until every record queued so far was
        handed to the sinks; True if every sink wrote them (nothing is kept for a retry)."""
        if self._closed or not self._writer.is_alive():
            return not self.broken
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        barrier = _Barrier(future)
        try:
            self._queue.put_nowait(barrier)
        except queue.Full:
            await asyncio.to_thread(self._queue.put, barrier)
        return await future

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
        enforced = policy.mode == "enforce"
        return AuditRecorder(self, source, policy_digest(policy), emit or self.emit, enforced)

    def finding_record(self, finding: Finding, source: Source, policy_digest: str) -> AuditRecord:
        """The record of `finding`, its URL hashed with this log's key."""
        return AuditRecorder(self, source, policy_digest, self.emit).finding_record(finding)

    def event_record(
        self, event: Event, source: Source, policy_digest: str, message: str
    ) -> AuditRecord:
        """The record of an error or a disconnect."""
        return AuditRecorder(self, source, policy_digest, self.emit).event_record(event, message)

    def flush(self) -> bool:
        """Wait until every record queued so far has been handed to the sinks, retrying
        what a sink could not write before; True if nothing is left to retry."""
        if self._closed or not self._writer.is_alive():
            return not self.broken
        barrier = _Barrier()
        self._queue.put(barrier)
        return barrier.wait()

    def close(self) -> None:
        """Write everything queued, stop the writer and close the sinks. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._queue.put(_STOP)
        self._writer.join()
        self._drain()  # records that waited for room while the writer stopped
        self._give_up()
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
            try:
                timeout = self.retry_interval if self.broken else None
                batch = [self._queue.get(timeout=timeout)]
            except queue.Empty:
                self._deliver([])  # retry what the sinks hold
                continue
            while len(batch) < _BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self._deliver([item for item in batch if isinstance(item, AuditRecord)])
            finally:
                for item in batch:
                    if isinstance(item, _Barrier):
                        item.done(not self.broken)
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
            elif isinstance(item, _Barrier):
                item.done(False)  # the log is closing: see `lost`
        self._deliver(records)

    def _deliver(self, records: list[AuditRecord]) -> None:
        for index, sink in enumerate(self.sinks):
            backlog = self._backlogs[index]
            if not records and not backlog:
                continue
            marker = self._lost_record(index)
            batch = [marker, *backlog, *records] if marker else [*backlog, *records]
            try:
                _write(sink, batch)
            except _SinkError as failed:
                self.failures += 1
                if marker is not None and failed.done:
                    self._unmarked[index] = 0
                rest = [r for r in batch[failed.done :] if r is not marker]
                self._backlogs[index] = self._keep(index, rest, failed.cause, again=bool(backlog))
                continue
            self._unmarked[index] = 0
            self._backlogs[index] = []
            if backlog:
                _report(
                    logging.WARNING,
                    "rendersafe audit sink %r works again: %d records kept for a retry written",
                    sink,
                    len(backlog),
                )
        self.broken = any(self._backlogs)

    def _keep(
        self, index: int, batch: list[AuditRecord], exc: Exception, *, again: bool
    ) -> list[AuditRecord]:
        """What sink `index` keeps of the `batch` it could not write; the rest is lost.
        A retry that fails `again` without losing anything is logged at DEBUG only."""
        sink, dropped = self.sinks[index], max(0, len(batch) - self.retry_records)
        self._unmarked[index] += dropped
        self.lost += dropped
        if dropped:
            METRICS.audit_lost(dropped)
        _report(
            logging.ERROR if dropped or not again else logging.DEBUG,
            "rendersafe audit sink %r failed on %d records (%s): %d kept for a retry, "
            "%d lost now, %d lost in all",
            sink,
            len(batch),
            _failure(exc),
            len(batch) - dropped,
            dropped,
            self.lost,
        )
        return batch[dropped:]

    def _lost_record(self, index: int) -> AuditRecord | None:
        """The record that tells sink `index`'s readers how many records it lost."""
        count = self._unmarked[index]
        if not count:
            return None
        return AuditRecord(
            rendersafe_version=__version__,
            policy_digest="",
            event="lost",
            source=Source(kind="function"),
            message=f"{count} audit records could not be written to this sink and are lost",
            lost=count,
        )

    def _give_up(self) -> None:
        """At close: one last try, then what is still unwritten is lost."""
        self._deliver([])
        for index, backlog in enumerate(self._backlogs):
            if backlog:
                self.lost += len(backlog)
                METRICS.audit_lost(len(backlog))
                _report(
                    logging.ERROR,
                    "rendersafe audit sink %r is closed with %d records it could not "
                    "write: they are lost (%d lost in all)",
                    self.sinks[index],
                    len(backlog),
                    self.lost,
                )
                self._backlogs[index] = []


class _SinkError(Exception):
    """A sink raised `cause` after writing the first `done` records of a batch."""

    def __init__(self, done: int, cause: Exception) -> None:
        super().__init__(done, cause)
        self.done, self.cause = done, cause


def _write(sink: Sink, records: list[AuditRecord]) -> None:
    if isinstance(sink, BatchSink):
        try:
            sink.write_batch(records)  # whole records only (JsonlSink truncates back)
        except SinkWriteError as exc:
            cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
            raise _SinkError(min(exc.written, len(records)), cause) from exc
        except Exception as exc:
            raise _SinkError(0, exc) from exc
        return
    for done, record in enumerate(records):
        try:
            sink(record)
        except Exception as exc:
            raise _SinkError(done, exc) from exc


def _failure(exc: Exception) -> str:
    """What failed, without the text of a record: an OSError's errno and reason, else
    the exception's type and its message redacted."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"{errno.errorcode.get(exc.errno, exc.errno)}: {exc.strerror}"
    return exception_text(exc)


def _report(level: int, message: str, *args: object) -> None:
    with contextlib.suppress(Exception):  # a failing log handler must not stop the writer
        logger.log(level, message, *args)


def audit_key(key: bytes | str | None = None) -> bytes:
    """`key` as bytes; without one, `$RENDERSAFE_AUDIT_KEY`, else a random key."""
    if key is None:
        key = os.environ.get(AUDIT_KEY_ENV) or os.urandom(32)
    return key.encode() if isinstance(key, str) else key


_LIVE: weakref.WeakSet[AuditLog] = weakref.WeakSet()
METRICS.watch_backlog(lambda: sum(log.backlog for log in list(_LIVE)))
METRICS.watch_degraded(lambda: float(any(log.degraded for log in list(_LIVE))))


def _after_fork_in_child() -> None:
    # A forked child (gunicorn --preload, multiprocessing) has no writer thread:
    # give each open log one, and its sinks their own file descriptions.
    for log in list(_LIVE):
        log._after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
