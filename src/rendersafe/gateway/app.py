"""`Gateway`: the proxy's ASGI app. `/healthz` and `/metrics` are its own; every other
path goes through `RenderSafeMiddleware` (covering the sanitised routes only) to the
`Forwarder`."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anyio
import anyio.to_thread
from starlette.types import Message, Receive, Scope, Send

from ..audit import AuditLog
from ..middleware import RenderSafeMiddleware
from ..policy import Policy
from .forward import Forwarder, Settings, UpstreamError
from .metrics import Counters, exposition
from .routes import SANITISED, route_of

__all__ = ["Gateway"]

_NO_METRICS = b"prometheus_client is not installed: pip install 'rendersafe[proxy]'\n"


class Gateway:
    """The reverse proxy: forwards to `settings.upstream`, sanitising chat replies with
    `policy` (findings to `audit`). Serve it with any ASGI server (`serve` uses uvicorn);
    its lifespan closes the upstream client and the audit log."""

    def __init__(self, settings: Settings, *, policy: Policy, audit: AuditLog | None) -> None:
        self.counters = Counters()
        self.forwarder = Forwarder(settings, self.counters)
        self.audit = audit
        self.policy = policy
        self.app = RenderSafeMiddleware(self.forwarder, policy=policy, audit=audit, paths=SANITISED)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] != "http":
            return  # a websocket: no API here speaks one
        elif scope["path"] == "/healthz":
            await _respond(send, 200, json.dumps(self.health()).encode(), b"application/json")
        elif scope["path"] == "/metrics":
            found = exposition()
            if found is None:
                await _respond(send, 404, _NO_METRICS, b"text/plain; charset=utf-8")
            else:
                await _respond(send, 200, found[0], found[1].encode())
        else:
            await self._proxied(scope, receive, send)

    def health(self) -> dict[str, Any]:
        """What `/healthz` answers (the upstream is not called)."""
        upstream = self.forwarder.upstream
        return {
            "status": "draining" if self.forwarder.draining else "ok",
            "upstream": str(upstream.copy_with(username=None, password=None, query=None)),
            "mode": self.policy.mode,
            "in_flight": self.counters.in_flight,
            "tasks": len(asyncio.all_tasks()),  # the event loop's: none may be left behind
            "audit": self.audit is not None,
        }

    async def _proxied(self, scope: Scope, receive: Receive, send: Send) -> None:
        status = [0]

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except UpstreamError:
            pass  # not sanitised: the server closes the connection, the body is cut
        finally:
            self.counters.request(route_of(scope["path"]), status[0])

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


async def _respond(send: Send, status: int, body: bytes, content_type: bytes) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
