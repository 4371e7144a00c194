"""The proxy's connections: uvicorn's h11 protocol with a time bound on everything a
client controls, so slow clients cannot hold what others need.

* `header_timeout`: a request line and its headers must be in within it of the
  connection opening or the previous response ending (else a 408 if part of a request
  came, and the connection closes);
* `body_timeout`: the whole body within it of the headers (else a 408, or the
  connection closes if the response has started);
* `idle_timeout`: a client that leaves the reply unread, the socket's buffers full, for
  this long is cut off (the wait between two requests is uvicorn's keep-alive, 5 s);
* `max_client_connections`: connections one client address may hold at once; past it a
  503 and the connection closes.

Each is counted in `rendersafe_proxy_rejected_total{reason}`. It is always h11, even
where httptools is installed: the parser `target.canonical` was written against.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections import Counter
from typing import ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .metrics import Counters
from .settings import Settings

__all__ = ["GuardedProtocol", "guarded_protocol"]

_PHASES = {h11.IDLE: "header", h11.SEND_BODY: "body"}


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol with the limits above; `guarded_protocol` binds them."""

    settings: ClassVar[Settings]
    counters: ClassVar[Counters]
    clients: ClassVar[Counter[str]]

    _phase: str | None = None
    _timer: asyncio.TimerHandle | None = None
    _stalled: asyncio.TimerHandle | None = None
    _address: str | None = None
    _partial = False  # part of a request has come in this phase

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        if address is not None and self.clients[address] >= self.settings.max_client_connections:
            self.counters.rejected("client_limit")
            self._refuse(b"503 Service Unavailable", b"too many connections from one address")
            return
        if address is not None:
            self._address = address
            self.clients[address] += 1
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._timer, self._stalled):
            if timer is not None:
                timer.cancel()
        if self._address is not None:
            self.clients[self._address] -= 1
            if not self.clients[self._address]:
                del self.clients[self._address]
            self._address = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._partial = bool(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stalled is None:
            self._stalled = self.loop.call_later(self.settings.idle_timeout, self._idle)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None

    def _watch(self) -> None:
        """Start the clock of the phase the client is in, once per phase."""
        if self.transport.is_closing():
            return
        phase = _PHASES.get(self.conn.their_state)
        if phase == self._phase:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._phase = phase
        if phase is None:
            return
        if phase == "header":
            self._partial = False
        seconds = self.settings.header_timeout if phase == "header" else self.settings.body_timeout
        self._timer = self.loop.call_later(seconds, self._expired, phase)

    def _expired(self, phase: str) -> None:
        self._timer = None
        if self.transport.is_closing() or phase != self._phase:
            return
        self.counters.rejected(f"{phase}_timeout")
        if phase == "header":
            if self._partial:
                self._refuse(b"408 Request Timeout", b"the request headers took too long")
            else:
                self.transport.close()  # an idle connection: closed, as keep-alive closes it
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_started:
            self._answer_408(b"the request body took too long")
        else:
            self.transport.close()
        if cycle is not None:
            cycle.disconnected = True  # the app's `receive` says so; its sends go nowhere
            cycle.message_event.set()

    def _idle(self) -> None:
        self._stalled = None
        if self.transport.is_closing():
            return
        self.counters.rejected("idle_timeout")
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            # A reset, not a FIN queued behind data the client will never read: the
            # kernel frees the connection now, and the client learns of it.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    def _answer_408(self, message: bytes) -> None:
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(message)).encode()),
            (b"connection", b"close"),
        ]
        try:
            out = self.conn.send(h11.Response(status_code=408, headers=headers))
            out = (out or b"") + (self.conn.send(h11.Data(data=message)) or b"")
            out += self.conn.send(h11.EndOfMessage()) or b""
        except h11.LocalProtocolError:
            out = b""
        self.transport.write(out)
        self.transport.close()

    def _refuse(self, status: bytes, message: bytes) -> None:
        """Answer with `status` before any request was read, and close."""
        head = b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\n"
        length = b"content-length: " + str(len(message)).encode() + b"\r\n"
        self.transport.write(head + length + b"connection: close\r\n\r\n" + message)
        self.transport.close()


def guarded_protocol(settings: Settings, counters: Counters) -> type[GuardedProtocol]:
    """The protocol class uvicorn runs for one proxy: its limits, its counters, and the
    connections each client address holds."""

    class Bound(GuardedProtocol):
        pass

    Bound.settings, Bound.counters, Bound.clients = settings, counters, Counter()
    return Bound
