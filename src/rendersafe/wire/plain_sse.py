"""SSE whose `data` is the text itself: one text for the whole response."""

from __future__ import annotations

from typing import Any

from .dialect import DONE
from .sse import SseEvent
from .text_streams import Texts

__all__ = ["PlainSse"]


class PlainSse:
    """Sanitises the events' data as one text, in order; the tail is a last event."""

    name = "sse-text"

    def __init__(self, texts: Texts) -> None:
        self.texts = texts

    def quick(self, text: str) -> str | None:
        return None  # its events are cheap to read already

    def event(self, event: SseEvent, data: Any) -> list[SseEvent]:
        text = event.data
        if text is None:
            return [event]
        if text == DONE:
            return [*self.finish(), event]
        out = self.texts.feed(0, text)
        return [event if out == text else event.with_data(out)]

    def finish(self) -> list[SseEvent]:
        rest = self.texts.close(0)
        return [SseEvent([f"data: {line}" for line in rest.split("\n")])] if rest else []

    def error(self, message: str) -> SseEvent:
        return SseEvent(["event: error", f"data: {message}"])
