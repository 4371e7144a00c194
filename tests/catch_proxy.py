"""A forward proxy on 127.0.0.1 that records every request a browser sends it and
answers each 403: given to Chromium as its proxy, it sees every request a page or any
of its frames makes to a host off the machine (sandboxed frames' too, which
Playwright's routing misses), and nothing leaves.

    with CatchProxy() as proxy:
        chromium.launch(proxy={"server": proxy.url})
        ...
        proxy.hosts      # the hosts asked for (`CONNECT host:443`, or an absolute URL's)
"""

from __future__ import annotations

import socketserver
import threading
from types import TracebackType
from urllib.parse import urlsplit

__all__ = ["CatchProxy"]

_REFUSED = b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class CatchProxy:
    """Records the target of each request line; refuses them all."""

    def __init__(self) -> None:
        self.targets: list[str] = []
        self._lock = threading.Lock()
        proxy = self

        class _Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                line = self.rfile.readline(8192).decode("latin-1").split()
                if len(line) >= 2:
                    with proxy._lock:
                        proxy.targets.append(line[1])
                self.wfile.write(_REFUSED)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def hosts(self) -> list[str]:
        """The host of each request so far, in order."""
        with self._lock:
            return [_host(target) for target in self.targets]

    def clear(self) -> None:
        with self._lock:
            self.targets.clear()

    def __enter__(self) -> CatchProxy:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()


def _host(target: str) -> str:
    """`host:443` (CONNECT) or `http://host/path`: the host."""
    if "://" in target:
        return urlsplit(target).hostname or ""
    host = target.rpartition(":")[0] if target.count(":") == 1 else target
    return host.strip("[]").lower()
