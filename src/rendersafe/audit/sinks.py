"""Where audit records go: a JSONL file, Python `logging`, or any callable.

JsonlSink("audit.jsonl")            # one JSON object per line, append-only
LoggingSink("rendersafe.audit")     # one log record per audit record
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
from pathlib import Path

from ..errors import AuditError
from .record import AuditRecord

__all__ = ["JsonlSink", "LoggingSink", "SinkWriteError"]


class SinkWriteError(AuditError):
    """A sink wrote the first `written` records of a batch, then failed (`__cause__`
    says why): the log keeps the rest, in order, for a retry."""

    def __init__(self, written: int, cause: BaseException) -> None:
        self.written = written
        super().__init__(f"{written} records written, then: {type(cause).__name__}")


class JsonlSink:
    """Appends records to a JSONL file, whole lines only.

    Many processes and threads may share one file: each batch is one locked append,
    so lines never interleave. A write cut short (a full disk, a file-size limit) keeps
    the whole lines that fit, truncates the cut one back and raises `SinkWriteError`
    saying how many were written: the log retries the rest, in order, and never writes
    a record twice. A writer killed mid-write leaves at most one partial line, which the
    next write starts a new line after.
    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._fd = -1
        self.reopen()

    def reopen(self) -> None:
        """Open the file (again, in a forked child: a lock needs its own description)."""
        if self._fd >= 0:
            os.close(self._fd)
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o640)
        except OSError as exc:
            raise AuditError(
                f"cannot open the audit file {str(self.path)!r}: {exc.strerror}; "
                "check the directory exists and is writable"
            ) from exc

    def write_batch(self, records: list[AuditRecord]) -> None:
        """Append `records`, one line each, in one locked write; `SinkWriteError` with
        the number of whole lines that fit if it is cut short."""
        data = b"".join(_line(record) for record in records)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            # Another writer may have died mid-line: never append to its partial line.
            size = os.fstat(self._fd).st_size
            lead = 1 if size and os.pread(self._fd, 1, size - 1) != b"\n" else 0
            data = b"\n" * lead + data
            written = 0
            try:
                while written < len(data):
                    written += os.write(self._fd, data[written:])
                if self.fsync:
                    os.fsync(self._fd)
            except BaseException as exc:
                kept = self._keep_whole(data, size, written, lead)
                if not isinstance(exc, Exception):
                    raise
                raise SinkWriteError(kept, exc) from exc
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _keep_whole(self, data: bytes, size: int, written: int, lead: int) -> int:
        """After a write cut short at `written` bytes of `data`: truncate the file back
        to the last whole line; how many records that keeps."""
        whole = data.rfind(b"\n", 0, written) + 1
        if whole <= lead:
            whole = 0  # not one record: nothing of the batch stays
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, size + whole)
            if whole and self.fsync:
                os.fsync(self._fd)
        return data.count(b"\n", lead, whole)

    def __call__(self, record: AuditRecord) -> None:
        self.write_batch([record])

    def close(self) -> None:
        """Close the file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __repr__(self) -> str:
        return f"JsonlSink({str(self.path)!r})"


class LoggingSink:
    """Logs each record as JSON on a `logging` logger, so the records reach whatever
    log shipping the service has; the record is also in `extra["rendersafe_audit"]`."""

    def __init__(self, name: str = "rendersafe.audit", level: int = logging.INFO) -> None:
        self.logger = logging.getLogger(name)
        self.level = level

    def __call__(self, record: AuditRecord) -> None:
        self.logger.log(
            self.level,
            "%s",
            record.model_dump_json(),
            extra={"rendersafe_audit": record.model_dump(mode="json")},
        )

    def __repr__(self) -> str:
        return f"LoggingSink({self.logger.name!r})"


def _line(record: AuditRecord) -> bytes:
    """One record as a JSON line; text that is not valid Unicode (a lone surrogate from
    a caller's context) is escaped rather than lose the record."""
    try:
        return (record.model_dump_json() + "\n").encode()
    except (ValueError, UnicodeError):
        return (json.dumps(record.model_dump(mode="python"), default=str) + "\n").encode()
