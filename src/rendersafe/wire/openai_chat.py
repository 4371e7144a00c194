"""OpenAI Chat Completions chunks: `choices[i].delta.content`, one text per choice."""

from __future__ import annotations

from typing import Any

from .dialect import DONE, json_event, new_event, require
from .sse import SseEvent
from .texts import Texts

__all__ = ["OpenAIChat"]

_ENVELOPE = ("id", "object", "created", "model", "system_fingerprint", "service_tier")


class OpenAIChat:
    """Sanitises each choice's content; the tail goes into its `finish_reason` chunk."""

    name = "openai-chat"

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        self._envelope: dict[str, Any] = {"object": "chat.completion.chunk"}

    def event(self, event: SseEvent, data: Any) -> list[SseEvent]:
        if data == DONE:
            return [*self.finish(), event]
        if not isinstance(data, dict) or "choices" not in data:
            return [event]  # an error, or the usage-only last chunk
        self._envelope = {key: data[key] for key in _ENVELOPE if key in data}
        changed = False
        for choice in require(data["choices"], list, "choices"):
            changed |= self._choice(require(choice, dict, "a choice"))
        return [json_event(event, data) if changed else event]

    def _choice(self, choice: dict[str, Any]) -> bool:
        key = choice.get("index", 0)
        delta = require(choice.get("delta") or {}, dict, "delta")
        content = delta.get("content")
        out = content if content is None else self.texts.feed(key, require(content, str, "content"))
        if choice.get("finish_reason") is not None and (rest := self.texts.close(key)):
            out = (out or "") + rest
        if out == content:
            return False
        choice["delta"] = {**delta, "content": out}
        return True

    def finish(self) -> list[SseEvent]:
        events = []
        for key in self.texts.open_keys():
            if rest := self.texts.close(key):
                choice = {"index": key, "delta": {"content": rest}, "finish_reason": None}
                events.append(new_event({**self._envelope, "choices": [choice]}))
        return events

    def error(self, message: str) -> SseEvent:
        return new_event({"error": {"message": message, "type": "rendersafe_error", "code": None}})
