"""Where a scan's reports go (`--output-format` and `-o`, `--json`, `--sarif`,
`--html`) and the audit file: each file opened before the scan, so a path that cannot
be written fails first, by name."""

from __future__ import annotations

import fcntl
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .runner import ScanUsageError

__all__ = ["ReportFile", "Requested", "Stdout", "check_appendable", "requested"]


@dataclass(frozen=True)
class Requested:
    """A report asked for: its format, and its file (`-`: standard output)."""

    fmt: str
    target: str


def requested(
    output_format: str | None, output: str | None, extra: dict[str, str | None]
) -> list[Requested]:
    """The reports a scan writes: the one `--output-format`/`-o` choose (text on stdout
    by default, dropped if another takes stdout and neither was given), then `extra`
    (`--json`, `--sarif`, `--html`: format to file)."""
    also = [Requested(fmt, target) for fmt, target in extra.items() if target]
    chosen = output_format is not None or output is not None
    if chosen or all(report.target != "-" for report in also):
        also.insert(0, Requested(output_format or "text", output or "-"))
    return also


class Stdout:
    """A report written to standard output (`-o -`, `--json -`)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> None:
        """Write the report."""
        self.out.write(text)
        self.out.flush()

    def abandon(self) -> None:
        """Nothing to close."""


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
