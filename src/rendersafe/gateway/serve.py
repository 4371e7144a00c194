"""`serve`: run the `Gateway` with uvicorn until SIGTERM or Ctrl-C.

On the signal uvicorn stops accepting connections and closes idle ones; requests in
flight get `grace_seconds` to finish, then each is ended (a sanitised stream with its
format's error event), and the audit log is closed before the process exits.
Connections run `protocol.GuardedProtocol` (the client timeouts and limits); the
banner names the upstream without its credentials.
"""

from __future__ import annotations

import asyncio
import socket
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from .app import Gateway
from .protocol import guarded_protocol

if TYPE_CHECKING:
    import uvicorn

__all__ = ["bound_socket", "serve", "split_listen"]


def split_listen(value: str) -> tuple[str, int]:
    """(host, port) of `HOST:PORT` (`[::1]:PORT` for IPv6)."""
    host, colon, port = value.rpartition(":")
    if not colon or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--listen takes HOST:PORT, not {value!r}")
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port)


def bound_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host`:`port` (IPv6 when the host is)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    return sock


def serve(gateway: Gateway, sock: socket.socket, *, out: TextIO) -> None:
    """Serve `gateway` on `sock` until stopped; say where on `out`."""
    import uvicorn  # noqa: PLC0415  (optional: the proxy extra)

    grace = gateway.forwarder.settings.grace_seconds
    config = uvicorn.Config(
        gateway,
        http=guarded_protocol(gateway.settings, gateway.counters),
        log_level="warning",
        lifespan="on",
        # The client is the socket's peer: a header it sends says nothing of who it is.
        proxy_headers=False,
        # The upstream's own `server` and `date` headers go through.
        server_header=False,
        date_header=False,
        # Streams are ended at `grace`; this leaves time to send their last event.
        timeout_graceful_shutdown=int(grace) + 5,
    )
    server = _server(config, gateway)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    credentials = " (with the URL's credentials)" if gateway.settings.basic_auth else ""
    out.write(
        f"rendersafe proxy on http://{shown}:{port} -> {gateway.forwarder.upstream}"
        f"{credentials} (mode {gateway.policy.mode}; Ctrl-C or SIGTERM to stop)\n"
    )
    out.flush()
    server.run(sockets=[sock])


def _server(config: uvicorn.Config, gateway: Gateway) -> uvicorn.Server:
    """uvicorn's server, telling the gateway to drain when a stop signal comes."""
    import uvicorn  # noqa: PLC0415  (optional: the proxy extra)

    class DrainingServer(uvicorn.Server):
        loop: asyncio.AbstractEventLoop | None = None

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            self.loop = asyncio.get_running_loop()
            await super().startup(sockets)

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            super().handle_exit(sig, frame)
            # A signal handler runs between two bytecodes: hand the drain to the loop.
            if self.loop is not None and not gateway.forwarder.draining:
                self.loop.call_soon_threadsafe(gateway.forwarder.drain)

    return DrainingServer(config)
