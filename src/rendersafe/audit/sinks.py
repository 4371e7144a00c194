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

__all__ = ["JsonlSink", "LoggingSink"]


class JsonlSink:
    """Appends records to a JSONL file, whole lines only.

    Many processes and threads may share one file: each batch is one locked append,
    so lines never interleave. A batch is written whole or not at all: a write cut
    short (a full disk, a file-size limit) is truncated back and raises, so the log can
    retry the batch without writing any record twice. A writer killed mid-write leaves
    at most one partial line, which the next write starts a new line after.
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
        """Append `records`, one line each, in one locked write."""
        data = b"".join(_line(record) for record in records)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            # Another writer may have died mid-line: never append to its partial line.
            size = os.fstat(self._fd).st_size
            if size and os.pread(self._fd, 1, size - 1) != b"\n":
                data = b"\n" + data
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._fd, view) :]
                if self.fsync:
                    os.fsync(self._fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, size)  # no part of the batch stays
                raise
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

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
