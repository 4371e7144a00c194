"""The demo's fake attacker: a server on a second loopback port that logs every request.

The prompt-injected reply points its images and links here. Without rendersafe the
browser fetches them, and the log shows what the attacker got, decoded (see `decode`).
The demo page reads the log through its own `/demo/attacker`; this server only answers
with a small "leaked" badge, never with the log, and like the demo it answers only
requests whose `Host` is a local name on its own port (`HostGuard`).

    attacker = Attacker()
    with attacker.running():                 # uvicorn on 127.0.0.1, a port the OS picks
        print(attacker.origin, attacker.log.since(0))
"""

from __future__ import annotations

import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from .decode import decode_url
from .guard import LOCAL_HOSTS, HostGuard

__all__ = ["Attacker", "AttackerLog"]

# Enough for many runs of the demo; older requests are dropped first.
_MAX_REQUESTS = 1000
# A URL or a header value longer than this is cut: the log is for reading.
_MAX_CHARS = 4096
_MAX_HEADERS = 50
# Cookies of 127.0.0.1 are shared by every port: the demo's must not land in the log.
_DROPPED_HEADERS = frozenset({"cookie"})
_IMAGE_SUFFIXES = (".png", ".gif", ".svg", ".jpg", ".jpeg", ".webp", ".ico")
_BADGE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="22">'
    '<rect width="150" height="22" rx="4" fill="#a0262b"/>'
    '<text x="75" y="15" font-family="sans-serif" font-size="12" fill="#fff" '
    'text-anchor="middle">sent to the attacker</text></svg>'
)


class AttackerLog:
    """Every request the attacker received, numbered from 0; safe across threads."""

    def __init__(self, maxlen: int = _MAX_REQUESTS) -> None:
        self._entries: deque[dict[str, Any]] = deque(maxlen=maxlen)
        self._next = 0
        self._lock = threading.Lock()

    def add(self, entry: dict[str, Any]) -> None:
        """Append `entry`, numbering it (`seq`)."""
        with self._lock:
            self._entries.append({"seq": self._next, **entry})
            self._next += 1

    @property
    def next_seq(self) -> int:
        """The number the next request will get."""
        with self._lock:
            return self._next

    def since(self, seq: int) -> list[dict[str, Any]]:
        """The requests numbered `seq` or later that are still kept."""
        with self._lock:
            return [entry for entry in self._entries if entry["seq"] >= seq]


class Attacker:
    """The fake attacker's ASGI app (`app`, behind `HostGuard`) and its `log`.

    `port` is the port it is served on: set by `running()`, or by the caller who
    serves `app` itself (the Host check needs it; any port while it is None).
    """

    def __init__(self, *, hosts: Iterable[str] = LOCAL_HOSTS, port: int = 0) -> None:
        self.log = AttackerLog()
        self.hosts = tuple(hosts)
        self.port: int | None = port or None
        self._wanted_port = port
        self.app: ASGIApp = HostGuard(self._record, hosts=self.hosts, port=self.port)

    @property
    def origin(self) -> str | None:
        """`http://127.0.0.1:PORT`, or None while the port is not known."""
        return None if self.port is None else f"http://127.0.0.1:{self.port}"

    @contextmanager
    def running(self) -> Iterator[Attacker]:
        """Serve `app` with uvicorn on 127.0.0.1 (the port given, or one the OS picks)
        in a thread, until the block ends."""
        import uvicorn  # noqa: PLC0415  (optional: the demo extra)

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self._wanted_port))
        self.port = sock.getsockname()[1]
        self.app = HostGuard(self._record, hosts=self.hosts, port=self.port)
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 10
            while not server.started:
                if time.monotonic() > deadline or not thread.is_alive():
                    raise RuntimeError("the demo's attacker server did not start")
                time.sleep(0.01)
            yield self
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            sock.close()

    async def _record(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path = scope.get("raw_path", scope["path"].encode()).decode("latin-1")
        query = scope.get("query_string", b"").decode("latin-1")
        self.log.add(
            {
                "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
                "method": scope["method"],
                "path": path[:_MAX_CHARS],
                "query": query[:_MAX_CHARS],
                "headers": _headers(scope),
                "decoded": [d.as_json() for d in decode_url(path[:_MAX_CHARS], query[:_MAX_CHARS])],
            }
        )
        no_store = {"cache-control": "no-store"}
        if path.lower().endswith(_IMAGE_SUFFIXES):
            response = Response(_BADGE, media_type="image/svg+xml", headers=no_store)
        else:
            response = Response("logged\n", media_type="text/plain", headers=no_store)
        await response(scope, receive, send)


def _headers(scope: Scope) -> list[tuple[str, str]]:
    kept = []
    for name, value in scope.get("headers", ())[:_MAX_HEADERS]:
        key = name.decode("latin-1").lower()
        if key not in _DROPPED_HEADERS:
            kept.append((key, value.decode("latin-1")[:_MAX_CHARS]))
    return kept
