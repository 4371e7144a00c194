"""Anthropic Messages events: `text_delta`s per content block index."""

from __future__ import annotations

import re
from typing import Any

from ..errors import FormatError
from .dialect import json_event, judged_urls, new_event, require, url_of
from .shapes import INDEX, TEXT, text_of, with_text
from .sse import SseEvent
from .text_streams import Texts

__all__ = ["Anthropic"]

# The usual delta, all of it: a block's index and its text.
_DELTA = re.compile(
    rf'event: content_block_delta\ndata: \{{"type":"content_block_delta","index":({INDEX}),'
    rf'"delta":\{{"type":"text_delta","text":"({TEXT})"\}}\}}\n\n'
)


class Anthropic:
    """Sanitises each text block; its tail is one more delta before `content_block_stop`.

    Thinking blocks pass unchanged: their signature covers the text, and a client
    that sends them back would be refused.
    """

    name = "anthropic"

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        self._urls: dict[str, bool] = {}

    def quick(self, text: str) -> str | None:
        match = _DELTA.fullmatch(text)
        if match is None:
            return None
        delta = text_of(match[2])
        out = self.texts.feed(int(match[1]), delta)
        if out == delta:
            return text
        if not out:
            return ""  # it holds nothing but its text
        return with_text(text, match, 2, out)

    def event(self, event: SseEvent, data: Any) -> list[SseEvent]:
        if not isinstance(data, dict):
            return [event]
        kind = data.get("type")
        if kind == "content_block_start":
            return self._start(event, data)
        if kind == "message_start" and _has_content(data.get("message")):
            raise FormatError("an Anthropic message that starts with content; it must start empty")
        if kind == "content_block_delta":
            return self._delta(event, data)
        if kind == "content_block_stop":
            return [*self._flush(data.get("index", 0)), event]
        if kind == "message_stop":
            return [*self.finish(), event]
        return [event]

    def finish(self) -> list[SseEvent]:
        return [event for key in self.texts.open_keys() for event in self._flush(key)]

    def error(self, message: str) -> SseEvent:
        data = {"type": "error", "error": {"type": "api_error", "message": message}}
        return new_event(data, name="error")

    def _start(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        block = require(data.get("content_block"), dict, "content_block")
        if block.get("type") != "text":
            return [event]
        text = require(block.get("text", ""), str, "text")
        out = self.texts.feed(data.get("index", 0), text) if text else text
        citations = block.get("citations")
        kept = citations
        if isinstance(citations, list):
            kept = [c for c in citations if judged_urls(self.texts, self._urls, url_of(c))]
        if out == text and kept == citations:
            return [event]
        block = {**block, "text": out}
        if isinstance(citations, list):
            block["citations"] = kept
        return [json_event(event, {**data, "content_block": block})]

    def _delta(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        delta = require(data.get("delta"), dict, "delta")
        if delta.get("type") == "citations_delta":
            keep = judged_urls(self.texts, self._urls, url_of(delta.get("citation")))
            return [event] if keep else []
        if delta.get("type") != "text_delta":
            return [event]  # tool input, thinking, signatures
        text = require(delta.get("text"), str, "text")
        out = self.texts.feed(data.get("index", 0), text)
        if out == text:
            return [event]
        if not out and data.keys() == _BARE and delta.keys() == _BARE_DELTA:
            return []  # it held nothing but its text
        return [json_event(event, {**data, "delta": {**delta, "text": out}})]

    def _flush(self, index: Any) -> list[SseEvent]:
        rest = self.texts.close(index)
        if not rest:
            return []
        delta = {"type": "text_delta", "text": rest}
        data = {"type": "content_block_delta", "index": index, "delta": delta}
        return [new_event(data, name="content_block_delta")]


_BARE = frozenset({"type", "index", "delta"})
_BARE_DELTA = frozenset({"type", "text"})


def _has_content(message: Any) -> bool:
    return isinstance(message, dict) and bool(message.get("content"))
