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

from ..audit import AuditLog, JsonlSink, Source
from ..config import load_policy
from ..errors import FormatError, PolicyError, RenderSafeError
from ..exchange import Exchange
from ..sanitizer import Sanitizer
from ..wire import Codec
from ..wire.json_body import CHAT_TEXT_PATHS, MESSAGE_TEXT_PATHS, RESPONSE_TEXT_PATHS
from ..wire.openai_chat import DELTA_FIELDS

__all__ = ["WITHHELD", "RenderSafeGuardrail", "ReplyWithheldError"]

logger = logging.getLogger("rendersafe.litellm")

WITHHELD = "rendersafe withheld the rest of this reply"
# What a chat UI renders of a whole reply, in each shape LiteLLM returns (chat
# completion, Responses object, Anthropic message): what the middleware reads.
_TEXT_PATHS = CHAT_TEXT_PATHS + RESPONSE_TEXT_PATHS + MESSAGE_TEXT_PATHS
# LiteLLM's own fields in the request it hands a hook: not what the model saw.
_LITELLM_KEYS = (
    "litellm_",
    "proxy_server_request",
    "metadata",
    "secret_fields",
    "user_api_key",
    "standard_logging_object",
    "deployment",
    "shared_session",
)


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

    async def async_post_call_success_hook(
        self, data: dict[str, Any], user_api_key_dict: Any, response: Any
    ) -> Any:
        """Sanitise a whole reply in place; raise `ReplyWithheldError` if it cannot be."""
        exchange = _exchange(self, data, user_api_key_dict)
        try:
            _refuse_unaudited(exchange)
            for holder, key in _text_fields(response):
                text = _get(holder, key)
                if isinstance(text, str) and (out := exchange.run(text)) != text:
                    _set(holder, key, out)
        except ReplyWithheldError:
            raise
        except Exception as exc:
            raise _failed(exchange, f"{type(exc).__name__}: {exc}") from exc
        finally:
            await exchange.aflush()
        return response

    async def async_post_call_streaming_iterator_hook(
        self, user_api_key_dict: Any, response: Any, request_data: dict[str, Any]
    ) -> AsyncGenerator[Any, None]:
        """Yield the stream's chunks as the stream sanitiser releases their text."""
        exchange = _exchange(self, request_data, user_api_key_dict)
        relay = _Relay(exchange)
        try:
            _refuse_unaudited(exchange)
            async for chunk in response:
                for item in _guarded(exchange, relay.chunk, chunk):
                    yield item
                await exchange.aflush()
            for item in _guarded(exchange, relay.end, None):
                yield item
        except (GeneratorExit, asyncio.CancelledError):
            exchange.event("disconnect", "the client went away mid-response")
            raise
        except ReplyWithheldError:
            raise
        except Exception as exc:  # the upstream's: LiteLLM reports it; nothing held is sent
            exchange.event("error", f"the upstream stream failed: {type(exc).__name__}")
            raise
        finally:
            exchange.finish()
            await exchange.aflush()


def _exchange(guard: RenderSafeGuardrail, data: dict[str, Any], auth: Any) -> Exchange:
    """The exchange of one request: its audit source (LiteLLM's call id and route), its
    texts judged with the conversation its request carried."""
    route = getattr(auth, "request_route", None)
    call_id = data.get("litellm_call_id")
    source = Source(
        kind="middleware",
        method="POST",
        path=route if isinstance(route, str) else None,
        request_id=call_id if isinstance(call_id, str) else uuid.uuid4().hex,
    )
    return Exchange(guard.sanitizer, conversation=_request_body(data), source=source)


def _refuse_unaudited(exchange: Exchange) -> None:
    """Refuse (503) while a required audit log cannot be written."""
    if not exchange.may_serve():
        exchange.refused()
        raise ReplyWithheldError("the audit log cannot be written", status_code=503)


def _failed(exchange: Exchange, reason: str) -> ReplyWithheldError:
    """Record why the reply is withheld; the error to raise into LiteLLM."""
    source = exchange.source
    logger.warning("rendersafe %s %s: %s", source.path, source.request_id, reason)
    exchange.event("error", reason)
    return ReplyWithheldError(reason)


def _guarded(exchange: Exchange, step: Callable[[Any], list[Any]], chunk: Any) -> list[Any]:
    """`step(chunk)`, or `ReplyWithheldError` (recorded) when it raises."""
    try:
        return step(chunk)
    except Exception as exc:
        raise _failed(exchange, f"{type(exc).__name__}: {exc}") from exc


class _Relay:
    """Rewrites one stream's chunks: chat chunks in place, event frames with a codec."""

    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self.texts = exchange.texts
        self.codec: Codec | None = None
        self.last: ModelResponseStream | None = None

    def chunk(self, chunk: Any) -> list[Any]:
        if isinstance(chunk, ModelResponseStream):
            self._choices(chunk)
            self.last = chunk
            return [chunk]
        if self.codec is None:
            self.codec = self.exchange.codec("sse")
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


def _request_body(data: dict[str, Any]) -> dict[str, Any]:
    """The request LiteLLM sends the model, without LiteLLM's own bookkeeping (its ids,
    the key's metadata, the original request again): the body `rendersafe.shapes`
    reads the conversation from."""
    return {
        key: value
        for key, value in data.items()
        if not (isinstance(key, str) and key.startswith(_LITELLM_KEYS)) and _sent(value)
    }


def _sent(value: Any) -> bool:
    """Could `value` be part of what the client sent? A request body is JSON; the
    objects LiteLLM adds beside it (its router's `deployment` with the upstream's key,
    its HTTP session, its logger) are not, and are nobody's words."""
    return value is None or isinstance(value, str | int | float | bool | list | dict)


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
