"""The Vercel AI SDK's UI message stream: `text-delta` and `reasoning-delta` per id."""

from __future__ import annotations

import re
from typing import Any

from .dialect import DONE, json_event, judged_urls, new_event, require
from .shapes import STRING, TEXT, text_of, with_text
from .sse import SseEvent
from .text_streams import Texts

__all__ = ["AiSdk"]

_DELTAS = {"text-delta": "text", "reasoning-delta": "reasoning"}
_ENDS = {"text-end": "text", "reasoning-end": "reasoning"}
# The usual delta, all of it: its part, id and text.
_DELTA = re.compile(
    rf'data: \{{"type":"(text|reasoning)-delta","id":({STRING}),"delta":"({TEXT})"\}}\n\n'
)
_BARE = frozenset({"type", "id", "delta"})


class AiSdk:
    """Sanitises each text and reasoning part; its tail is one more delta before its end."""

    name = "ai-sdk"

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        self._urls: dict[str, bool] = {}

    def quick(self, text: str) -> str | None:
        match = _DELTA.fullmatch(text)
        if match is None:
            return None
        delta = text_of(match[3])
        out = self.texts.feed((match[1], match[2][1:-1]), delta)
        if out == delta:
            return text
        if not out:
            return ""  # it holds nothing but its text
        return with_text(text, match, 3, out)

    def event(self, event: SseEvent, data: Any) -> list[SseEvent]:
        if data == DONE:
            return [*self.finish(), event]
        if not isinstance(data, dict):
            return [event]
        kind = data.get("type")
        if kind in _DELTAS:
            return self._delta(event, data, _DELTAS[kind])
        before = []
        if kind in _ENDS:
            before = self._flush((_ENDS[kind], data.get("id")))
        elif kind == "finish":
            before = self.finish()
        elif kind == "source-url" and not judged_urls(self.texts, self._urls, data.get("url")):
            return []
        elif kind == "file" and not judged_urls(
            self.texts, self._urls, data.get("url"), image=True
        ):
            return []  # useChat shows an image file inline
        return [*before, event]

    def finish(self) -> list[SseEvent]:
        return [event for key in self.texts.open_keys() for event in self._flush(key)]

    def error(self, message: str) -> SseEvent:
        return new_event({"type": "error", "errorText": message})

    def _delta(self, event: SseEvent, data: dict[str, Any], part: str) -> list[SseEvent]:
        text = require(data.get("delta"), str, "delta")
        out = self.texts.feed((part, data.get("id")), text)
        if out == text:
            return [event]
        if not out and data.keys() == _BARE:
            return []  # it held nothing but its text
        return [json_event(event, {**data, "delta": out})]

    def _flush(self, key: Any) -> list[SseEvent]:
        rest = self.texts.close(key)
        if not rest:
            return []
        part, ident = key
        return [new_event({"type": f"{part}-delta", "id": ident, "delta": rest})]
