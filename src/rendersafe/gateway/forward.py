"""`Forwarder`: the ASGI app that sends each request on to the upstream and streams
its answer back, nothing buffered (httpx, one pooled client).

The request body goes up as it arrives (up to `max_body_bytes`: past that, a 413);
the response comes down chunk by chunk, its bytes as the upstream sent them. Before
the response starts, a failure is answered in the API's own error format (502 for a
refused or broken connection, 504 for a timeout, 503 when `max_concurrency` requests
are in flight or the proxy is shutting down). After it starts, a failure raises
`UpstreamError`: around a sanitised route the middleware ends the body with the
format's error event; elsewhere the connection is closed, so the client sees a cut body.
A client that goes away, or a shutdown's grace period running out, stops the
request at once and closes its upstream connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import anyio
import httpx
from starlette.types import Message, Receive, Scope, Send

from ..errors import RenderSafeError
from .headers import end_to_end
from .metrics import Counters
from .routes import error_body, family_of, route_of

__all__ = ["Forwarder", "Settings", "UpstreamError"]

logger = logging.getLogger("rendersafe.gateway")

# Chat requests are small; one carrying images inline is a few MiB.
MAX_BODY_BYTES = 32 * 1024 * 1024
MAX_CONCURRENCY = 256
# A model may think for minutes before its first token, and between tokens.
READ_TIMEOUT = 300.0
CONNECT_TIMEOUT = 10.0
# On SIGTERM, in-flight streams have this long to finish before they are ended.
GRACE_SECONDS = 30.0
_DROPPED_UP = (b"host", b"expect")
_IDENTITY = (b"accept-encoding", b"identity")


@dataclass(frozen=True)
class Settings:
    """Where to forward, and the proxy's limits."""

    upstream: str
    max_body_bytes: int = MAX_BODY_BYTES
    max_concurrency: int = MAX_CONCURRENCY
    connect_timeout: float = CONNECT_TIMEOUT
    read_timeout: float = READ_TIMEOUT
    grace_seconds: float = GRACE_SECONDS

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_concurrency"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be 1 or more, not {getattr(self, name)}")
        for name in ("connect_timeout", "read_timeout", "grace_seconds"):
            value = getattr(self, name)
            if not (value > 0 or (value == 0 and name == "grace_seconds")):
                raise ValueError(f"{name} must be a number of seconds above 0, not {value}")


class UpstreamError(RenderSafeError):
    """The upstream failed (or the proxy stopped it) after the response started."""


class _TooLargeError(Exception):
    pass


class _ClientGoneError(Exception):
    pass


class Forwarder:
    """Forwards every HTTP request to `settings.upstream`. See the module docstring."""

    def __init__(self, settings: Settings, counters: Counters) -> None:
        upstream = httpx.URL(settings.upstream)
        if upstream.scheme not in ("http", "https") or not upstream.host:
            raise ValueError(f"the upstream must be an http(s) URL, not {settings.upstream!r}")
        self.settings = settings
        self.upstream = upstream
        self._base = upstream.raw_path.split(b"?", 1)[0].rstrip(b"/")
        self.counters = counters
        self.draining = False
        self._client: httpx.AsyncClient | None = None  # made in the event loop
        self._live: dict[anyio.CancelScope, list[str]] = {}

    def client(self) -> httpx.AsyncClient:
        """The pooled client (made on first use, in the server's event loop)."""
        if self._client is None:
            settings = self.settings
            timeout = httpx.Timeout(
                settings.read_timeout, connect=settings.connect_timeout, pool=None
            )
            limits = httpx.Limits(
                max_connections=settings.max_concurrency,
                max_keepalive_connections=min(settings.max_concurrency, 64),
            )
            self._client = httpx.AsyncClient(timeout=timeout, limits=limits, trust_env=False)
        return self._client

    async def aclose(self) -> None:
        """Close the upstream connections."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def drain(self) -> None:
        """Shutting down: refuse new requests; end those in flight after the grace period."""
        self.draining = True
        loop = asyncio.get_running_loop()
        loop.call_later(self.settings.grace_seconds, self._stop_all)

    def _stop_all(self) -> None:
        for scope, why in list(self._live.items()):
            why.append("shutdown")
            scope.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path = scope["path"]
        length = _content_length(scope)
        if length is not None and length > self.settings.max_body_bytes:
            self.counters.rejected("too_large")
            limit = self.settings.max_body_bytes
            await _error(send, path, 413, f"the request body is over {limit} bytes", "too_large")
            return
        if self.draining or self.counters.in_flight >= self.settings.max_concurrency:
            self.counters.rejected("shutdown" if self.draining else "busy")
            why = "shutting down" if self.draining else "at its limit of requests in flight"
            await _error(send, path, 503, f"rendersafe proxy is {why}; retry", "busy")
            return
        self.counters.started()
        try:
            await self._exchange(scope, receive, send)
        finally:
            self.counters.finished()

    async def _exchange(self, scope: Scope, receive: Receive, send: Send) -> None:
        body_read = asyncio.Event()
        why: list[str] = []
        started = [False]
        with anyio.CancelScope() as stop:
            self._live[stop] = why
            watcher = asyncio.create_task(self._watch(receive, body_read, stop, why))
            try:
                await self._forward(scope, receive, send, body_read, started)
            finally:
                del self._live[stop]
                watcher.cancel()
                with anyio.CancelScope(shield=True), contextlib.suppress(asyncio.CancelledError):
                    await watcher
        if why == ["shutdown"]:
            self.counters.upstream_error("shutdown")
            if started[0]:
                raise UpstreamError("the proxy shut down before the response ended")
            await _error(send, scope["path"], 503, "rendersafe proxy is shutting down", "busy")

    async def _watch(
        self, receive: Receive, body_read: asyncio.Event, stop: anyio.CancelScope, why: list[str]
    ) -> None:
        """Once the request body is read, wait for the client to go away: then stop."""
        await body_read.wait()
        while (await receive())["type"] != "http.disconnect":
            pass
        why.append("disconnect")
        stop.cancel()

    async def _forward(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        body_read: asyncio.Event,
        started: list[bool],
    ) -> None:
        path = scope["path"]
        request = self._request(scope, receive, body_read)
        try:
            response = await self.client().send(request, stream=True)
        except (_TooLargeError, _ClientGoneError, httpx.HTTPError) as exc:
            await self._refused(send, path, exc)
            return
        try:
            headers = end_to_end(response.headers.raw)
            start = {"type": "http.response.start", "status": response.status_code}
            await send({**start, "headers": headers})
            started[0] = True
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except httpx.HTTPError as exc:
            cause = _cause(exc)
            self.counters.upstream_error(cause)
            logger.warning("rendersafe proxy %s: the upstream broke off (%s)", path, cause)
            raise UpstreamError(f"the upstream broke off the response ({cause})") from None
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()

    def _request(self, scope: Scope, receive: Receive, body_read: asyncio.Event) -> httpx.Request:
        raw_path: bytes = scope.get("raw_path") or scope["path"].encode()
        query: bytes = scope.get("query_string", b"")
        url = self.upstream.copy_with(
            raw_path=self._base + raw_path + (b"?" + query if query else b"")
        )
        headers = end_to_end(scope["headers"], drop=_DROPPED_UP)
        if route_of(scope["path"]) != "passthrough":
            # The middleware reads gzip and deflate, not br or zstd: ask for plain bytes.
            headers = [h for h in headers if h[0] != b"accept-encoding"] + [_IDENTITY]
        has_body = any(
            name in (b"content-length", b"transfer-encoding") for name, _ in scope["headers"]
        )
        if not has_body or _content_length(scope) == 0:
            body_read.set()
            return httpx.Request(scope["method"], url, headers=headers)
        content = self._body(receive, body_read)
        return httpx.Request(scope["method"], url, headers=headers, content=content)

    async def _body(self, receive: Receive, body_read: asyncio.Event) -> AsyncIterator[bytes]:
        size, limit = 0, self.settings.max_body_bytes
        while True:
            message: Message = await receive()
            if message["type"] == "http.disconnect":
                raise _ClientGoneError
            chunk: bytes = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _TooLargeError
            if chunk:
                yield chunk
            if not message.get("more_body", False):
                break
        body_read.set()

    async def _refused(self, send: Send, path: str, exc: Exception) -> None:
        """Answer a request the upstream never answered."""
        if isinstance(exc, _ClientGoneError):
            return
        if isinstance(exc, _TooLargeError):
            self.counters.rejected("too_large")
            limit = self.settings.max_body_bytes
            await _error(send, path, 413, f"the request body is over {limit} bytes", "too_large")
            return
        cause = _cause(exc)
        self.counters.upstream_error(cause)
        logger.warning("rendersafe proxy %s: the upstream failed (%s)", path, cause)
        status = 504 if cause == "timeout" else 502
        message = _MESSAGES.get(cause, "the upstream failed")
        await _error(send, path, status, f"rendersafe proxy: {message}", f"upstream_{cause}")


_MESSAGES = {
    "refused": "the upstream refused the connection (or could not be reached)",
    "timeout": "the upstream did not answer in time",
    "protocol": "the upstream closed the connection without a valid response",
}


def _cause(exc: Exception) -> str:
    """The cause of an upstream failure, as a metric label."""
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx.ConnectError):
        return "refused"
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return "protocol"
    return "other"


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() and len(text) < 19 else None
    return None


async def _error(send: Send, path: str, status: int, message: str, code: str) -> None:
    """An error of the proxy's own, in the format of the API at `path`."""
    body = error_body(family_of(path), status, message, code)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
