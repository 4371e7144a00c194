"""`Exchange`: one request's sanitising, the unit every host integration drives.

    exchange = Exchange(sanitizer, conversation=request["messages"], context={"user": "u1"})
    if not exchange.may_serve():            # audit_required, and the audit log is down
        ...answer 503, exchange.refused() recorded it
    safe = exchange.run(reply)              # a whole reply
    safe = exchange.feed(token)             # or a stream: feed() each chunk, then close()
    safe += exchange.close()
    await exchange.aflush()                 # hand its audit records to the log

    exchange = Exchange.from_request(sanitizer, body, content_type=..., coding=...)
    codec = exchange.codec("sse")           # a wire format's texts, each its own stream

The conversation is read once (any shape `rendersafe.shapes` reads, or a raw request
body with `from_request`) and every text of the request is judged with it; why it may
be only part of the conversation goes to the audit context (`conversation`). The
audit records of the request wait in the exchange until `flush`/`aflush` (an
integration on an event loop must not block on a full audit queue mid-token), each with
the request's source and context. The ASGI middleware, `rendersafe proxy`, the LiteLLM
guardrail and the framework adapters are thin translations of their host's hooks onto
this object.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Hashable, Mapping, Sequence

from .audit import AuditRecord, Event, Source
from .conversation import Conversation, ConversationLike
from .findings import Finding
from .sanitizer import Sanitizer, context_dict
from .wire import Codec, Texts, codec_for
from .wire.requests import conversation_of

__all__ = ["MAX_REQUEST_BYTES", "Exchange"]

logger = logging.getLogger("rendersafe")

# Enough for the conversations chat clients send; past it the rest is not read.
MAX_REQUEST_BYTES = 1 << 20
_KEY = 0  # the one text of a plain reply


class Exchange:
    """One request: its conversation, its texts, its audit records.

    `sanitizer` is shared (build it once); the exchange records through it with the
    request's `source` (where its records say they come from) and `context` (put in
    every record). `report` is called with each finding as it is made.
    """

    def __init__(
        self,
        sanitizer: Sanitizer,
        *,
        conversation: ConversationLike = None,
        context: Mapping[str, str] | None = None,
        source: Source | None = None,
        notes: Sequence[str] = (),
        report: Callable[[Finding], None] | None = None,
    ) -> None:
        self.source = source or Source(kind="middleware", request_id=uuid.uuid4().hex)
        self.conversation, read_notes = _conversation(conversation)
        self.notes = (*notes, *read_notes)
        self.context = context_dict(context)
        if self.notes:
            self.context["conversation"] = "; ".join(dict.fromkeys(self.notes))[:1000]
        # Records wait here until `flush`: emitting may block (a full queue).
        self.pending: list[AuditRecord] = []
        base = sanitizer.recorder
        self.recorder = (
            base.at(self.source, emit=self.pending.append, context=self.context) if base else None
        )
        self.sanitizer = sanitizer.recording(self.recorder)
        self.findings = 0
        self._report = report
        self.texts = Texts(
            self.sanitizer, self._found, conversation=self.conversation, context=self.context
        )

    @classmethod
    def from_request(
        cls,
        sanitizer: Sanitizer,
        body: bytes,
        *,
        content_type: str | None = None,
        coding: str | None = None,
        whole: bool = True,
        limit: int = MAX_REQUEST_BYTES,
        context: Mapping[str, str] | None = None,
        source: Source | None = None,
        notes: Sequence[str] = (),
        report: Callable[[Finding], None] | None = None,
    ) -> Exchange:
        """The exchange of a request whose raw `body` carries the conversation (`whole`:
        all of it was read; else what was), inflated if `coding` is gzip or deflate.
        Never raises for what the body holds: what cannot be read is noted."""
        try:
            found = conversation_of(
                body, content_type=content_type, coding=coding, whole=whole, limit=limit
            )
            chat, found_notes = found.chat, found.notes
        except Exception as exc:  # whatever the request holds, the reply is still served
            logger.warning("rendersafe: reading the request raised %s", type(exc).__name__)
            chat, found_notes = None, (f"unread: reading the request raised {type(exc).__name__}",)
        return cls(
            sanitizer,
            conversation=chat,
            context=context,
            source=source,
            notes=(*notes, *found_notes),
            report=report,
        )

    # --- the reply ------------------------------------------------------------------

    def run(self, text: str) -> str:
        """Sanitise a whole reply (recorded; `SanitizeError` if it cannot be)."""
        return self.texts.one_shot(text)

    def feed(self, chunk: str, key: Hashable = _KEY) -> str:
        """Sanitise the next piece of the streamed text `key`; what is safe to send now."""
        return self.texts.feed(key, chunk)

    def close(self, key: Hashable = _KEY) -> str:
        """End the streamed text `key`; the rest of it."""
        return self.texts.close(key)

    def check_url(self, url: str, *, image: bool = False) -> Finding | None:
        """The finding that removes a citation (or an image a client shows beside the
        text), recorded; None when it may stay."""
        return self.texts.judge_url(url, image=image)

    def codec(
        self,
        fmt: str,
        *,
        charset: str | None = None,
        json_paths: Sequence[str] = (),
        json_limit: int | None = None,
    ) -> Codec:
        """A codec of wire format `fmt` whose texts are this exchange's."""
        limit = json_limit or 4 * self.sanitizer.policy.max_input_chars
        return codec_for(fmt, self.texts, charset=charset, json_paths=json_paths, json_limit=limit)

    # --- the audit log --------------------------------------------------------------

    def may_serve(self) -> bool:
        """May a reply be served? Not while the policy requires the audit log and the
        log cannot be written."""
        log = self.recorder.log if self.recorder is not None else None
        return not (self.sanitizer.policy.audit_required and log is not None and log.broken)

    def refused(self) -> None:
        """Record that the reply was refused because the audit log cannot be written
        (a write that succeeds is how the log is seen to work again)."""
        self.event("error", "refused: the audit log cannot be written")

    def event(self, kind: Event, message: str) -> None:
        """Record an error or a disconnect of this request."""
        if self.recorder is not None:
            self.recorder.event(kind, message)

    def flush(self) -> bool:
        """Hand the records made so far to the audit log (blocking while its queue is
        full). False when the log is closed: they are lost (and logged)."""
        pending = self._take()
        if not pending or self.recorder is None:
            return True
        try:
            for record in pending:
                self.recorder.log.emit(record)
        except RuntimeError as exc:
            logger.error("rendersafe: %d audit records lost: %s", len(pending), exc)
            return False
        return True

    async def aflush(self, *, required: bool = False) -> bool:
        """`flush` for an event loop: waits for room in the queue without blocking it;
        with `required`, until the records are written too. False: they are not."""
        pending = self._take()
        if not pending or self.recorder is None:
            return True
        log = self.recorder.log
        try:
            for record in pending:
                await log.aemit(record)
        except RuntimeError as exc:  # a closed log: the response goes on regardless
            logger.error("rendersafe: %d audit records lost: %s", len(pending), exc)
            return not required
        return await log.awritten() if required else True

    def finish(self) -> None:
        """Merge this request's timings into the metrics (at its end)."""
        self.texts.flush_metrics()

    def _take(self) -> list[AuditRecord]:
        # The same list the recorder's `emit` appends to (from a worker thread, too):
        # take what is there now, leave what comes meanwhile.
        count = len(self.pending)
        taken = self.pending[:count]
        del self.pending[:count]
        return taken

    def _found(self, finding: Finding) -> None:
        self.findings += 1
        if self._report is not None:
            self._report(finding)


def _conversation(value: ConversationLike) -> tuple[Conversation | None, tuple[str, ...]]:
    """`value` as a conversation, and what of it was not read. Never raises: a value
    that cannot be read at all is noted (the judge is stricter without it)."""
    try:
        conversation = Conversation.coerce(value)
    except Exception as exc:  # a hook's odd return, a number: the reply is still served
        return None, (f"unread: the conversation is a {type(exc).__name__}",)
    return conversation, conversation.notes if conversation is not None else ()
