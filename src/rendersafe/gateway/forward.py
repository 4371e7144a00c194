"""`Forwarder`: the ASGI app that sends each request on to the upstream and streams
its answer back, nothing buffered (httpx, one pooled client).

The request goes up to the canonical target (`target.canonical`), its body as it
arrives (up to `max_body_bytes`: past that, a 413); the response comes down chunk by
chunk, its bytes as the upstream sent them. A request takes one of `max_concurrency`
slots only once its body is in (or its first `PREFETCH_BYTES`): a client that sends its
body slowly holds no slot, only its connection, until `body_timeout` ends it.

Before the response starts, a failure is answered in the API's own error format (502
for a refused or broken connection, 504 for a timeout, 503 when `max_concurrency`
requests are in flight or the proxy is shutting down). After it starts, a failure
raises `UpstreamError`: around a sanitised route the middleware ends the body with the
format's error event; elsewhere the connection is closed, so the client sees a cut
body. A client that goes away, or a shutdown's grace period running out, stops the
request at once and closes its upstream connection (a client leaving is logged at
DEBUG: clients do).

The upstream URL's credentials become a Basic `Authorization` only on a request that
has none: a client's own is never replaced. A redirect into the upstream's own origin
is made relative, so the client follows it through the proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

import anyio
import httpx
from starlette.types import Message, Receive, Scope, Send

from ..errors import RenderSafeError
from .headers import end_to_end
from .metrics import Counters
from .routes import error_body, family_of, route_of
from .settings import Settings

__all__ = ["PREFETCH_BYTES", "Forwarder", "Settings", "UpstreamError"]

logger = logging.getLogger("rendersafe.gateway")

# Read before a request takes a slot: a whole chat request, or enough to show the
# client is sending one.
PREFETCH_BYTES = 1 << 20
# `host` is the upstream's own; the rest name a path some servers route on instead of the
# request's (IIS, Symfony, Spring): the path routed on is the canonical target alone.
_DROPPED_UP = (
    b"host",
    b"expect",
    b"x-original-url",
    b"x-rewrite-url",
    b"x-original-uri",
    b"x-forwarded-prefix",
    b"x-forwarded-path",
)
_IDENTITY = (b"accept-encoding", b"identity")
# On a chat path the reply is read whole and may change: no coding the middleware cannot
# read, and no range of it (a part of an event stream or a JSON body is no reply).
_WHOLE_REPLY = (b"accept-encoding", b"range", b"if-range")


class UpstreamError(RenderSafeError):
    """The upstream failed (or the proxy stopped it) after the response started."""


class _TooLargeError(Exception):
    pass


class _ClientGoneError(Exception):
    pass


class Forwarder:
    """Forwards every HTTP request to `settings.upstream`. See the module docstring."""

    def __init__(self, settings: Settings, counters: Counters) -> None:
        self.settings = settings
        self.upstream = upstream = settings.upstream_url
        self._auth = settings.basic_auth
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
                settings.read_timeout,
                connect=settings.connect_timeout,
                pool=settings.connect_timeout,
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
        path, limit = scope["path"], self.settings.max_body_bytes
        length = _content_length(scope)
        body = _Body(receive, limit, has_body=length != 0 and _has_body(scope))
        try:
            if length is not None and length > limit:
                raise _TooLargeError
            await body.prefetch(PREFETCH_BYTES)
        except _TooLargeError:
            self.counters.rejected("too_large")
            await _error(send, path, 413, f"the request body is over {limit} bytes", "too_large")
            return
        except _ClientGoneError:
            logger.debug("rendersafe proxy %s: the client left before its body ended", path)
            return
        if self.draining or self.counters.in_flight >= self.settings.max_concurrency:
            self.counters.rejected("shutdown" if self.draining else "busy")
            why = "shutting down" if self.draining else "at its limit of requests in flight"
            await _error(send, path, 503, f"rendersafe proxy is {why}; retry", "busy")
            return
        self.counters.started()
        try:
            await self._exchange(scope, receive, send, body)
        finally:
            self.counters.finished()

    async def _exchange(self, scope: Scope, receive: Receive, send: Send, body: _Body) -> None:
        why: list[str] = []
        started = [False]
        with anyio.CancelScope() as stop:
            self._live[stop] = why
            watcher = asyncio.create_task(self._watch(receive, body.read, stop, why))
            try:
                await self._forward(scope, send, body, started)
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
        elif why == ["disconnect"]:
            logger.debug("rendersafe proxy %s: the client went away", scope["path"])

    async def _watch(
        self, receive: Receive, body_read: asyncio.Event, stop: anyio.CancelScope, why: list[str]
    ) -> None:
        """Once the request body is read, wait for the client to go away: then stop."""
        await body_read.wait()
        while (await receive())["type"] != "http.disconnect":
            pass
        why.append("disconnect")
        stop.cancel()

    async def _forward(self, scope: Scope, send: Send, body: _Body, started: list[bool]) -> None:
        path = scope["path"]
        request = self._request(scope, body)
        try:
            response = await self.client().send(request, stream=True)
        except (_TooLargeError, _ClientGoneError, httpx.HTTPError) as exc:
            await self._refused(send, path, exc)
            return
        try:
            headers = self._local(end_to_end(response.headers.raw))
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

    def _request(self, scope: Scope, body: _Body) -> httpx.Request:
        # `raw_path` is the canonical target (`target.canonical`): one `/`, no dot segment.
        raw_path: bytes = scope["raw_path"]
        query: bytes = scope.get("query_string", b"")
        url = self.upstream.copy_with(
            raw_path=self._base + raw_path + (b"?" + query if query else b"")
        )
        headers = end_to_end(scope["headers"], drop=_DROPPED_UP)
        if route_of(scope["path"], self.settings.formats) != "passthrough":
            headers = [h for h in headers if h[0] not in _WHOLE_REPLY] + [_IDENTITY]
        if self._auth is not None and not any(name == b"authorization" for name, _ in headers):
            headers.append((b"authorization", self._auth))
        if not body.has_body:
            return httpx.Request(scope["method"], url, headers=headers)
        content = body.whole() if body.done else body.stream()
        return httpx.Request(scope["method"], url, headers=headers, content=content)

    def _local(self, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        """`headers`, a redirect into the upstream's own origin made relative."""
        return [
            (name, _relative(value, self.upstream, self._base) if name == b"location" else value)
            for name, value in headers
        ]

    async def _refused(self, send: Send, path: str, exc: Exception) -> None:
        """Answer a request the upstream never answered."""
        if isinstance(exc, _ClientGoneError):
            logger.debug("rendersafe proxy %s: the client left before its body ended", path)
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


class _Body:
    """A request's body: the first bytes, read before the request takes a slot, then
    the rest streamed up as it arrives; `read` is set once all of it has."""

    def __init__(self, receive: Receive, limit: int, *, has_body: bool) -> None:
        self.receive, self.limit, self.has_body = receive, limit, has_body
        self.head: list[bytes] = []
        self.size = 0
        self.done = not has_body
        self.read = asyncio.Event()
        if self.done:
            self.read.set()

    async def prefetch(self, size: int) -> None:
        """Read until the body ends or `size` bytes of it are in."""
        while not self.done and self.size < size:
            self.head.append(await self._next())

    def whole(self) -> bytes:
        """All of it (once `done`)."""
        return b"".join(self.head)

    async def stream(self) -> AsyncIterator[bytes]:
        """What was read, then the rest as it arrives."""
        for chunk in self.head:
            yield chunk
        while not self.done:
            if chunk := await self._next():
                yield chunk

    async def _next(self) -> bytes:
        message: Message = await self.receive()
        if message["type"] == "http.disconnect":
            raise _ClientGoneError
        chunk: bytes = message.get("body", b"")
        self.size += len(chunk)
        if self.size > self.limit:
            raise _TooLargeError
        if not message.get("more_body", False):
            self.done = True
            self.read.set()
        return chunk


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


def _has_body(scope: Scope) -> bool:
    return any(name in (b"content-length", b"transfer-encoding") for name, _ in scope["headers"])


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() and len(text) < 19 else None
    return None


def _relative(location: bytes, upstream: httpx.URL, base: bytes) -> bytes:
    """`location` made relative to the proxy when it points into the upstream's origin
    under its base path; else as it is."""
    try:
        url = httpx.URL(location.decode("latin-1"))
    except (httpx.InvalidURL, UnicodeError):
        return location
    same = (url.scheme, url.host, url.port) == (upstream.scheme, upstream.host, upstream.port)
    if not url.is_absolute_url or not same or not url.raw_path.startswith(base + b"/"):
        return location
    fragment = ("#" + url.fragment).encode() if url.fragment else b""
    return url.raw_path[len(base) :] + fragment


async def _error(send: Send, path: str, status: int, message: str, code: str) -> None:
    """An error of the proxy's own, in the format of the API at `path`."""
    body = error_body(family_of(path), status, message, code)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
