"""`Sanitizer` and `sanitize()`: the two front doors.

    clean = sanitize(reply)                         # default policy
    s = Sanitizer(Policy(allowed_image_hosts=["cdn.example.com"]))
    result = s.run(reply, context={"conversation_id": "c1"})
    result.text, result.findings

A reply is cut into units (`segment`) and each unit is sanitised in order
(`units`), carrying what it leaves to the next. `Sanitizer.stream()` does the
same as text arrives, so a stream's output equals `run()`'s exactly.

Shadow mode, `Policy(mode="monitor")`: `run()` returns the text as it came, and the
stream every chunk at once, with every finding they would have made marked
`enforced=False` (recorded in the audit log, counted in the metrics); a failure to
sanitise is recorded and logged, never raised. Building one logs a WARNING on the
`rendersafe` logger, so shadow mode is never on by accident.
"""

from __future__ import annotations

import copy
import functools
import logging
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping

from .audit.log import AuditLog
from .audit.record import Source
from .audit.recorder import AuditRecorder
from .conversation import Conversation, ConversationLike
from .engine.carry import Carry
from .engine.state import Compiled
from .errors import InputTooLargeError, RenderSafeError, SanitizeError
from .findings import Action, Construct, Finding, Result
from .markdown.parser import build_parser
from .observe import METRICS, ReplySpan, reply_span
from .policy import Policy
from .streaming import StreamSanitizer
from .units.segment import Segmenter
from .units.sent import SentText
from .units.settle import UnitSanitizer
from .urls import Role, redact, redact_host
from .urls.hosts import warm_up
from .urls.redact import exception_text

__all__ = ["Sanitizer", "asanitize_stream", "sanitize", "sanitize_stream"]

logger = logging.getLogger("rendersafe")
_SHADOW_WARNING = (
    "rendersafe is in shadow mode (policy mode=monitor): replies pass UNCHANGED; findings "
    "are only recorded (enforced=false), nothing unsafe is removed"
)


class Sanitizer:
    """Sanitises replies under one policy. Build once and reuse; it is thread-safe.

    `sanitize(text, policy)` is the one-line form of `Sanitizer(policy).run(text).text`;
    `Sanitizer(policy).stream()` sanitises a reply as it arrives. With an `audit` log,
    every finding is also recorded there, with the caller's `context`.
    """

    def __init__(self, policy: Policy | None = None, *, audit: AuditLog | None = None) -> None:
        self.policy = policy if policy is not None else Policy()
        self.audit = audit
        self._recorder = audit.recorder(_FUNCTION, self.policy) if audit is not None else None
        self.units = UnitSanitizer(Compiled.of(self.policy), build_parser())
        self.monitor = self.policy.mode == "monitor"
        # What replies are counted and traced as: None by the method ("run", "stream");
        # `_observed` False: the caller (the middleware) does it, once per response.
        self._label: str | None = None
        self._observed = True
        warm_up()
        METRICS.mode(self.policy.mode)
        if self.monitor:
            logger.warning(_SHADOW_WARNING)

    def run(
        self,
        text: str,
        *,
        context: Mapping[str, str] | None = None,
        conversation: ConversationLike = None,
    ) -> Result:
        """Sanitise `text`; return the safe text and a finding for every change.

        `conversation` is what the model saw (strings, chat messages in the OpenAI,
        Anthropic, Ollama or Responses shapes, or a `Conversation` built once): a URL
        carrying a piece of it is removed (reason `conversation_data`), and a URL
        copied from it is not held to the reply-only data heuristics.

        Raises `TypeError` for non-`str` input, `InputTooLargeError` above
        `policy.max_input_chars`, and `SanitizeError` for any internal failure.
        No path returns unsanitised text.
        """
        if not isinstance(text, str):
            raise TypeError(
                f"rendersafe sanitises str, not {type(text).__name__}; decode bytes first "
                "(e.g. reply.decode('utf-8'))"
            )
        extra = context_dict(context)
        span = self._start("run")
        try:
            result = self._checked(text, extra, conversation)
        except RenderSafeError as exc:
            if span is not None:
                span.end(findings=0, error=type(exc).__name__)
            if not self.monitor:
                raise
            self._shadow_failed(exc)
            return Result(text=text)
        if self.monitor:
            findings = tuple(f.model_copy(update={"enforced": False}) for f in result.findings)
            result = Result(text=text, findings=findings)
        for finding in result.findings:
            self.record(finding)
        if span is not None:
            span.end(findings=len(result.findings))
        return result

    def _checked(
        self, text: str, context: dict[str, str], conversation: ConversationLike
    ) -> Result:
        """`run`'s work, every failure a `RenderSafeError`."""
        if len(text) > self.policy.max_input_chars:
            raise InputTooLargeError(len(text), self.policy.max_input_chars)
        reply = self.units.for_reply(Conversation.coerce(conversation), self._signing(context))
        try:
            return self._run(reply, text, context)
        except RenderSafeError:
            raise
        except Exception as exc:
            what = exception_text(exc)
            raise SanitizeError(f"internal error while sanitising: {what}") from exc

    def _start(self, method: str) -> ReplySpan | None:
        """Count a reply and start its span (unless the caller does both)."""
        if not self._observed:
            return None
        source = self._label or method
        METRICS.reply(source, self.policy.mode)
        return reply_span(source, self.policy.mode)

    def _shadow_failed(self, exc: Exception) -> None:
        """Shadow mode: sanitising failed; the reply went out unchanged all the same."""
        message = f"shadow mode: sanitising failed, the reply went out unchanged: {exc}"
        logger.warning("rendersafe: %s", message)
        METRICS.withheld("sanitize_failure", enforced=False)
        if self._recorder is not None:
            self._recorder.event("error", message[:500])

    def stream(
        self,
        *,
        context: Mapping[str, str] | None = None,
        on_finding: Callable[[Finding], None] | None = None,
        conversation: ConversationLike = None,
    ) -> StreamSanitizer:
        """A `StreamSanitizer` for one reply: `feed()` chunks, then `close()`.

        `on_finding` is called with each finding as it is made (an audit log's hook);
        `conversation` is as for `run`.
        """
        hook = self.record if on_finding is None else _both(self.record, on_finding)
        extra = context_dict(context)
        units = self.units.for_reply(Conversation.coerce(conversation), self._signing(extra))
        span = self._start("stream")
        on_end = self._stream_ended(span) if span is not None or self.monitor else None
        return StreamSanitizer(units, extra, hook, monitor=self.monitor, on_end=on_end)

    def _stream_ended(
        self, span: ReplySpan | None
    ) -> Callable[[StreamSanitizer, Exception | None], None]:
        def ended(stream: StreamSanitizer, error: Exception | None) -> None:
            if span is not None:
                error_type = type(error).__name__ if error is not None else None
                span.end(findings=len(stream.findings), held=stream.most_held, error=error_type)
            if error is not None and self.monitor:
                self._shadow_failed(error)

        return ended

    def record(self, finding: Finding) -> None:
        """Count `finding` and record it in the audit log (`run` and `stream` do this
        for theirs; a caller that judged a URL with `check_url` and acted on it too)."""
        METRICS.finding(finding)
        if self._recorder is not None:
            self._recorder.finding(finding)

    @property
    def recorder(self) -> AuditRecorder | None:
        """What records this sanitiser's findings (None without an audit log)."""
        return self._recorder

    def recording(self, recorder: AuditRecorder | None) -> Sanitizer:
        """This sanitiser (its policy and compiled state shared) recording its findings
        with `recorder` instead: one per request (`Exchange` makes them)."""
        if recorder is None:
            return self
        view = copy.copy(self)
        view._recorder = recorder
        return view

    def counted_as(self, source: str | None) -> Sanitizer:
        """This sanitiser counting and tracing its replies as `source` ("scan"); None:
        not at all, its caller does (the middleware, once per response)."""
        view = copy.copy(self)
        view._label, view._observed = source, source is not None
        return view

    def check_url(
        self,
        url: str,
        *,
        image: bool = False,
        construct: Construct = Construct.CITATION,
        context: Mapping[str, str] | None = None,
        conversation: ConversationLike = None,
    ) -> Finding | None:
        """The finding that removes `url`, a link a client shows beside the text (a
        citation, a source; `image=True`: a file it shows inline), or None when it may
        stay; `conversation` is as for `run`. Never fetches the URL."""
        if not isinstance(url, str):
            raise TypeError(f"a URL is a str, not {type(url).__name__}")
        extra = context_dict(context)
        rules = self.units.rules.for_reply(Conversation.coerce(conversation), self._signing(extra))
        judge = rules.judge
        verdict = judge.judge(url, Role.IMAGE if image else Role.LINK)
        if verdict.action == "keep":
            return None
        return Finding(
            kind=construct,
            action=Action.REMOVED,
            reasons=verdict.reasons,
            line=1,
            column=1,
            start=0,
            end=len(url),
            host=verdict.host and redact_host(verdict.host),
            url=redact(verdict.url),
            full_url=verdict.url.href or url,
            detail=verdict.source,
            detector="lexical",
            context=extra,
            enforced=not self.monitor,
        )

    def _signing(self, context: dict[str, str]) -> str | None:
        """The context proxied images are signed for: the caller's entry the policy's
        `image_proxy.context_key` names (None when there is none)."""
        proxy = self.policy.image_proxy
        return context.get(proxy.context_key) if proxy and proxy.context_key else None

    def _run(self, reply: UnitSanitizer, text: str, context: dict[str, str]) -> Result:
        limit = self.policy.max_hold_chars
        segmenter = Segmenter(limit, reply.rules.rendered)
        units = segmenter.push(text) + segmenter.finish()
        carry, sent = Carry(), SentText.of_reply(text, limit, reply.rules.rendered)
        outputs, findings = list[str](), list[Finding]()
        for unit in units:
            settled = reply.settle(unit, carry, sent, context)
            outputs.append(settled.text)
            findings.extend(settled.findings)
            carry = settled.carry
        return Result(text="".join(outputs), findings=tuple(findings))


_FUNCTION = Source(kind="function")


def _both(
    first: Callable[[Finding], None], second: Callable[[Finding], None]
) -> Callable[[Finding], None]:
    def both(finding: Finding) -> None:
        first(finding)
        second(finding)

    return both


def context_dict(context: Mapping[str, str] | None) -> dict[str, str]:
    """The caller's context as a plain dict; it must map str to str."""
    extra = dict(context or {})
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in extra.items()):
        raise TypeError("context must map str to str, e.g. {'conversation_id': 'c1'}")
    return extra


@functools.lru_cache(maxsize=16)
def _cached(policy: Policy) -> Sanitizer:
    return Sanitizer(policy)


def sanitize(
    text: str, policy: Policy | None = None, *, conversation: ConversationLike = None
) -> str:
    """Return `text` with every unsafe image and data-carrying link neutralised.

    A reply with nothing unsafe comes back unchanged, byte for byte. For the
    findings, or to reuse one policy efficiently, use `Sanitizer(policy).run(text)`;
    `conversation` is as for `Sanitizer.run`.
    """
    sanitizer = _cached(policy if policy is not None else Policy())
    return sanitizer.run(text, conversation=conversation).text


def sanitize_stream(
    chunks: Iterable[str], policy: Policy | None = None, *, conversation: ConversationLike = None
) -> Iterator[str]:
    """Sanitise a reply arriving as `chunks`; yield what is safe as soon as it is.

    The concatenation equals `sanitize("".join(chunks), policy)`. Empty pieces are
    not yielded.
    """
    sanitizer = _cached(policy if policy is not None else Policy())
    stream = sanitizer.stream(conversation=conversation)
    for chunk in chunks:
        if out := stream.feed(chunk):
            yield out
    if out := stream.close():
        yield out


async def asanitize_stream(
    chunks: AsyncIterable[str],
    policy: Policy | None = None,
    *,
    conversation: ConversationLike = None,
) -> AsyncIterator[str]:
    """`sanitize_stream` for an async source (a model client's token stream)."""
    sanitizer = _cached(policy if policy is not None else Policy())
    stream = sanitizer.stream(conversation=conversation)
    async for chunk in chunks:
        if out := stream.feed(chunk):
            yield out
    if out := stream.close():
        yield out
