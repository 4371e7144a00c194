"""`RenderSafeMiddleware`: its settings, what a request covers, and its exchange."""

from __future__ import annotations

import fnmatch
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ..audit import AuditLog, Source
from ..conversation import Conversation
from ..errors import PolicyError
from ..exchange import MAX_REQUEST_BYTES, Exchange
from ..observe import METRICS
from ..policy import Policy
from ..sanitizer import Sanitizer, context_dict
from ..wire import FORMATS
from ..wire.requests import RequestTee
from .interstitial import serve_interstitial, serves
from .offload import Offload
from .replies import UNAUDITED, context_key, framework_page, log_exception, logger, refuse
from .responder import Responder
from .shadow import ShadowResponder

__all__ = ["ContextHook", "ConversationHook", "RenderSafeMiddleware"]

ConversationHook = Callable[[Scope, bytes], object | None]
"""Reads the conversation of a request to a custom backend: its scope and body (as
much as was kept, inflated); what it returns is passed on as `conversation=`."""

ContextHook = Callable[[Scope], Mapping[str, str] | None]
"""Gives the audit `context` of a request from its scope (a conversation id, a tenant):
put in every record of its response, and the sanitiser's `context=`."""


class RenderSafeMiddleware:
    """Sanitises the replies of the app it wraps. See the package docstring."""

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
        sniff: bool = False,
    ) -> None:
        _validate(policy, formats, max_request_bytes, conversation, context)
        if policy.audit_required and audit is None:
            raise PolicyError("audit_required", "the policy requires an audit log: pass audit=")
        self.app = app
        # Its replies are counted and traced here, once per response.
        self.sanitizer = Sanitizer(policy, audit=audit).counted_as(None)
        self.monitor = policy.mode == "monitor"
        self.context_hook = context
        self.context_header = context_header.lower() if context_header else None
        self.audit = audit
        # Matched in any case: a backend whose routes ignore case serves `/V1/...` too.
        self.paths = tuple(p.lower() for p in paths) if paths is not None else None
        self.formats = {pattern.lower(): fmt for pattern, fmt in (formats or {}).items()}
        self.sniff = sniff
        self.json_paths = tuple(json_paths)
        self.request_id_header = request_id_header.lower()
        self.max_request_bytes = max_request_bytes
        self.conversation_hook = conversation
        self.offload = Offload()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        page = self.sanitizer.policy.link_interstitial
        if scope["type"] == "http" and serves(page, scope) and page is not None:
            await serve_interstitial(page, scope, send)
            return
        if (
            scope["type"] != "http"
            or not self.covers(path)
            or framework_page(scope, path, self.app)
        ):
            await self.app(scope, receive, send)
            return
        if self.monitor:
            await ShadowResponder(self, scope).run(receive, send)
            return
        if self.audit_required and self.audit is not None and self.audit.broken:
            await self._refuse_unaudited(scope, send)
            return
        await Responder(self, scope).run(receive, send)

    @property
    def audit_required(self) -> bool:
        """Does the policy say no reply goes out unless its records are written?"""
        return self.sanitizer.policy.audit_required

    async def _refuse_unaudited(self, scope: Scope, send: Send) -> None:
        """503 while the audit log fails. The refusal is recorded too: a write that
        succeeds is how the log is seen to work again."""
        METRICS.withheld("audit_required", enforced=True)
        exchange = Exchange(
            self.sanitizer, context=self.context_of(scope), source=self.source_of(scope)
        )
        exchange.refused()
        await exchange.aflush()
        await refuse(send, 503, UNAUDITED)

    def exchange_for(self, scope: Scope, tee: RequestTee) -> Exchange:
        """The exchange of a request, its conversation read from what `tee` kept (or
        given by the conversation hook). Never raises for what the request holds."""
        source, context = self.source_of(scope), self.context_of(scope)
        notes = tee.notes()
        hook = self.conversation_hook
        if hook is not None:
            try:
                given = _coerced(hook(scope, tee.body))
            except Exception as exc:  # whatever the hook does, the reply is still served
                log_exception("rendersafe: the conversation hook raised", exc)
                given, notes = (
                    None,
                    (*notes, f"unread: the conversation hook raised {type(exc).__name__}"),
                )
            exchange = Exchange(
                self.sanitizer, conversation=given, context=context, source=source, notes=notes
            )
        else:
            headers = Headers(scope=scope)
            exchange = Exchange.from_request(
                self.sanitizer,
                tee.body,
                content_type=headers.get("content-type"),
                coding=headers.get("content-encoding"),
                whole=tee.whole,
                limit=self.max_request_bytes,
                context=context,
                source=source,
                notes=notes,
            )
        for note in exchange.notes:
            level = logging.WARNING if note.startswith(("cut", "unread")) else logging.INFO
            logger.log(level, "rendersafe %s %s: %s", source.method, source.path, note)
        return exchange

    def context_of(self, scope: Scope) -> dict[str, str]:
        """The audit context of a request: its `context_header`, then what the `context`
        hook returns. Never raises: a hook that fails (or returns other than str to str)
        is logged and gives nothing."""
        context: dict[str, str] = {}
        if self.context_header is not None:
            value = Headers(scope=scope).get(self.context_header)
            if value:
                context[context_key(self.context_header)] = value[:256]
        if self.context_hook is not None:
            try:
                context.update(context_dict(self.context_hook(scope)))
            except Exception as exc:  # whatever the hook does, the reply is still served
                log_exception("rendersafe: the context hook raised", exc)
        return context

    def source_of(self, scope: Scope) -> Source:
        """Where a request's audit records come from: method, path, request id."""
        value = Headers(scope=scope).get(self.request_id_header)
        request_id = value[:128] if value else uuid.uuid4().hex
        method, path = scope.get("method"), scope.get("path")
        return Source(kind="middleware", method=method, path=path, request_id=request_id)

    def covers(self, path: str) -> bool:
        """Are responses to `path` sanitised? (`paths` match in any case.)"""
        lower = path.lower()
        return self.paths is None or any(fnmatch.fnmatchcase(lower, p) for p in self.paths)

    def pinned_format(self, path: str) -> str | None:
        """The format pinned for `path`, if any (patterns match in any case)."""
        lower = path.lower()
        return next((f for p, f in self.formats.items() if fnmatch.fnmatchcase(lower, p)), None)


def _validate(
    policy: object,
    formats: Mapping[str, str] | None,
    max_request_bytes: object,
    conversation: object,
    context: object,
) -> None:
    """`PolicyError` for any setting that is not what it must be."""
    if not isinstance(policy, Policy):
        raise PolicyError("policy", f"expected a rendersafe.Policy, got {type(policy).__name__}")
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


def _coerced(value: object) -> Conversation | None:
    """What a hook returned, as a conversation."""
    if value is None or isinstance(value, Conversation | str | Iterable):
        return Conversation.coerce(value)
    raise TypeError(f"a conversation is messages or a str, not {type(value).__name__}")
