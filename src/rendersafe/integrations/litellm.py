"""`RenderSafeGuardrail`: a LiteLLM proxy guardrail that sanitises every reply it serves.

    # config.yaml of `litellm --config config.yaml`
    guardrails:
      - guardrail_name: rendersafe
        litellm_params:
          guardrail: rendersafe.integrations.litellm.RenderSafeGuardrail
          mode: post_call
          default_on: true
          rendersafe_policy: /etc/rendersafe/policy.toml    # else $RENDERSAFE_POLICY_FILE
          rendersafe_audit: /var/log/rendersafe/audit.jsonl # optional

Non-streamed replies (`async_post_call_success_hook`): each text a client renders
(chat choices' content, reasoning and refusals; Responses output text; Anthropic text
blocks) is sanitised whole. Streamed replies (`async_post_call_streaming_iterator_hook`):
a chat chunk's delta texts go through one `StreamSanitizer` per choice and field, and
each chunk leaves with what the stream released (text held back goes out in a later
chunk; a choice's tail in its `finish_reason` chunk, or in one more chunk at the end);
raw event streams (Anthropic `/v1/messages`, and Responses events) go through the
middleware's SSE codec. Either way each reply is judged with the conversation its
request carried, read as the middleware reads a request body (`wire.requests`).

It fails closed, as the middleware does: when a reply cannot be sanitised, or the
upstream fails mid-stream, nothing held is sent. Before anything is sent LiteLLM
answers with an error (502 for ours); after, the stream ends with the format's error
event. Findings, failures and disconnects go to the audit log with LiteLLM's call id.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncGenerator, Callable, Hashable, Iterator
from typing import Any

from litellm.integrations.custom_guardrail import CustomGuardrail
from litellm.types.guardrails import GuardrailEventHooks
from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices
from pydantic import BaseModel

from ..audit import AuditLog, AuditRecord, Event, JsonlSink, Source
from ..config import load_policy
from ..conversation import Conversation
from ..errors import FormatError, PolicyError, RenderSafeError
from ..sanitizer import Sanitizer
from ..wire import Codec, Texts, codec_for
from ..wire.json_body import CHAT_TEXT_PATHS, MESSAGE_TEXT_PATHS, RESPONSE_TEXT_PATHS
from ..wire.openai_chat import DELTA_FIELDS
from ..wire.requests import conversation_of

__all__ = ["WITHHELD", "RenderSafeGuardrail", "ReplyWithheldError"]

logger = logging.getLogger("rendersafe.litellm")

WITHHELD = "rendersafe withheld the rest of this reply"
# What a chat UI renders of a whole reply, in each shape LiteLLM returns (chat
# completion, Responses object, Anthropic message): what the middleware reads.
_TEXT_PATHS = CHAT_TEXT_PATHS + RESPONSE_TEXT_PATHS + MESSAGE_TEXT_PATHS
# The request fields that say what the model saw, in the shapes `wire.requests` reads.
_REQUEST_FIELDS = ("system", "messages", "instructions", "input", "prompt")
_MAX_REQUEST_BYTES = 1 << 20


class ReplyWithheldError(RenderSafeError):
    """A reply rendersafe could not sanitise: LiteLLM answers with this error (a 502
    before anything is sent, the format's error event after) instead of the reply."""

    status_code = 502

    def __init__(self, reason: str, status_code: int = 502) -> None:
        super().__init__(WITHHELD)
        self.message = WITHHELD
        self.reason = reason
        self.status_code = status_code


class RenderSafeGuardrail(CustomGuardrail):  # type: ignore[misc]  # litellm is untyped here
    """The guardrail LiteLLM builds from `config.yaml` (see the module docstring).

    `rendersafe_policy` is a TOML policy file (`load_policy`: the file, then the
    `RENDERSAFE_*` environment); `rendersafe_audit` a JSONL audit log. LiteLLM's own
    settings (`guardrail_name`, `mode`, `default_on`, ...) go to `CustomGuardrail`;
    `mode` must be `post_call`.
    """

    def __init__(
        self,
        *,
        rendersafe_policy: str | None = None,
        rendersafe_audit: str | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("supported_event_hooks", [GuardrailEventHooks.post_call])
        kwargs.setdefault("event_hook", GuardrailEventHooks.post_call)
        super().__init__(**kwargs)
        policy = load_policy(rendersafe_policy)
        self.audit = AuditLog([JsonlSink(rendersafe_audit)]) if rendersafe_audit else None
        if policy.audit_required and self.audit is None:
            raise PolicyError(
                "audit_required",
                "the policy requires an audit log: set rendersafe_audit in litellm_params",
            )
        self.sanitizer = Sanitizer(policy, audit=self.audit)
        self._recorder = self.audit.recorder(_SOURCE, policy) if self.audit is not None else None

    async def async_post_call_success_hook(
        self, data: dict[str, Any], user_api_key_dict: Any, response: Any
    ) -> Any:
        """Sanitise a whole reply in place; raise `ReplyWithheldError` if it cannot be."""
        call = _Call(self, data, user_api_key_dict)
        try:
            call.refuse_unaudited()
            for holder, key in _text_fields(response):
                text = _get(holder, key)
                if isinstance(text, str) and (out := call.texts.one_shot(text)) != text:
                    _set(holder, key, out)
        except ReplyWithheldError:
            raise
        except Exception as exc:
            raise call.failed(f"{type(exc).__name__}: {exc}") from exc
        finally:
            await call.flush()
        return response

    async def async_post_call_streaming_iterator_hook(
        self, user_api_key_dict: Any, response: Any, request_data: dict[str, Any]
    ) -> AsyncGenerator[Any, None]:
        """Yield the stream's chunks as the stream sanitiser releases their text."""
        call = _Call(self, request_data, user_api_key_dict)
        relay = _Relay(call.texts)
        try:
            call.refuse_unaudited()
            async for chunk in response:
                for item in call.guarded(relay.chunk, chunk):
                    yield item
                await call.flush()
            for item in call.guarded(relay.end, None):
                yield item
        except (GeneratorExit, asyncio.CancelledError):
            call.event("disconnect", "the client went away mid-response")
            raise
        except ReplyWithheldError:
            raise
        except Exception as exc:  # the upstream's: LiteLLM reports it; nothing held is sent
            call.event("error", f"the upstream stream failed: {type(exc).__name__}")
            raise
        finally:
            call.texts.flush_metrics()
            await call.flush()


class _Call:
    """One request: its audit source and records, its texts judged with its conversation."""

    def __init__(self, guard: RenderSafeGuardrail, data: dict[str, Any], auth: Any) -> None:
        self.guard = guard
        route = getattr(auth, "request_route", None)
        call_id = data.get("litellm_call_id")
        self.source = Source(
            kind="middleware",
            method="POST",
            path=route if isinstance(route, str) else None,
            request_id=call_id if isinstance(call_id, str) else uuid.uuid4().hex,
        )
        # Records wait here for `flush`: `emit` may block, and hooks run on the loop.
        self.pending: list[AuditRecord] = []
        recorder = guard._recorder
        self.recorder = recorder.at(self.source, emit=self.pending.append) if recorder else None
        conversation, notes = _conversation(data)
        context = {"conversation": "; ".join(notes)} if notes else {}
        sanitizer = guard.sanitizer._recording(self.recorder)
        self.texts = Texts(sanitizer, conversation=conversation, context=context)

    def refuse_unaudited(self) -> None:
        """Refuse (503) while a required audit log cannot be written."""
        log = self.guard.audit
        if self.guard.sanitizer.policy.audit_required and log is not None and log.broken:
            self.event("error", "refused: the audit log cannot be written")
            raise ReplyWithheldError("the audit log cannot be written", status_code=503)

    def guarded(self, step: Callable[[Any], list[Any]], chunk: Any) -> list[Any]:
        """`step(chunk)`, or `ReplyWithheldError` (recorded) when it raises."""
        try:
            return step(chunk)
        except Exception as exc:
            raise self.failed(f"{type(exc).__name__}: {exc}") from exc

    def failed(self, reason: str) -> ReplyWithheldError:
        """Record why the reply is withheld; the error to raise into LiteLLM."""
        logger.warning("rendersafe %s %s: %s", self.source.path, self.source.request_id, reason)
        self.event("error", reason)
        return ReplyWithheldError(reason)

    def event(self, kind: Event, message: str) -> None:
        if self.recorder is not None:
            self.recorder.event(kind, message)

    async def flush(self) -> None:
        """Hand the records made so far to the audit log."""
        log = self.guard.audit
        if log is None or not self.pending:
            return
        pending = self.pending[:]
        self.pending.clear()  # the same list: the recorder's `emit` appends to it
        try:
            for record in pending:
                await log.aemit(record)
        except RuntimeError as exc:  # a closed log: the reply goes on regardless
            logger.error("rendersafe: %d audit records lost: %s", len(pending), exc)


class _Relay:
    """Rewrites one stream's chunks: chat chunks in place, event frames with a codec."""

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        self.codec: Codec | None = None
        self.last: ModelResponseStream | None = None

    def chunk(self, chunk: Any) -> list[Any]:
        if isinstance(chunk, ModelResponseStream):
            self._choices(chunk)
            self.last = chunk
            return [chunk]
        if self.codec is None:
            self.codec = codec_for("sse", self.texts)
        out = self.codec.feed(_frames_of(chunk))
        return [out] if out else []

    def end(self, _: None) -> list[Any]:
        """What is still held, released at the end of the stream."""
        out: list[Any] = []
        if self.codec is not None and (tail := self.codec.close()):
            out.append(tail)
        rests = [(key, rest) for key in self.texts.open_keys() if (rest := self.texts.close(key))]
        if rests and self.last is not None:
            out.append(_tail_chunk(self.last, rests))
        return out

    def _choices(self, chunk: ModelResponseStream) -> None:
        for choice in chunk.choices or ():
            delta = choice.delta
            finished = choice.finish_reason is not None
            for field in DELTA_FIELDS:
                key = (choice.index, field)
                text = getattr(delta, field, None)
                if text is not None and not isinstance(text, str):
                    raise FormatError(f"delta.{field} is a {type(text).__name__}, not text")
                if text and (out := self.texts.feed(key, text)) != text:
                    setattr(delta, field, out)
                if finished and (rest := self.texts.close(key)):
                    setattr(delta, field, (getattr(delta, field, None) or "") + rest)


def _tail_chunk(last: ModelResponseStream, rests: list[tuple[Hashable, str]]) -> Any:
    """One more chunk, like the last one, carrying the tails of the texts still open."""
    by_index: dict[Any, dict[str, str]] = {}
    for key, rest in rests:
        index, field = key if isinstance(key, tuple) else (key, "content")
        by_index.setdefault(index, {})[field] = rest
    choices = [StreamingChoices(index=i, delta=Delta(**f)) for i, f in by_index.items()]
    return ModelResponseStream(id=last.id, created=last.created, model=last.model, choices=choices)


def _frames_of(chunk: Any) -> bytes:
    """A chunk as the event-stream bytes LiteLLM would send for it."""
    if isinstance(chunk, bytes):
        return chunk
    if isinstance(chunk, str):
        return chunk.encode()
    if isinstance(chunk, BaseModel):
        data = chunk.model_dump_json(exclude_none=True, exclude_unset=True)
    elif isinstance(chunk, dict):
        data = json.dumps(chunk, ensure_ascii=False)
    else:
        raise FormatError(f"a {type(chunk).__name__} chunk cannot be sanitised")
    return f"data: {data}\n\n".encode()


def _conversation(data: dict[str, Any]) -> tuple[Conversation | None, tuple[str, ...]]:
    """What the model saw, from the request LiteLLM sends it. Never raises."""
    try:
        body = {field: data[field] for field in _REQUEST_FIELDS if field in data}
        raw = json.dumps(body, ensure_ascii=False, default=str).encode()
        cut = len(raw) > _MAX_REQUEST_BYTES
        found = conversation_of(raw[:_MAX_REQUEST_BYTES], whole=not cut)
        notes = (f"cut: the request is over {_MAX_REQUEST_BYTES} bytes",) if cut else ()
        return Conversation.coerce(found.chat), notes + found.notes
    except Exception as exc:  # whatever the request holds, the reply is still sanitised
        logger.warning("rendersafe: reading the request raised", exc_info=True)
        return None, (f"unread: reading the request raised {type(exc).__name__}",)


def _text_fields(value: Any) -> Iterator[tuple[Any, Any]]:
    for path in _TEXT_PATHS:
        yield from _fields(value, path)


def _fields(value: Any, path: str) -> Iterator[tuple[Any, Any]]:
    """The (holder, key) pairs `path` names in dicts, lists and objects alike."""
    head, _, rest = path.partition(".")
    name, every = (head[:-2], True) if head.endswith("[]") else (head, False)
    child = _get(value, name)
    if child is None:
        return
    if not every:
        yield from _fields(child, rest) if rest else ((value, name),)
        return
    if isinstance(child, list):
        for index, item in enumerate(child):
            yield from _fields(item, rest) if rest else ((child, index),)


def _get(holder: Any, key: Any) -> Any:
    if isinstance(holder, list):
        return holder[key]
    if isinstance(holder, dict):
        return holder.get(key)
    if isinstance(holder, str | bytes | int | float | bool):
        return None
    return getattr(holder, key, None)


def _set(holder: Any, key: Any, value: str) -> None:
    if isinstance(holder, dict | list):
        holder[key] = value
    else:
        setattr(holder, key, value)


_SOURCE = Source(kind="middleware")
