"""`SseCodec`: sanitise a `text/event-stream` body, whichever provider wrote it.

The dialect is pinned by the caller or found from the first event with data:
OpenAI chunks carry `choices`, Responses events a `response.*` type, Anthropic and
the AI SDK their own event types, and data that is not JSON is the text itself.
An event of JSON that no dialect knows fails the response: its text cannot be found.
So does a line that is no SSE field (`data`, `event`, `id`, `retry`, or a `:` comment):
an `EventSource` ignores it, but a client that reads the body another way (NDJSON, JSON
or Markdown sent as an event stream) would render it unread.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from typing import Any

from ..errors import FormatError
from .ai_sdk import AiSdk
from .anthropic import Anthropic
from .dialect import DONE, Dialect
from .error_text import safe_name
from .jsonlib import loads
from .openai_chat import OpenAIChat
from .openai_responses import OpenAIResponses
from .plain_sse import PlainSse
from .sse import SseEvent, SseReader
from .text_streams import ENDS, IDLE, Texts, escaped_ends

__all__ = ["DIALECTS", "SseCodec"]

Factory = Callable[[Texts], Dialect]

DIALECTS: dict[str, Factory] = {
    "openai-chat": OpenAIChat,
    "openai-responses": OpenAIResponses,
    "anthropic": Anthropic,
    "ai-sdk": AiSdk,
    "sse-text": PlainSse,
}
_ANTHROPIC = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
    }
)
_AI_SDK = frozenset(
    {
        "start",
        "finish",
        "abort",
        "start-step",
        "finish-step",
        "text-start",
        "text-delta",
        "text-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "source-url",
        "source-document",
        "file",
        "message-metadata",
    }
)


class SseCodec:
    """Reads events from body bytes, has the dialect rewrite them, writes them back."""

    buffered = False

    def __init__(self, texts: Texts, dialect: str | None = None, *, quick: bool = True) -> None:
        self.texts = texts
        self._quick = quick  # False: every event read in full (for tests that compare)
        self._reader = SseReader()
        # utf-8-sig: a leading byte order mark is dropped, as the SSE standard says.
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self._dialect: Dialect | None = DIALECTS[dialect](texts) if dialect else None
        self._events = 0  # events with data so far, for error messages
        # Whether neither the reader nor the decoder holds part of an event; only a
        # `feed` that reads them changes it (read once there, not per token).
        self._idle = False

    @property
    def dialect(self) -> str | None:
        """The dialect in use, once known."""
        return self._dialect.name if self._dialect else None

    def feed(self, data: bytes) -> bytes:
        """Take body bytes; return the rewritten events they completed."""
        out = self.token(data)
        if out is not None:
            return out
        events = self._reader.feed(self._decoder.decode(data))
        self._idle = self._reader.idle and self._decoder.getstate() == IDLE
        return self._write(events)

    def token(self, data: bytes) -> bytes | None:
        """`feed` for the usual body message, one whole event of the usual shape
        (`Dialect.quick`), taken as it is; None, having read nothing, for any other."""
        if not (self._quick and self._idle and self._dialect is not None):
            return None
        try:
            text = data.decode()
        except UnicodeDecodeError:
            return None
        out = self._dialect.quick(text) if text else None
        if out is None:
            return None
        self._events += 1
        return data if out is text else out.encode()

    def close(self) -> bytes:
        """The body ended: the last events, and the tails of every open text."""
        events = self._reader.feed(self._decoder.decode(b"", final=True)) + self._reader.close()
        out = self._write(events)
        if self._dialect is None:
            return out
        return out + "".join(e.encode() for e in self._dialect.finish()).encode()

    def reach(self, data: bytes, *, final: bool) -> tuple[int, int]:
        """At most how many characters of text feeding `data` (with what is held of a
        cut event) hands the texts, and how many line ends (`ENDS`: it may end one)."""
        held = self._reader.held
        if held:
            data = held.encode() + data
        size = len(data)
        dialect = self._dialect
        if final:
            return size, ENDS
        if dialect is None or dialect.name == "sse-text":
            return size, data.count(b"\n") + data.count(b"\r")
        if _may_end(data):
            return size, ENDS
        return size, escaped_ends(data)

    def error_frame(self, message: str) -> bytes:
        """The event that tells the client the rest was withheld."""
        dialect = self._dialect or PlainSse(self.texts)
        return dialect.error(message).encode().encode()

    def _write(self, events: list[SseEvent]) -> bytes:
        if len(events) == 1:  # the usual body message: one event
            return "".join([out.encode() for out in self._event(events[0])]).encode()
        return "".join([out.encode() for event in events for out in self._event(event)]).encode()

    def _event(self, event: SseEvent) -> list[SseEvent]:
        if not _fields_known(event.lines):
            raise FormatError(
                f"event {self._events + 1}: a line that is no SSE field "
                "(data, event, id, retry or a comment): the body is not an event stream"
            )
        text = event.data
        if text is None:
            return [event]  # comments, keep-alives, `retry:`
        self._events += 1
        data = _parse(text)
        if self._dialect is None:
            found = _detect(data)
            if found is None:
                return [event]  # [DONE] or an error before anything else
            self._dialect = found(self.texts)
        if data is _NOT_JSON and not isinstance(self._dialect, PlainSse):
            raise FormatError(
                f"{self._dialect.name} event {self._events}: its data is not JSON "
                f"({len(text)} characters)"
            )
        if isinstance(self._dialect, PlainSse) and isinstance(data, dict) and _dialect_of(data):
            # Text first, then a provider's events: a client would render those.
            raise FormatError("a provider's JSON events after plain text events")
        return self._dialect.event(event, data)


_FIELDS = frozenset({"data", "event", "id", "retry"})


def _fields_known(lines: list[str]) -> bool:
    """Is every line a field an event stream has, or a comment?"""
    if len(lines) == 1 and lines[0].startswith("data:"):
        return True  # the usual event
    return all(line.startswith(":") or line.partition(":")[0] in _FIELDS for line in lines)


_NOT_JSON: Any = object()
# What can end a text (a finish reason, an event type, `[DONE]`), and the cases of it
# that never do (a null finish reason, a delta): an event with more of the first may.
_MAY_END = re.compile(rb'"finish_reason"|"type"|\[DONE\]')
_STEADY = re.compile(rb'"finish_reason"\s*:\s*null|"type"\s*:\s*"[a-z_.-]*delta"')


def _may_end(data: bytes) -> bool:
    if b'"type"' not in data and b"[DONE]" not in data:
        finishes = data.count(b'"finish_reason"')
        if finishes == data.count(b'"finish_reason":null'):  # OpenAI's usual chunk
            return False
    return len(_MAY_END.findall(data)) != len(_STEADY.findall(data))


def _parse(text: str) -> Any:
    if text == DONE:
        return DONE
    if not text.lstrip().startswith(("{", "[")):
        return _NOT_JSON
    try:
        return loads(text)
    except ValueError:
        return _NOT_JSON


def _detect(data: Any) -> Factory | None:
    if data is _NOT_JSON:
        return PlainSse
    if data == DONE:
        return None
    if not isinstance(data, dict):
        raise FormatError(f"SSE data is JSON {type(data).__name__}, not a known event")
    found = _dialect_of(data)
    if found is None and data.get("type") != "error" and "error" not in data:
        kind = data.get("type")
        raise FormatError(f"SSE data of an unknown shape (type {safe_name(kind)}); pin a format")
    return found


def _dialect_of(data: dict[str, Any]) -> Factory | None:
    kind = data.get("type")
    if "choices" in data or str(data.get("object", "")).startswith("chat.completion"):
        return OpenAIChat
    if not isinstance(kind, str):
        return None
    if kind.startswith("response."):
        return OpenAIResponses
    if kind in _ANTHROPIC:
        return Anthropic
    if kind in _AI_SDK or kind.startswith(("data-", "tool-")):
        return AiSdk
    return None
