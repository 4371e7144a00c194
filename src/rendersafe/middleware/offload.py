"""Which feeds run off the event loop: one threshold on what a feed is expected to cost.

A feed runs on the event loop unless it is expected to take `INLINE_SECONDS` or more:
the characters it may settle at the cost per character this response's feeds have
shown (`FIRST_COST` until one is measured; honest text measures 1-4 µs), plus what each
opener it holds costs at worst (a flood of `[` ~40 µs a character, of `<img src=a ` ~400
µs a tag). An honest token only extends its line and settles nothing: it stays inline.
A heavy feed runs in one of `WORKERS` threads per middleware, while the event loop's
thread waits at most `SWITCH_INTERVAL` for the GIL after each system call (Python's
default, 5 ms a call, adds up to a stall of every other stream).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

__all__ = [
    "INLINE_SECONDS",
    "WORKERS",
    "Cost",
    "Offload",
]

INLINE_SECONDS = 0.004
FIRST_COST = 4e-6
BRACKET_COST = 40e-6
TAG_COST = 400e-6
# A feed that may settle fewer characters is too small to time: noise, not a cost.
MEASURED = 64
WORKERS = 4
SWITCH_INTERVAL = 0.0005

T = TypeVar("T")


class Cost:
    """What a character settled costs in one response, learnt from its feeds."""

    def __init__(self) -> None:
        self.per_char = FIRST_COST

    def heavy(self, settles: int, brackets: int, tags: int) -> bool:
        """Is a feed that may settle `settles` characters, with `brackets` and `tags`
        openers held, expected to take `INLINE_SECONDS` or more?"""
        expected = settles * self.per_char + brackets * BRACKET_COST + tags * TAG_COST
        return settles >= MEASURED and expected >= INLINE_SECONDS

    def timed(self, settles: int, work: Callable[[], T]) -> T:
        """`work()`, learning from its CPU time what a character costs."""
        if settles < MEASURED:
            return work()
        began = time.thread_time()
        try:
            return work()
        finally:
            cost = (time.thread_time() - began) / settles
            # Up at once (a flood shows itself), down slowly (one cheap unit proves little).
            self.per_char = max(cost, 0.8 * self.per_char + 0.2 * cost)


class Offload:
    """The worker threads one middleware's heavy feeds share."""

    def __init__(self) -> None:
        self._limiter: anyio.CapacityLimiter | None = None  # made in the event loop

    async def run(self, work: Callable[[], T]) -> T:
        """`work()` in a worker thread, the switch interval short meanwhile."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(WORKERS)
        with _QUICK_SWITCH:
            return await anyio.to_thread.run_sync(work, limiter=self._limiter)


class _QuickSwitch:
    """While any worker feed runs, a shorter switch interval; put back after the last
    (unless someone else changed it meanwhile)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._saved = sys.getswitchinterval()

    def __enter__(self) -> None:
        with self._lock:
            if self._running == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(self._saved, SWITCH_INTERVAL))
            self._running += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._running -= 1
            if self._running == 0 and sys.getswitchinterval() == min(self._saved, SWITCH_INTERVAL):
                sys.setswitchinterval(self._saved)


_QUICK_SWITCH = _QuickSwitch()
