"""How far a scan has read, for the progress bar on a terminal.

Workers (and an in-process scan) add the bytes they read to one shared counter
(`share`); the parent's `Bar` shows it: total bytes, rate, time left; cleared when
the scan ends, before the summary. Nothing is counted or shown when no bar was asked
for.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from typing import Any, TextIO

__all__ = ["Bar", "Meter", "counter", "share"]

_FLUSH = 1 << 20  # bytes a worker counts before it updates the shared counter
_shared: Any = None  # a multiprocessing.Value("q"), or None: no bar


def share(value: Any) -> None:
    """In a worker (or the parent): count into `value` (None: do not count)."""
    global _shared  # noqa: PLW0603  (one counter per process, set before it scans)
    _shared = value


def counter() -> Any:
    """The counter this process counts into, or None."""
    return _shared


class Meter:
    """One task's count, added to the shared counter a megabyte at a time."""

    def __init__(self) -> None:
        self.pending = 0

    def add(self, size: int) -> None:
        """Count `size` more bytes read."""
        self.pending += size
        if self.pending >= _FLUSH:
            self.flush()

    def flush(self) -> None:
        """Add what is pending to the shared counter."""
        if _shared is not None and self.pending:
            with _shared.get_lock():
                _shared.value += self.pending
        self.pending = 0


class Bar:
    """A tqdm bar over `total` bytes on `stream`, fed from the shared counter.

    bar = Bar(total, sys.stderr)    # starts counting
    ...                             # the scan
    bar.close()                     # the line is cleared
    """

    def __init__(self, total: int, stream: TextIO) -> None:
        from tqdm import tqdm  # noqa: PLC0415  (only on a terminal)

        columns, lines = _size(stream)
        self.value = multiprocessing.Value("q", 0)
        share(self.value)
        self.bar = tqdm(
            total=total,
            unit="B",
            unit_scale=True,
            unit_divisor=1024,
            file=stream,
            leave=False,
            ncols=columns,
            nrows=lines,
            desc="scan",
        )
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while not self.done.wait(0.1):
            self._show()

    def _show(self) -> None:
        count = int(self.value.value)
        if count > self.bar.n:
            self.bar.update(count - self.bar.n)

    def close(self) -> None:
        """Stop, and clear the bar's line."""
        self.done.set()
        self.thread.join()
        self._show()
        self.bar.close()
        share(None)


def _size(stream: TextIO) -> tuple[int, int]:
    """The terminal's columns and lines; 80 x 24 where it says 0 (a pseudo-terminal
    never sized), which would hide the bar."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        size = os.get_terminal_size(stream.fileno())
        return size.columns or 80, size.lines or 24
    return 80, 24
