"""`Gateway`: the proxy's ASGI app. Every request's target is made canonical first
(`target.canonical`: a 400 or 405 if it cannot be); `/healthz` and `/metrics` are its
own; a chat path goes through `RenderSafeMiddleware` (sniffing what its content type
does not say) to the `Forwarder`, every other path straight to it."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import anyio
import anyio.to_thread
from starlette.types import Message, Receive, Scope, Send

from ..audit import AuditLog
from ..middleware import RenderSafeMiddleware
from ..policy import Policy
from .forward import Forwarder, Settings, UpstreamError
from .metrics import Counters, exposition
from .routes import error_body, family_of, route_of
from .target import RequestError, canonical

__all__ = ["Gateway"]

logger = logging.getLogger("rendersafe.gateway")

_NO_METRICS = b"prometheus_client is not installed: pip install 'rendersafe[proxy]'\n"


class Gateway:
    """The reverse proxy: forwards to `settings.upstream`, sanitising chat replies with
    `policy` (findings to `audit`). Serve it with any ASGI server (`serve` uses uvicorn,
    with the client limits of `protocol`); its lifespan closes the upstream client and
    the audit log."""

    def __init__(self, settings: Settings, *, policy: Policy, audit: AuditLog | None) -> None:
        self.counters = Counters()
        self.forwarder = Forwarder(settings, self.counters)
        self.settings = settings
        self.audit = audit
        self.policy = policy
        self.app = RenderSafeMiddleware(
            self.forwarder, policy=policy, audit=audit, formats=settings.formats, sniff=True
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] == "websocket":
            # No API here speaks one: refused (a 403 to the client), not left open.
            await receive()
            await send({"type": "websocket.close", "code": 1008, "reason": "not proxied"})
            return
        if scope["type"] != "http":
            return
        try:
            target = canonical(scope)
        except RequestError as exc:
            self.counters.rejected("bad_request")
            body = error_body(family_of(scope.get("path", "")), exc.status, str(exc), "bad_request")
            # Closed after: what follows a malformed request is not read as another.
            await _respond(send, exc.status, body, b"application/json", close=True)
            return
        scope = {**scope, "path": target.path, "raw_path": target.raw_path}
        if target.path == "/healthz":
            health = self.health()
            status = 503 if health["status"] == "degraded" and self.policy.audit_required else 200
            await _respond(send, status, json.dumps(health).encode(), b"application/json")
        elif target.path == "/metrics":
            found = exposition()
            if found is None:
                await _respond(send, 404, _NO_METRICS, b"text/plain; charset=utf-8")
            else:
                await _respond(send, 200, found[0], found[1].encode())
        else:
            await self._proxied(scope, receive, send)

    def health(self) -> dict[str, Any]:
        """What `/healthz` answers (the upstream is not called): `status` is `ok`,
        `draining`, or `degraded` while the audit log holds records it could not write."""
        audit = _audit_health(self.audit)
        status = "ok"
        if self.forwarder.draining:
            status = "draining"
        elif audit is not None and audit["status"] != "ok":
            status = "degraded"
        return {
            "status": status,
            "upstream": str(self.forwarder.upstream.copy_with(query=None)),
            "mode": self.policy.mode,
            "in_flight": self.counters.in_flight,
            "tasks": len(asyncio.all_tasks()),  # the event loop's: none may be left behind
            "audit": audit,
        }

    async def _proxied(self, scope: Scope, receive: Receive, send: Send) -> None:
        status = [0]
        route = route_of(scope["path"], self.settings.formats)
        app = self.forwarder if route == "passthrough" else self.app

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await app(scope, receive, watched)
        except UpstreamError:
            pass  # not sanitised: the server closes the connection, the body is cut
        except OSError:  # how the middleware stops the app when the client has gone
            logger.debug("rendersafe proxy %s: the client went away", scope["path"])
        finally:
            self.counters.request(route, status[0])

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.forwarder.aclose()
                if self.audit is not None:
                    await anyio.to_thread.run_sync(self.audit.close)  # joins its writer
                await send({"type": "lifespan.shutdown.complete"})
                return


def _audit_health(audit: AuditLog | None) -> dict[str, Any] | None:
    """The audit log's part of `/healthz`: `degraded` while any sink holds records it
    could not write (or the writer stopped), with the backlog and what was lost."""
    if audit is None:
        return None
    return {
        "status": "degraded" if audit.degraded else "ok",
        "backlog": audit.backlog,
        "lost": audit.lost,
        "failures": audit.failures,
    }


async def _respond(
    send: Send, status: int, body: bytes, content_type: bytes, *, close: bool = False
) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
