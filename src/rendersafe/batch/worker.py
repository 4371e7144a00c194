"""One `ProcessPool` worker: a child process running `main()`, spoken to over its pipes.

Each message is a frame: an 8-byte big-endian length, then a pickle. The pool sends the
policy first, then `(replies, conversations)` per batch; the worker answers each batch
with the result's `StructArray` or the exception `sanitize_arrow` raised. It stops at
the end of its input.

A plain child process, not `multiprocessing`: nothing of the caller's `__main__` is run
again in it, so a script without an `if __name__ == "__main__"` guard works too.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
from typing import IO

from ..policy import Policy
from .arrow import sanitize_arrow
from .rows import sanitizer_for

__all__ = ["frame", "main", "read_frame", "send", "write_frame"]

_LENGTH = struct.Struct(">Q")


def frame(value: object) -> bytes:
    """`value` as a frame's body; raises what pickling raises (nothing is sent)."""
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def send(stream: IO[bytes], body: bytes) -> None:
    """Send one frame whose body is `body`."""
    stream.write(_LENGTH.pack(len(body)))
    stream.write(body)
    stream.flush()


def write_frame(stream: IO[bytes], value: object) -> None:
    """Send `value` as one frame."""
    send(stream, frame(value))


def read_frame(stream: IO[bytes]) -> object:
    """The next frame's value; raises EOFError when the other side has gone."""
    header = _read_exactly(stream, _LENGTH.size)
    return pickle.loads(_read_exactly(stream, _LENGTH.unpack(header)[0]))


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise EOFError("the other end of the pipe closed")
    return data


def main() -> None:
    """Serve batches until the pool closes the pipe."""
    replies_to = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    # Anything the sanitiser's libraries print goes to stderr, not into the frames.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    requests = sys.stdin.buffer
    policy = read_frame(requests)
    if not isinstance(policy, Policy):
        raise SystemExit(f"rendersafe.batch.worker: expected a Policy first, not {policy!r}")
    sanitizer_for(policy)
    while True:
        try:
            request = read_frame(requests)
        except EOFError:
            return
        if not isinstance(request, tuple) or len(request) != 2:
            raise SystemExit("rendersafe.batch.worker: expected (replies, conversations)")
        write_frame(replies_to, _answer(request[0], request[1], policy))


def _answer(replies: object, conversations: object, policy: Policy) -> object:
    try:
        return sanitize_arrow(replies, conversations, policy=policy)
    except Exception as exc:  # sent back, raised in the caller
        return _picklable(exc)


def _picklable(exc: Exception) -> Exception:
    try:
        pickle.dumps(exc)
    except Exception:  # one that cannot travel is described
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc
