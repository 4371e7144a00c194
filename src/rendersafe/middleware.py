"""`RenderSafeMiddleware`: sanitise every reply a chat backend sends, streamed or not.

    from rendersafe.middleware import RenderSafeMiddleware
    app.add_middleware(RenderSafeMiddleware, policy=policy, audit=audit, paths=["/v1/*"])

A pure ASGI middleware in the shape of starlette's `GZipMiddleware`: it wraps `send`,
holds `http.response.start` until the first body message, and rewrites each body
message as it passes (server-sent events, NDJSON and text are never buffered; a JSON
body is, and gets its exact `Content-Length`). By default every response whose
content type carries text is covered; `paths` narrows that to matching paths.

Each reply is judged with the conversation its request carries: `receive` is teed
(the app gets every message as it came, at once; up to `max_request_bytes` of the
body are kept aside), and when the response starts the body is read as an OpenAI
chat or Responses, Anthropic Messages, Ollama or AI SDK UI request
(`wire.requests`), or handed to the `conversation` hook of a custom backend.

It fails closed. A covered body it cannot read (an unknown text type, an unknown
content coding, a malformed event), an exception in the app or in the sanitiser:
before the headers are sent, the response becomes a 502 with a JSON error; after,
the held text is dropped and the body ends with the format's error event. Every
finding, failure and client disconnect goes to the audit log with the request's
method, path and request id, and the context the `context` hook (or the
`context_header`) gives the request.

In shadow mode (`Policy(mode="monitor")`) every message goes on as the app sent it, at
once, whatever it holds; the same work runs on a copy, and its findings and failures
are recorded (`enforced: false`) and counted, never acted on.

A FastAPI app's own pages (`/docs`, `/redoc`, `/openapi.json` and the OAuth2 redirect,
wherever the app puts them) are not replies: they pass untouched.
"""

from __future__ import annotations

import contextlib
import fnmatch
import gc
import json
import logging
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Literal, TypeAlias

import anyio
import anyio.to_thread
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .audit import AuditLog, AuditRecord, Source
from .audit.recorder import AuditRecorder, Emit
from .conversation import Conversation
from .errors import FormatError, InputTooLargeError, PolicyError, RenderSafeError
from .findings import Finding
from .observe import METRICS, ReplySpan, reply_span
from .policy import Policy
from .sanitizer import Sanitizer, context_dict
from .urls.redact import exception_text
from .wire import FORMATS, Codec, Texts, codec_for, format_of
from .wire.encoding import Inflater, inflater_for
from .wire.requests import RequestTee, conversation_of, provider_of
from .wire.text_streams import escaped_ends

__all__ = ["ContextHook", "ConversationHook", "RenderSafeMiddleware"]

ConversationHook = Callable[[Scope, bytes], object | None]
"""Reads the conversation of a request to a custom backend: its scope and body (as
much as was kept, inflated); what it returns is passed on as `conversation=`."""

ContextHook = Callable[[Scope], Mapping[str, str] | None]
"""Gives the audit `context` of a request from its scope (a conversation id, a tenant):
put in every record of its response, and the sanitiser's `context=`."""

logger = logging.getLogger("rendersafe.middleware")

# The body may change length: these describe the upstream body, not ours.
_STALE_HEADERS = ("content-length", "content-md5", "etag")
_NO_BODY_STATUS = frozenset({204, 304})
# Messages that carry no body text; any other (a file by path) is refused.
_FORWARDED = frozenset({"http.response.trailers"})
_WITHHELD = "rendersafe withheld the rest of this reply"
_UNAUDITED = "the audit log cannot be written; replies are held back"
# Enough for the conversations chat clients send; past it the rest is not read.
MAX_REQUEST_BYTES = 1 << 20
# A feed runs on the event loop only if what it may settle is under INLINE_CHARS and
# expected to take under INLINE_SECONDS: its characters at the cost per character this
# response's feeds have shown (FIRST_COST until then; honest text measures 1-4 µs),
# plus what each opener it holds costs at worst (a flood of `[` ~40 µs a character, of
# `<img src=a ` ~400 µs a tag); else in a worker thread. An honest token only extends
# its line and settles nothing: it always stays inline.
INLINE_SECONDS = 0.004
INLINE_CHARS = 1024
FIRST_COST = 4e-6
BRACKET_COST = 40e-6
TAG_COST = 400e-6
_MEASURED = 64  # a feed that may settle fewer characters is cheap whatever it holds
# Feeds in worker threads at once, per middleware (the app's own thread pool is not used).
WORKERS = 4
# While a feed runs in a worker, the event loop's thread waits this long at most for
# the GIL after each system call (Python's default, 5 ms, per call, adds up to a stall).
_SWITCH_INTERVAL = 0.0005

# A response is `new` until its start message, then `passthrough` (not ours to
# sanitise) or `held` (its start kept back), `streaming` once the start is sent, and
# `done` or `failed` at the end.
State: TypeAlias = Literal["new", "held", "passthrough", "streaming", "done", "failed"]


class RenderSafeMiddleware:
    """Sanitises the replies of the app it wraps. See the module docstring."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        policy: Policy,
        audit: AuditLog | None = None,
        paths: Sequence[str] | None = None,
        formats: Mapping[str, str] | None = None,
        json_paths: Sequence[str] = (),
        request_id_header: str = "x-request-id",
        max_request_bytes: int = MAX_REQUEST_BYTES,
        conversation: ConversationHook | None = None,
        context: ContextHook | None = None,
        context_header: str | None = None,
    ) -> None:
        if not isinstance(policy, Policy):
            got = type(policy).__name__
            raise PolicyError("policy", f"expected a rendersafe.Policy, got {got}")
        for pattern, fmt in (formats or {}).items():
            if fmt not in FORMATS:
                known = ", ".join(sorted(FORMATS))
                raise PolicyError("formats", f"{pattern!r}: {fmt!r} is not one of {known}")
        if isinstance(max_request_bytes, bool) or not isinstance(max_request_bytes, int):
            raise PolicyError("max_request_bytes", "expected a whole number of bytes (0: none)")
        if max_request_bytes < 0:
            raise PolicyError("max_request_bytes", f"{max_request_bytes} is below 0")
        if conversation is not None and not callable(conversation):
            raise PolicyError("conversation", "expected a callable (scope, body) -> messages")
        if context is not None and not callable(context):
            raise PolicyError("context", "expected a callable (scope) -> {'key': 'value'}")
        self.app = app
        # Its replies are counted and traced here, once per response.
        self.sanitizer = Sanitizer(policy, audit=audit)._observed_as(None)
        self.monitor = policy.mode == "monitor"
        self.context_hook = context
        self.context_header = context_header.lower() if context_header else None
        self.audit = audit
        # Each request records through this, with its own source, into its own list.
        self._recorder = audit.recorder(_MIDDLEWARE, policy) if audit is not None else None
        self.paths = tuple(paths) if paths is not None else None
        self.formats = dict(formats or {})
        self.json_paths = tuple(json_paths)
        self.request_id_header = request_id_header.lower()
        self.max_request_bytes = max_request_bytes
        self.conversation_hook = conversation
        self._limiter: anyio.CapacityLimiter | None = None  # made in the event loop
        if policy.audit_required and audit is None:
            raise PolicyError("audit_required", "the policy requires an audit log: pass audit=")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or not self.covers(path)
            or _framework_page(scope, path, self.app)
        ):
            await self.app(scope, receive, send)
            return
        if self.monitor:
            await _ShadowResponder(self, scope).run(receive, send)
            return
        recorder = self._recorder
        if self.sanitizer.policy.audit_required and recorder is not None and recorder.log.broken:
            METRICS.withheld("audit_required", enforced=True)
            context = self.context_of(scope)
            await self._refuse_unaudited(recorder.at(self.source_of(scope), context=context), send)
            return
        await _Responder(self, scope).run(receive, send)

    @property
    def audit_required(self) -> bool:
        """Does the policy say no reply goes out unless its records are written?"""
        return self.sanitizer.policy.audit_required

    async def _refuse_unaudited(self, recorder: AuditRecorder, send: Send) -> None:
        """503 while the audit log fails. The refusal is recorded too: a write that
        succeeds is how the log is seen to work again."""
        record = recorder.event_record("error", "refused: the audit log cannot be written")
        with contextlib.suppress(RuntimeError):  # a closed log: refuse all the same
            await recorder.log.aemit(record)
        await _refuse(send, 503, _UNAUDITED)

    def limiter(self) -> anyio.CapacityLimiter:
        """The worker threads heavy feeds share."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(WORKERS)
        return self._limiter

    def _request_recorder(
        self, source: Source, emit: Emit, context: dict[str, str]
    ) -> AuditRecorder | None:
        """The recorder of one request: its source and context, its records collected
        by `emit`."""
        if self._recorder is None:
            return None
        return self._recorder.at(source, emit=emit, context=context)

    def context_of(self, scope: Scope) -> dict[str, str]:
        """The audit context of a request: its `context_header`, then what the `context`
        hook returns. Never raises: a hook that fails (or returns other than str to str)
        is logged and gives nothing."""
        context: dict[str, str] = {}
        if self.context_header is not None:
            value = Headers(scope=scope).get(self.context_header)
            if value:
                context[_context_key(self.context_header)] = value[:256]
        if self.context_hook is not None:
            try:
                context.update(context_dict(self.context_hook(scope)))
            except Exception as exc:  # whatever the hook does, the reply is still served
                _log_exception("rendersafe: the context hook raised", exc)
        return context

    def source_of(self, scope: Scope) -> Source:
        """Where a request's audit records come from: method, path, request id."""
        value = Headers(scope=scope).get(self.request_id_header)
        request_id = value[:128] if value else uuid.uuid4().hex
        method, path = scope.get("method"), scope.get("path")
        return Source(kind="middleware", method=method, path=path, request_id=request_id)

    def covers(self, path: str) -> bool:
        """Are responses to `path` sanitised?"""
        return self.paths is None or any(fnmatch.fnmatchcase(path, p) for p in self.paths)

    def pinned_format(self, path: str) -> str | None:
        """The format pinned for `path`, if any."""
        return next((f for p, f in self.formats.items() if fnmatch.fnmatchcase(path, p)), None)

    def conversation_of(
        self, scope: Scope, tee: RequestTee
    ) -> tuple[Conversation | None, tuple[str, ...]]:
        """The conversation of a request (None when it has none), built once for every
        text of its response, and notes on why it may be only part of it. Never raises:
        a conversation it cannot read is None."""
        hook = self.conversation_hook
        notes = tee.notes()
        try:
            if hook is not None:
                return _coerced(hook(scope, tee.body)), notes
            headers = Headers(scope=scope)
            found = conversation_of(
                tee.body,
                content_type=headers.get("content-type"),
                coding=headers.get("content-encoding"),
                whole=tee.whole,
                limit=self.max_request_bytes,
            )
            return Conversation.coerce(found.chat), notes + found.notes
        except Exception as exc:  # whatever the request holds, the reply is still served
            who = "the conversation hook" if hook is not None else "reading the request"
            _log_exception(f"rendersafe: {who} raised", exc)
            return None, (*notes, f"unread: {who} raised {type(exc).__name__}")


class _Responder:
    """One response: its codec, what has been sent, whether the client is still there."""

    def __init__(self, owner: RenderSafeMiddleware, scope: Scope) -> None:
        self.owner = owner
        self.scope = scope
        self.source = owner.source_of(scope)
        self.send: Send = _unset_send
        self.start: Message | None = None  # held until the first body message
        self.codec: Codec | None = None
        self.texts: Texts | None = None
        self.cost = FIRST_COST  # seconds a character settled takes, as measured so far
        self.inflater: Inflater | None = None
        self.state: State = "new"
        self.disconnected = False
        self.request = RequestTee(owner.max_request_bytes)
        # Records wait here and are flushed with `aemit`: `emit` may block, and this
        # runs on the event loop.
        self._pending: list[AuditRecord] = []
        self.context = owner.context_of(scope)
        self.recorder = owner._request_recorder(self.source, self._pending.append, self.context)
        self.span: ReplySpan | None = None
        self.findings = 0
        self.failure: str | None = None  # why it was withheld (shadow mode: would have been)

    async def run(self, receive: Receive, send: Send) -> None:
        """Run the app with wrapped `receive` and `send`."""
        self.send = send
        try:
            await self._run(receive)
        finally:
            await self._flush_audit()
            if self.texts is not None:
                self.texts.flush_metrics()
            if self.span is not None:
                held = self.texts.most_held() if self.texts is not None else 0
                error = "client_disconnect" if self.disconnected else self.failure
                self.span.end(findings=self.findings, held=held, error=error)

    async def _run(self, receive: Receive) -> None:
        try:
            await self.owner.app(self.scope, self._receive(receive), self._send)
        except Exception as exc:
            if self.state in ("new", "passthrough") or self.disconnected:
                raise  # the app's error (or the server's OSError) is not ours to hide
            _log_exception("rendersafe: the application raised", exc)
            if not self.disconnected and self.state not in ("done", "failed"):
                await self._fail(f"the application raised {exception_text(exc)}", "app_error")
            return
        if self.state in ("held", "streaming") and not self.disconnected:
            await self._fail("the application returned before the body ended", "incomplete_body")

    def _receive(self, receive: Receive) -> Receive:
        async def wrapped() -> Message:
            message = self.request.take(await receive())
            if message["type"] == "http.disconnect":
                self._disconnect()
                await self._flush_audit()
            return message

        return wrapped

    async def _send(self, message: Message) -> None:
        if self.disconnected and self.state != "passthrough":
            raise OSError("the client disconnected")  # ASGI 2.4: stop the app
        if self.state in ("done", "failed"):
            return  # the response is over; the app's late messages go nowhere
        sent_state = self.state
        try:
            outgoing = self._token(message)
            if outgoing is None:
                outgoing = await self._outgoing(message)
        except Exception as exc:
            await self._fail(_described(exc), _cause(exc))
            return
        if outgoing is None:
            return
        if self._pending and not await self._flush_audit(required=self.owner.audit_required):
            # Under `audit_required`, text whose records were not written is not sent:
            # nothing of `outgoing` went out, so the response is where it was before.
            self.state = sent_state
            await self._fail("its audit records could not be written", "audit_required", 503)
            return
        for item in outgoing:
            await self._forward(item)

    async def _outgoing(self, message: Message) -> list[Message] | None:
        """What to send for `message`, worked out on the loop or in a worker; None if
        the client left meanwhile."""
        settles = self._settles(message)
        if not self._heavy(settles, message):
            return self._timed(message, settles)
        # Off the event loop, so one stream's flood does not stall the others; the app
        # waits on this `send`, so the order of its messages holds.
        limiter = self.owner.limiter()
        with _QUICK_SWITCH:
            outgoing = await anyio.to_thread.run_sync(
                self._timed, message, settles, limiter=limiter
            )
        if self.disconnected:
            self.state = "failed"  # the client left while the worker ran
            return None
        return outgoing

    def _token(self, message: Message) -> list[Message] | None:
        """What to send for the usual token of a stream, in the fewest steps: a body
        message, more to come, that the codec takes whole (`Codec.token`) and that may
        settle fewer than `_MEASURED` characters, so it runs here, as `_outgoing` would
        run it; None, having read nothing, for any other message (`_outgoing`'s)."""
        if (
            self.state != "streaming"
            or message["type"] != "http.response.body"
            or not message.get("more_body", False)
            or self.inflater is not None
        ):
            return None
        codec, texts = self.codec, self.texts
        if codec is None or texts is None or codec.buffered:
            return None
        body = message.get("body", b"")
        # What `reach` bounds it by, for an event that cannot end a text (the only
        # kind `token` takes): its length, and its escaped line ends.
        if texts.settles_at_most(len(body), escaped_ends(body)) >= _MEASURED:
            return None
        out = codec.token(body)
        if out is None:
            return None
        return [{"type": "http.response.body", "body": out, "more_body": True}] if out else []

    def _settles(self, message: Message) -> int:
        """At most how many characters handling `message` settles (what it costs),
        judged before, cheaply: 0 for a token that only extends its line."""
        codec, texts = self.codec, self.texts
        if codec is None or texts is None or message["type"] != "http.response.body":
            return 0
        body = message.get("body", b"")
        if self.inflater is not None:  # how much text it inflates to is not known before
            return INLINE_CHARS if body else 0
        final = not message.get("more_body", False)
        added, line_ends = codec.reach(body, final=final)
        return added if codec.buffered else texts.settles_at_most(added, line_ends)

    def _heavy(self, settles: int, message: Message) -> bool:
        """Would settling `settles` characters (for `message`) hold the loop too long?"""
        if settles < _MEASURED or self.texts is None:
            return False
        expected = settles * self.cost
        if settles >= INLINE_CHARS or expected >= INLINE_SECONDS:
            return True
        body: bytes = message.get("body", b"")
        brackets, tags = self.texts.openers()
        brackets, tags = brackets + body.count(b"["), tags + body.count(b"<")
        return expected + brackets * BRACKET_COST + tags * TAG_COST >= INLINE_SECONDS

    def _timed(self, message: Message, settles: int) -> list[Message]:
        """`_handle`, learning from its CPU time what a character costs this response."""
        if settles < _MEASURED:
            return self._handle(message)
        began = time.thread_time()
        try:
            return self._handle(message)
        finally:
            cost = (time.thread_time() - began) / settles
            # Up at once (a flood shows itself), down slowly (one cheap unit proves little).
            self.cost = max(cost, 0.8 * self.cost + 0.2 * cost)

    def _handle(self, message: Message) -> list[Message]:
        """What to send on for `message` (worked out before anything is sent)."""
        kind = message["type"]
        if kind == "http.response.start":
            return self._start(message)
        if self.state == "passthrough" or kind in _FORWARDED:
            return [message]
        if kind == "http.response.body":
            return self._body(message.get("body", b""), more=message.get("more_body", False))
        # pathsend, zerocopysend: a file the server would send unread
        raise FormatError(f"{kind} cannot be sanitised; send the body itself")

    def _start(self, message: Message) -> list[Message]:
        # ASGI asks for lower-case names, servers accept any: read them as clients do.
        message["headers"] = [(name.lower(), value) for name, value in message["headers"]]
        headers = Headers(raw=message["headers"])
        pinned = self.owner.pinned_format(self.source.path or "")
        fmt = pinned or _format(headers.getlist("content-type"))
        bodiless = message["status"] in _NO_BODY_STATUS or self.source.method == "HEAD"
        if fmt is None or bodiless:
            self.state = "passthrough"
            return [message]
        self.start, self.state = message, "held"
        if fmt == "unsupported":
            raise FormatError(
                f"cannot sanitise content type {headers.get('content-type')!r}; "
                "narrow `paths` or pin a format for this path"
            )
        self.inflater = inflater_for(headers.get("content-encoding"))
        self.codec = self._codec(fmt, headers.get("content-type"))
        return []

    def _conversation(self) -> tuple[Conversation | None, dict[str, str]]:
        """What the request says the model saw, read now that the response starts (the
        app has read the body by then, or as much as it will); and the context: the
        request's, and why the conversation may be only part of it."""
        conversation, notes = self.owner.conversation_of(self.scope, self.request)
        for note in notes:
            level = logging.WARNING if note.startswith(("cut", "unread")) else logging.INFO
            logger.log(level, "rendersafe %s %s: %s", self.source.method, self.source.path, note)
        noted = {"conversation": "; ".join(notes)} if notes else {}
        return conversation, {**self.context, **noted}

    def _codec(self, fmt: str, content_type: str | None) -> Codec:
        """The codec of this body, its texts sanitised with this request's recorder and
        judged with its conversation."""
        sanitizer = self.owner.sanitizer
        mode = sanitizer.policy.mode
        METRICS.reply("middleware", mode)
        self.span = reply_span("middleware", mode)
        if self.span is not None:
            for name, value in provider_of(self.source.path, self.request.body).items():
                self.span.set(name, value)
        conversation, context = self._conversation()
        texts = Texts(
            sanitizer._recording(self.recorder),
            self._found,
            conversation=conversation,
            context=context,
        )
        self.texts = texts
        return codec_for(
            fmt,
            texts,
            charset=_charset(content_type),
            json_paths=self.owner.json_paths,
            json_limit=4 * sanitizer.policy.max_input_chars,
        )

    def _body(self, body: bytes, *, more: bool) -> list[Message]:
        codec = self.codec  # once: a disconnect (on the loop) may drop it meanwhile
        if codec is None:
            raise FormatError("a body message before the start message")
        data = self.inflater.feed(body) if self.inflater else body
        if not more and self.inflater:
            data += self.inflater.close()
        out = codec.feed(data)
        if not more:
            out += codec.close()
        outgoing = []
        if self.state == "held":
            if more and codec.buffered:
                return []
            outgoing.append(self._settled_start(None if more else len(out)))
        if out or not more:
            outgoing.append({"type": "http.response.body", "body": out, "more_body": more})
        if not more:
            self.state = "done"
        return outgoing

    def _settled_start(self, length: int | None) -> Message:
        """The start message, its headers made true of the body that follows."""
        if self.start is None:
            raise FormatError("no start message to send")
        headers = MutableHeaders(scope=self.start)
        for name in _STALE_HEADERS:
            del headers[name]
        if self.inflater is not None:
            del headers["content-encoding"]
        if length is not None:
            headers["content-length"] = str(length)
        self.state = "streaming"
        return self.start

    def _found(self, finding: Finding) -> None:
        self.findings += 1

    async def _fail(self, reason: str, cause: str, status: int = 502) -> None:
        """End the response without sending anything held (`status`: the answer when
        nothing was sent yet); `cause` names why, in the metrics."""
        logger.warning("rendersafe %s %s: %s", self.source.method, self.source.path, reason)
        METRICS.withheld(cause, enforced=True)
        self.failure = cause
        if self.recorder is not None:
            self.recorder.event("error", reason)
        await self._flush_audit()  # recorded before the client can see the end
        held, self.state = self.state, "failed"
        try:
            if held == "held" and status == 503:
                await _refuse(self.send, 503, _UNAUDITED, self.source.request_id)
            elif held == "held":
                await self._send_502()
            elif held == "streaming":
                frame = self.codec.error_frame(_WITHHELD) if self.codec else b""
                await self._forward({"type": "http.response.body", "body": frame})
        except OSError:
            self._disconnect()

    async def _send_502(self) -> None:
        await _refuse(self.send, 502, _WITHHELD, self.source.request_id)

    async def _forward(self, message: Message) -> None:
        try:
            await self.send(message)
        except OSError:
            self._disconnect()
            raise

    async def _flush_audit(self, *, required: bool = False) -> bool:
        """Hand the records made so far to the audit log (waiting if its queue is full);
        if `required`, wait until they are written too. False: they are not (yet)."""
        if self.recorder is None or not self._pending:
            return True
        # The same list the recorder's `emit` appends to (from a worker thread, too):
        # take what is there now, leave what comes meanwhile.
        count = len(self._pending)
        pending = self._pending[:count]
        del self._pending[:count]
        log = self.recorder.log
        try:
            for record in pending:
                await log.aemit(record)
        except RuntimeError as exc:  # a closed log: the response goes on regardless
            logger.error("rendersafe: %d audit records lost: %s", len(pending), exc)
            return not required
        return await log.awritten() if required else True

    def _disconnect(self) -> None:
        if self.disconnected:
            return
        self.disconnected = True
        if self.state in ("held", "streaming"):
            METRICS.disconnect()
            if self.recorder is not None:
                self.recorder.event("disconnect", "the client went away mid-response")
            self.state, self.codec = "failed", None  # drop what is held


class _ShadowResponder(_Responder):
    """Shadow mode: every message goes on as the app sent it, at once; `_Responder`'s
    work runs on a copy, for the findings and failures it records."""

    async def _run(self, receive: Receive) -> None:
        try:
            await self.owner.app(self.scope, self._receive(receive), self._send)
        except Exception as exc:  # the app's own error: the server's to handle, as ever
            if self.state in ("held", "streaming") and not self.disconnected:
                self._shadow_failed(f"the application raised {exception_text(exc)}", "app_error")
            raise
        if self.state in ("held", "streaming") and not self.disconnected:
            self._shadow_failed("the application returned before the body ended", "incomplete_body")

    complete = False  # the client has been sent the whole response

    async def _send(self, message: Message) -> None:
        copied = dict(message)  # the work may rewrite its copy's headers
        await self._forward(message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            self.complete = True
        if self.state in ("done", "failed", "passthrough") or self.disconnected:
            return
        try:
            if self._token(copied) is None:
                await self._outgoing(copied)
        except Exception as exc:
            self._shadow_failed(_described(exc), _cause(exc))
        await self._flush_audit()

    def _disconnect(self) -> None:
        # A client that had it all may leave before the work on the copy is done.
        if not self.complete:
            super()._disconnect()

    def _shadow_failed(self, reason: str, cause: str) -> None:
        """The work on the copy failed: enforce mode would have withheld the response."""
        message = f"shadow mode: {reason}; the response went out unchanged"
        logger.warning("rendersafe %s %s: %s", self.source.method, self.source.path, message)
        METRICS.withheld(cause, enforced=False)
        self.failure = cause
        if self.recorder is not None:
            self.recorder.event("error", message)
        self.state, self.codec = "failed", None


def _cause(exc: Exception) -> str:
    """The cause a failure is counted under."""
    if isinstance(exc, InputTooLargeError):
        return "too_large"
    if isinstance(exc, FormatError):
        return "format_error"
    return "sanitize_failure"


def _context_key(header: str) -> str:
    """The context key of a header: `x-conversation-id` gives `conversation_id`."""
    name = header[2:] if header.startswith("x-") else header
    return name.replace("-", "_")


# The attributes of a FastAPI app that name the pages it serves about itself.
_FRAMEWORK_PAGES = ("openapi_url", "docs_url", "redoc_url", "swagger_ui_oauth2_redirect_url")


def _framework_page(scope: Scope, path: str, wrapped: ASGIApp) -> bool:
    """Is `path` a page the app's framework serves about the app (FastAPI's OpenAPI
    schema and its documentation), not a reply? The app is the scope's (added with
    `app.add_middleware`) or the one wrapped."""
    app = scope.get("app", wrapped)
    if getattr(app, "openapi_url", None) is None:
        return False
    root = scope.get("root_path", "")
    for name in _FRAMEWORK_PAGES:
        url = getattr(app, name, None)
        if isinstance(url, str) and url and path in (url, root + url):
            return True
    return False


def _described(exc: Exception) -> str:
    """Why a response failed: our own errors say it without quoting the body; any other
    exception's text is bounded and redacted."""
    if isinstance(exc, RenderSafeError):
        return f"{type(exc).__name__}: {str(exc)[:300]}"
    return exception_text(exc)


def _log_exception(message: str, exc: BaseException) -> None:
    """Log `exc` with where it was raised but not its text, which may quote the reply."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = "".join(f"\n  {f.filename}:{f.lineno} in {f.name}" for f in frames[-8:])
    logger.warning("%s %s%s", message, exception_text(exc), where)


async def _refuse(send: Send, status: int, message: str, request_id: str | None = None) -> None:
    """Answer with an error of ours, in JSON."""
    error = {"type": "rendersafe_error", "message": message, "request_id": request_id}
    body = json.dumps({"error": error}).encode()
    length = str(len(body)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", length)]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


_MIDDLEWARE = Source(kind="middleware")


class _QuickSwitch:
    """While any worker feed runs: a shorter switch interval, and no cyclic garbage
    collection; both put back after the last (unless someone else changed them).

    A flood's feed allocates hundreds of thousands of objects, and a full collection
    over them holds the GIL 50 to 200 ms, stalling every stream on the event loop.
    The sanitiser makes no cyclic garbage (measured: none on any flood), so pausing the
    collector loses nothing of ours; what others make meanwhile waits for the
    collector's next run after the feed, seconds at most."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._saved = sys.getswitchinterval()
        self._paused_gc = False

    def __enter__(self) -> None:
        with self._lock:
            if self._running == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(self._saved, _SWITCH_INTERVAL))
                self._paused_gc = gc.isenabled()
                gc.disable()
            self._running += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._running -= 1
            if self._running:
                return
            if sys.getswitchinterval() == min(self._saved, _SWITCH_INTERVAL):
                sys.setswitchinterval(self._saved)
            if self._paused_gc and not gc.isenabled():
                gc.enable()
            self._paused_gc = False


_QUICK_SWITCH = _QuickSwitch()


async def _unset_send(message: Message) -> None:
    raise RuntimeError("send used before run()")


def _format(content_types: list[str]) -> str | None:
    """The format of the content type; two that disagree are read as a client may."""
    formats = {format_of(value) for value in content_types} or {format_of(None)}
    if len(formats) == 1:
        return formats.pop()
    return "unsupported"


def _coerced(value: object) -> Conversation | None:
    """What a hook returned, as a conversation."""
    if value is None or isinstance(value, Conversation | str | Iterable):
        return Conversation.coerce(value)
    raise TypeError(f"a conversation is messages or a str, not {type(value).__name__}")


def _charset(content_type: str | None) -> str | None:
    for param in (content_type or "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"') or None
    return None
