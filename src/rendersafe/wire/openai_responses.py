"""OpenAI Responses API events: text, refusal and reasoning-summary deltas, and the
whole text repeated in later events, each replaced by the same sanitised text."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from typing import Any

from ..errors import FormatError
from .dialect import json_event, judged_urls, new_event, require
from .jsonlib import loads
from .shapes import INDEX, SCALAR, STRING, TEXT, member, text_of, with_text
from .sse import SseEvent
from .text_streams import Texts

__all__ = ["OpenAIResponses"]

Handler = Callable[["OpenAIResponses", SseEvent, dict[str, Any]], list[SseEvent]]
_CITATIONS = frozenset({"url_citation"})
# Each streamed text: its delta event, the index field that numbers it, and the field
# of the part that holds it whole. Chat UIs render all three.
_KINDS = {
    "text": ("response.output_text.delta", "content_index", "text"),
    "refusal": ("response.refusal.delta", "content_index", "refusal"),
    "summary": ("response.reasoning_summary_text.delta", "summary_index", "text"),
}
_PART_KINDS = {"output_text": "text", "refusal": "refusal", "summary_text": "summary"}
# The usual delta, all of it: its type first, scalars (and empty logprobs), one delta.
_MEMBER = member("type", "delta", "logprobs")
_DELTA = re.compile(
    r'(?:event: [a-z_.]+\n)?data: \{"type":"response\.(output_text|refusal|reasoning_summary_text)'
    rf'\.delta"((?:,{_MEMBER})*),"delta":"({TEXT})"((?:,{_MEMBER}|,"logprobs":\[\])*)\}}\n\n'
)
_QUICK_KINDS = {"output_text": "text", "refusal": "refusal", "reasoning_summary_text": "summary"}
_ITEM_ID = re.compile(rf'"item_id":({SCALAR})')
_INDEXES = {kind: re.compile(rf'"{field}":({SCALAR})') for kind, (_, field, _) in _KINDS.items()}


class OpenAIResponses:
    """Streams each text of each item; rewrites every event that repeats one."""

    name = "openai-responses"

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        texts.keep_whole()  # the whole text is repeated after the deltas
        # The last delta of each text, or its event's text when it was not parsed.
        self._last_delta: dict[Hashable, dict[str, Any] | str] = {}
        self._urls: dict[str, bool] = {}
        self._pending: list[SseEvent] = []  # tails flushed while rewriting an event

    def quick(self, text: str) -> str | None:
        match = _DELTA.fullmatch(text)
        if match is None:
            return None
        kind = _QUICK_KINDS[match[1]]
        key = _quick_key(kind, match[2] + match[4])
        if key is None:
            return None
        delta = text_of(match[3])
        self._last_delta[key] = text
        out = self.texts.feed(key, delta)
        if out == delta:
            return text
        return with_text(text, match, 3, out)

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

    def _delta(self, event: SseEvent, data: dict[str, Any], kind: str) -> list[SseEvent]:
        key = _key(kind, data.get("item_id"), data.get(_KINDS[kind][1], 0))
        text = require(data.get("delta"), str, "delta")
        self._last_delta[key] = data
        out = self.texts.feed(key, text)
        if out == text:
            return [event]
        return [json_event(event, {**data, "delta": out})]

    def _done(self, event: SseEvent, data: dict[str, Any], kind: str) -> list[SseEvent]:
        key = _key(kind, data.get("item_id"), data.get(_KINDS[kind][1], 0))
        field = _KINDS[kind][2]
        return self._rewritten(event, data, self._whole(key, data, field))

    def _added(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        parts = [data["part"]] if isinstance(data.get("part"), dict) else []
        item = data.get("item")
        if isinstance(item, dict) and isinstance(item.get("content"), list):
            parts += item["content"]
        for part in parts:
            if isinstance(part, dict) and (part.get("text") or part.get("refusal")):
                raise FormatError("a Responses part that starts with text; it must start empty")
        return [event]

    def _part_done(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        part = require(data.get("part"), dict, "part")
        index = data.get("summary_index", data.get("content_index", 0))
        return self._rewritten(event, data, self._part(data.get("item_id"), index, part))

    def _item_done(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        item = require(data.get("item"), dict, "item")
        return self._rewritten(event, data, self._item(item))

    def _response_done(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        response = require(data.get("response"), dict, "response")
        output = require(response.get("output") or [], list, "output")
        changed = [self._item(require(item, dict, "an output item")) for item in output]
        return self._rewritten(event, data, any(changed))

    def _annotation(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent]:
        return [event] if self._keeps(data.get("annotation")) else []

    def _item(self, item: dict[str, Any]) -> bool:
        parts = item.get("content") if item.get("type") == "message" else item.get("summary")
        if not isinstance(parts, list):
            return False
        changed = [
            self._part(item.get("id"), index, require(part, dict, "a part"))
            for index, part in enumerate(parts)
        ]
        return any(changed)

    def _part(self, item_id: Any, index: Any, part: dict[str, Any]) -> bool:
        kind = _PART_KINDS.get(part.get("type"))  # type: ignore[arg-type]
        if kind is None:
            return False
        changed = self._whole(_key(kind, item_id, index), part, _KINDS[kind][2])
        annotations = part.get("annotations")
        if isinstance(annotations, list):
            kept = [note for note in annotations if self._keeps(note)]
            if len(kept) != len(annotations):
                part["annotations"], changed = kept, True
        return changed

    def _whole(self, key: Hashable, holder: dict[str, Any], field: str) -> bool:
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
            template = self._last_delta.get(key, {"type": _KINDS[key[0]][0]})  # type: ignore[index]
            if isinstance(template, str):
                template = loads(template[template.index("data: ") + 6 :])
            self._pending.append(new_event({**template, "delta": rest}, name=template["type"]))
        whole = self.texts.whole(key)
        if whole is None:  # the text came only whole: judge it once, remember it
            whole = self.texts.one_shot(text or "")
        self.texts.replace_whole(key, whole)
        return whole

    def _keeps(self, annotation: Any) -> bool:
        if not isinstance(annotation, dict) or annotation.get("type") not in _CITATIONS:
            return True
        return judged_urls(self.texts, self._urls, annotation.get("url"))

    @staticmethod
    def _rewritten(event: SseEvent, data: dict[str, Any], changed: bool) -> list[SseEvent]:
        return [json_event(event, data) if changed else event]


def _key(kind: str, item_id: Any, index: Any) -> Hashable:
    return (kind, str(item_id), index if isinstance(index, int) else 0)


def _quick_key(kind: str, members: str) -> Hashable | None:
    """The key `_delta` gives a text from its event's scalar `members` (its item id a
    string, its index a whole number, each there once); None when not so plain."""
    item_ids = _ITEM_ID.findall(members)
    indexes = _INDEXES[kind].findall(members)
    if len(item_ids) != 1 or not re.fullmatch(STRING, item_ids[0]) or len(indexes) > 1:
        return None
    if indexes and not re.fullmatch(INDEX, indexes[0]):
        return None
    return _key(kind, item_ids[0][1:-1], int(indexes[0]) if indexes else 0)


def _for(kind: str, method: Callable[..., list[SseEvent]]) -> Handler:
    return lambda self, event, data: method(self, event, data, kind)


_HANDLERS: dict[Any, Handler] = {
    "response.output_text.delta": _for("text", OpenAIResponses._delta),
    "response.refusal.delta": _for("refusal", OpenAIResponses._delta),
    "response.reasoning_summary_text.delta": _for("summary", OpenAIResponses._delta),
    "response.output_text.done": _for("text", OpenAIResponses._done),
    "response.refusal.done": _for("refusal", OpenAIResponses._done),
    "response.reasoning_summary_text.done": _for("summary", OpenAIResponses._done),
    "response.content_part.added": OpenAIResponses._added,
    "response.output_item.added": OpenAIResponses._added,
    "response.content_part.done": OpenAIResponses._part_done,
    "response.reasoning_summary_part.done": OpenAIResponses._part_done,
    "response.output_item.done": OpenAIResponses._item_done,
    "response.completed": OpenAIResponses._response_done,
    "response.incomplete": OpenAIResponses._response_done,
    "response.failed": OpenAIResponses._response_done,
    "response.output_text.annotation.added": OpenAIResponses._annotation,
}
