"""`ProcessPool`: `sanitize_arrow` in worker processes, for engines that call Python
under one lock.

    with ProcessPool(policy, processes=2) as pool:
        result = pool(table["reply"], table["messages"])   # as sanitize_arrow(...)

An engine whose threads each call a Python function (DuckDB) gets one core's worth from
them, whatever its thread count: the function holds the GIL. Called from several threads,
a `ProcessPool` hands each call's columns to an idle worker process
(`rendersafe.batch.worker`) and waits on its pipe with the GIL released, so the threads'
batches are sanitised side by side. Each worker keeps one `Sanitizer` for the policy,
built as it starts.

A call never loses its rows: if its worker dies (killed, out of memory), that batch is
sanitised in the calling process and a new worker takes the dead one's place (until
one can start, each call is sanitised there); columns that cannot be pickled (Python
sequences of arbitrary objects) are sanitised there too.
Workers left unclosed end with the caller: their input pipe closes.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
from pathlib import Path
from types import TracebackType
from typing import Any

import pyarrow as pa

from ..policy import Policy
from .arrow import sanitize_arrow
from .worker import frame, read_frame, send, write_frame

__all__ = ["ProcessPool"]

# The folder that holds the `rendersafe` package, for a worker started from a checkout.
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


class ProcessPool:
    """`sanitize_arrow(replies, conversations, policy=policy)` run in one of `processes`
    worker processes; safe to call from many threads at once."""

    def __init__(self, policy: Policy | None = None, *, processes: int = 2) -> None:
        if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
            raise ValueError(f"processes must be a positive int, not {processes!r}")
        self.policy = policy if policy is not None else Policy()
        self.processes = processes
        self._idle: queue.SimpleQueue[_Worker | None] = queue.SimpleQueue()
        self._closed = False
        for _ in range(processes):
            self._idle.put(_Worker(self.policy))

    def __call__(self, replies: Any, conversations: Any = None) -> pa.StructArray:
        """The columns' results, as `sanitize_arrow` gives them."""
        worker = self._idle.get()
        if worker is None:
            self._idle.put(None)
            raise RuntimeError("this ProcessPool is closed")
        try:
            return worker.run(replies, conversations)
        except _UnsendableError:
            return sanitize_arrow(replies, conversations, policy=self.policy)
        except (EOFError, OSError):
            worker.stop()
            worker = self._replacement(worker)
            return sanitize_arrow(replies, conversations, policy=self.policy)
        finally:
            self._idle.put(worker)

    def _replacement(self, dead: _Worker) -> _Worker:
        """A new worker in place of a dead one; the dead one again when none can start
        (each call it takes is then sanitised in the caller, and tries anew)."""
        try:
            return _Worker(self.policy)
        except OSError:
            return dead

    def close(self) -> None:
        """Stop the workers once the calls under way have their results; later calls
        raise RuntimeError."""
        if self._closed:
            return
        self._closed = True
        for _ in range(self.processes):
            worker = self._idle.get()
            if worker is not None:
                worker.stop()
        self._idle.put(None)

    def __enter__(self) -> ProcessPool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class _UnsendableError(Exception):
    """The columns could not be pickled for a worker; nothing was sent."""


class _Worker:
    """One `rendersafe.batch.worker` child process, holding the policy's `Sanitizer`."""

    def __init__(self, policy: Policy) -> None:
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_PACKAGE_ROOT, path]))}
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from rendersafe.batch.worker import main; main()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        if self.process.stdin is None or self.process.stdout is None:
            raise OSError("the worker process was started without pipes")
        self.requests, self.replies = self.process.stdin, self.process.stdout
        write_frame(self.requests, policy)

    def run(self, replies: Any, conversations: Any) -> pa.StructArray:
        if self.requests.closed:
            raise EOFError("this worker was stopped")
        try:
            body = frame((replies, conversations))
        except Exception as exc:  # pickling raises whatever the value's reducer raises
            raise _UnsendableError from exc
        send(self.requests, body)
        answer = read_frame(self.replies)
        if isinstance(answer, pa.StructArray):
            return answer
        raise answer if isinstance(answer, Exception) else OSError(f"the worker sent {answer!r}")

    def stop(self) -> None:
        for pipe in (self.requests, self.replies):
            with contextlib.suppress(OSError):  # a dead worker's pipe fails to flush
                pipe.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
