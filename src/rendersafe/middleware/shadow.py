"""`ShadowResponder`: one response in monitor mode (`Policy(mode="monitor")`).

Every message goes on as the app sent it, at once, whatever it holds; a `Responder`'s
rewriting runs on a copy, for the findings and failures it records (`enforced: false`)
and counts. Nothing it finds changes what the client gets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.types import Message, Receive, Scope, Send

from ..observe import METRICS
from ..urls.redact import exception_text
from .replies import cause_of, described, logger
from .responder import Responder

if TYPE_CHECKING:
    from .app import RenderSafeMiddleware

__all__ = ["ShadowResponder"]

_WORKING = ("held", "streaming")


class ShadowResponder:
    """Sends the app's messages; rewrites copies of them with a `Responder`'s work."""

    def __init__(self, owner: RenderSafeMiddleware, scope: Scope) -> None:
        self.owner = owner
        self.scope = scope
        self.work = Responder(owner, scope)
        self.complete = False  # the client has been sent the whole response

    async def run(self, receive: Receive, send: Send) -> None:
        """Run the app, its messages sent as they are."""
        try:
            await self._run(receive, send)
        finally:
            await self.work.finish()

    async def _run(self, receive: Receive, send: Send) -> None:
        work = self.work
        try:
            await self.owner.app(self.scope, self._receive(receive), self._sender(send))
        except Exception as exc:  # the app's own error: the server's to handle, as ever
            if work.rewriter.state in _WORKING and not work.disconnected:
                self._failed(f"the application raised {exception_text(exc)}", "app_error")
            raise
        if work.rewriter.state in _WORKING and not work.disconnected:
            self._failed("the application returned before the body ended", "incomplete_body")

    def _receive(self, receive: Receive) -> Receive:
        work = self.work

        async def wrapped() -> Message:
            message = work.request.take(await receive())
            if message["type"] == "http.disconnect":
                self._disconnect()
                await work.exchange.aflush()
            return message

        return wrapped

    def _sender(self, send: Send) -> Send:
        async def sender(message: Message) -> None:
            await self._send(send, message)

        return sender

    async def _send(self, send: Send, message: Message) -> None:
        copied = dict(message)  # the work may rewrite its copy's headers
        try:
            await send(message)
        except OSError:
            self._disconnect()
            raise
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            self.complete = True
        work = self.work
        if work.rewriter.state in ("done", "failed", "passthrough") or work.disconnected:
            return
        try:
            await work.rewriter.outgoing(copied, self.owner.offload)
        except Exception as exc:
            self._failed(described(exc), cause_of(exc))
        await work.exchange.aflush()

    def _disconnect(self) -> None:
        # A client that had it all may leave before the work on the copy is done.
        if not self.complete:
            self.work.disconnect()

    def _failed(self, reason: str, cause: str) -> None:
        """The work on the copy failed: enforce mode would have withheld the response."""
        work = self.work
        message = f"shadow mode: {reason}; the response went out unchanged"
        logger.warning("rendersafe %s %s: %s", work.source.method, work.source.path, message)
        METRICS.withheld(cause, enforced=False)
        work.failure = cause
        work.exchange.event("error", message)
        work.rewriter.drop()
