"""`Responder`: one response in enforce mode. It sends what the rewriter gives and
fails closed: nothing held goes out after a failure, and the client learns of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.types import Message, Receive, Scope, Send

from ..exchange import Exchange
from ..observe import METRICS, ReplySpan, reply_span
from ..urls.redact import exception_text
from ..wire.requests import RequestTee, provider_of
from .replies import UNAUDITED, WITHHELD, cause_of, described, log_exception, logger, refuse
from .rewriter import Rewriter

if TYPE_CHECKING:
    from .app import RenderSafeMiddleware

__all__ = ["Responder"]


class Responder:
    """One response: its rewriter, what has been sent, whether the client is still there."""

    def __init__(self, owner: RenderSafeMiddleware, scope: Scope) -> None:
        self.owner = owner
        self.scope = scope
        self.source = owner.source_of(scope)
        self.request = RequestTee(owner.max_request_bytes)
        self.rewriter = Rewriter(
            self.source.method,
            owner.pinned_format(self.source.path or ""),
            self._open_exchange,
            owner.json_paths,
            sniff=owner.sniff,
        )
        self.send: Send = _unset_send
        self.disconnected = False
        self.span: ReplySpan | None = None
        self.failure: str | None = None  # why it was withheld (shadow mode: would have been)
        self._bare: Exchange | None = None  # records of a response refused before it started

    @property
    def exchange(self) -> Exchange:
        """The request's exchange: the rewriter's, or one without a conversation for the
        records of a response refused before the exchange began."""
        if self.rewriter.exchange is not None:
            return self.rewriter.exchange
        if self._bare is None:
            owner = self.owner
            self._bare = Exchange(
                owner.sanitizer, context=owner.context_of(self.scope), source=self.source
            )
        return self._bare

    def _open_exchange(self) -> Exchange:
        """Read the request (the app has read its body by then, or as much as it will)."""
        mode = self.owner.sanitizer.policy.mode
        METRICS.reply("middleware", mode)
        self.span = reply_span("middleware", mode)
        if self.span is not None:
            for name, value in provider_of(self.source.path, self.request.body).items():
                self.span.set(name, value)
        return self.owner.exchange_for(self.scope, self.request)

    async def run(self, receive: Receive, send: Send) -> None:
        """Run the app with wrapped `receive` and `send`."""
        self.send = send
        try:
            await self._run(receive)
        finally:
            await self.finish()

    async def finish(self) -> None:
        """At the end of the response: its records to the log, its metrics, its span."""
        await self.exchange.aflush()
        self.exchange.finish()
        if self.span is not None:
            held = self.exchange.texts.most_held()
            error = "client_disconnect" if self.disconnected else self.failure
            self.span.end(findings=self.exchange.findings, held=held, error=error)

    async def _run(self, receive: Receive) -> None:
        state = self.rewriter
        try:
            await self.owner.app(self.scope, self.receive(receive), self._send)
        except Exception as exc:
            if state.state in ("new", "passthrough") or self.disconnected:
                raise  # the app's error (or the server's OSError) is not ours to hide
            log_exception("rendersafe: the application raised", exc)
            if not self.disconnected and state.state not in ("done", "failed"):
                await self._fail(f"the application raised {exception_text(exc)}", "app_error")
            return
        if state.state in ("held", "streaming") and not self.disconnected:
            await self._fail("the application returned before the body ended", "incomplete_body")

    def receive(self, receive: Receive) -> Receive:
        """`receive`, its body kept aside (the conversation), a disconnect noted."""

        async def wrapped() -> Message:
            message = self.request.take(await receive())
            if message["type"] == "http.disconnect":
                self.disconnect()
                await self.exchange.aflush()
            return message

        return wrapped

    async def _send(self, message: Message) -> None:
        state = self.rewriter
        if self.disconnected and state.state != "passthrough":
            raise OSError("the client disconnected")  # ASGI 2.4: stop the app
        if state.state in ("done", "failed"):
            return  # the response is over; the app's late messages go nowhere
        sent_state = state.state
        try:
            outgoing = await state.outgoing(message, self.owner.offload)
        except Exception as exc:
            await self._fail(described(exc), cause_of(exc))
            return
        if self.disconnected:
            state.drop()  # the client left while a worker ran
            return
        exchange = self.exchange
        if exchange.pending and not await exchange.aflush(required=self.owner.audit_required):
            # Under `audit_required`, text whose records were not written is not sent:
            # nothing of `outgoing` went out, so the response is where it was before.
            state.state = sent_state
            await self._fail("its audit records could not be written", "audit_required", 503)
            return
        for item in outgoing:
            await self._forward(item)

    async def _fail(self, reason: str, cause: str, status: int = 502) -> None:
        """End the response without sending anything held (`status`: the answer when
        nothing was sent yet); `cause` names why, in the metrics."""
        logger.warning("rendersafe %s %s: %s", self.source.method, self.source.path, reason)
        METRICS.withheld(cause, enforced=True)
        self.failure = cause
        exchange = self.exchange
        exchange.event("error", reason)
        await exchange.aflush()  # recorded before the client can see the end
        held = self.rewriter.state
        frame = self.rewriter.error_frame(WITHHELD) if held == "streaming" else b""
        self.rewriter.drop()
        try:
            if held == "held":
                message = UNAUDITED if status == 503 else WITHHELD
                await refuse(self.send, status, message, self.source.request_id)
            elif held == "streaming":
                await self._forward({"type": "http.response.body", "body": frame})
        except OSError:
            self.disconnect()

    async def _forward(self, message: Message) -> None:
        try:
            await self.send(message)
        except OSError:
            self.disconnect()
            raise

    def disconnect(self) -> None:
        """The client went away: drop what is held, and record it if it was mid-response."""
        if self.disconnected:
            return
        self.disconnected = True
        if self.rewriter.state in ("held", "streaming"):
            METRICS.disconnect()
            self.exchange.event("disconnect", "the client went away mid-response")
            self.rewriter.drop()  # drop what is held


async def _unset_send(message: Message) -> None:
    raise RuntimeError("send used before run()")
