"""The files a scan writes besides fixed copies (`--json`, `--sarif`, `--audit`),
opened before the scan so a path that cannot be written fails first, by name."""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path

from .runner import ScanUsageError

__all__ = ["ReportFile", "check_appendable"]


class ReportFile:
    """A report's file: opened now (created if missing, its old content kept), written
    once the scan is done.

        report = ReportFile("report.json")   # ScanUsageError naming the path, or open
        ...                                   # the scan
        report.write(text)                    # or report.abandon() if it failed
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.created = not os.path.lexists(path)
        self.descriptor = _open(path, os.O_WRONLY | os.O_CREAT)

    def write(self, text: str) -> None:
        """Replace the file's content with `text`; `ScanUsageError` naming it if that fails."""
        try:
            if stat.S_ISREG(os.fstat(self.descriptor).st_mode):
                os.ftruncate(self.descriptor, 0)
            with os.fdopen(self.descriptor, "w", encoding="utf-8") as file:
                file.write(text)
        except OSError as exc:
            raise ScanUsageError(f"cannot write {self.path}: {exc.strerror}") from exc

    def abandon(self) -> None:
        """Close it without writing; remove it if this opened it into being."""
        os.close(self.descriptor)
        if self.created:
            Path(self.path).unlink(missing_ok=True)


def check_appendable(path: Path) -> None:
    """`ScanUsageError` naming `path` unless records can be appended to it."""
    os.close(_open(str(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT))


def _open(path: str, flags: int) -> int:
    try:
        # O_NONBLOCK: a FIFO with no reader is an error, not a wait; then blocking again.
        descriptor = os.open(path, flags | os.O_NONBLOCK | os.O_NOCTTY, 0o644)
    except OSError as exc:
        raise ScanUsageError(f"cannot write {path}: {exc.strerror}") from exc
    fcntl.fcntl(descriptor, fcntl.F_SETFL, fcntl.fcntl(descriptor, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return descriptor
