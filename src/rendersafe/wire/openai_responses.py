"""OpenAI Responses API events: `response.output_text.delta`, and the full text
repeated in four later events, each replaced by the same sanitised text."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from .dialect import json_event, judged_urls, new_event, require
from .sse import SseEvent
from .texts import Texts

__all__ = ["OpenAIResponses"]

Handler = Callable[["OpenAIResponses", SseEvent, dict[str, Any]], list[SseEvent]]
_CITATIONS = frozenset({"url_citation"})


class OpenAIResponses:
    """Streams each (item, content part) text; rewrites every event that repeats it."""

    name = "openai-responses"

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        texts.keep_sent = True  # the whole text is repeated after the deltas
        self._last_delta: dict[Hashable, dict[str, Any]] = {}
        self._urls: dict[str, bool] = {}
        self._pending: list[SseEvent] = []  # tails flushed while rewriting an event

    def event(self, event: SseEvent, data: Any) -> list[SseEvent]:
        if not isinstance(data, dict):
            return [event]
        handler = _HANDLERS.get(data.get("type"))
        if handler is None:
            return [event]
        out = handler(self, event, data)
        flushed, self._pending = self._pending, []
        return [*flushed, *out]

    def finish(self) -> list[SseEvent]:
        for key in self.texts.open_keys():
            self._close(key, None)
        flushed, self._pending = self._pending, []
        return flushed

    def error(self, message: str) -> SseEvent:
        error = {"type": "error", "code": "rendersafe_error", "message": message, "param": None}
        return new_event(error, name="error")

    def _delta(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        key = _key(data.get("item_id"), data.get("content_index", 0))
        text = require(data.get("delta"), str, "delta")
        self._last_delta[key] = data
        out = self.texts.feed(key, text)
        if out == text:
            return [event]
        return [json_event(event, {**data, "delta": out})]

    def _text_done(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        key = _key(data.get("item_id"), data.get("content_index", 0))
        return self._rewritten(event, data, self._part(key, data, "text"))

    def _part_done(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        part = require(data.get("part"), dict, "part")
        key = _key(data.get("item_id"), data.get("content_index", 0))
        return self._rewritten(event, data, self._content(key, part))

    def _item_done(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        item = require(data.get("item"), dict, "item")
        return self._rewritten(event, data, self._item(item))

    def _response_done(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        response = require(data.get("response"), dict, "response")
        output = require(response.get("output") or [], list, "output")
        changed = [self._item(require(item, dict, "an output item")) for item in output]
        return self._rewritten(event, data, any(changed))

    def _annotation(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        annotation = data.get("annotation")
        return [event] if self._keeps(annotation) else []

    def _item(self, item: dict[str, Any]) -> bool:
        if item.get("type") != "message":
            return False
        content = require(item.get("content") or [], list, "content")
        changed = [
            self._content(_key(item.get("id"), index), require(part, dict, "a content part"))
            for index, part in enumerate(content)
        ]
        return any(changed)

    def _content(self, key: Hashable, part: dict[str, Any]) -> bool:
        if part.get("type") != "output_text":
            return False
        changed = self._part(key, part, "text")
        annotations = part.get("annotations")
        if isinstance(annotations, list):
            kept = [note for note in annotations if self._keeps(note)]
            if len(kept) != len(annotations):
                part["annotations"], changed = kept, True
        return changed

    def _part(self, key: Hashable, holder: dict[str, Any], field: str) -> bool:
        """Put the sanitised whole text of `key` in `holder[field]`; True if changed."""
        text = require(holder.get(field, ""), str, field)
        whole = self._close(key, text)
        if whole == text:
            return False
        holder[field] = whole
        return True

    def _close(self, key: Hashable, text: str | None) -> str:
        """End text `key` (its tail becomes one more delta); its sanitised whole text."""
        if rest := self.texts.close(key):
            template = self._last_delta.get(key, {"type": "response.output_text.delta"})
            delta = {**template, "delta": rest}
            self._pending.append(new_event(delta, name="response.output_text.delta"))
        whole = self.texts.whole(key)
        if whole is None:  # the text came only whole: judge it once, remember it
            whole = self.texts.one_shot(text or "")
            self.texts.sent[key] = [whole]
        else:
            self.texts.sent[key] = [whole]
        return whole

    def _keeps(self, annotation: Any) -> bool:
        if not isinstance(annotation, dict) or annotation.get("type") not in _CITATIONS:
            return True
        return judged_urls(self.texts, self._urls, annotation.get("url"))

    @staticmethod
    def _rewritten(event: SseEvent, data: dict[str, Any], changed: bool) -> list[SseEvent]:
        return [json_event(event, data) if changed else event]


def _key(item_id: Any, index: Any) -> Hashable:
    return (str(item_id), index if isinstance(index, int) else 0)


_HANDLERS: dict[Any, Handler] = {
    "response.output_text.delta": OpenAIResponses._delta,
    "response.output_text.done": OpenAIResponses._text_done,
    "response.content_part.done": OpenAIResponses._part_done,
    "response.output_item.done": OpenAIResponses._item_done,
    "response.completed": OpenAIResponses._response_done,
    "response.incomplete": OpenAIResponses._response_done,
    "response.failed": OpenAIResponses._response_done,
    "response.output_text.annotation.added": OpenAIResponses._annotation,
}
