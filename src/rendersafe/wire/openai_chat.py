"""OpenAI Chat Completions chunks: `choices[i].delta.content`, one text per choice.

Reasoning (`reasoning_content`, `reasoning`) and refusals, which chat UIs render too,
are texts of their own, as is `choices[i].text` of the legacy completions endpoint
that many local servers still stream.
"""

from __future__ import annotations

import re
from typing import Any

from .dialect import DONE, json_event, new_event, require, with_string
from .jsonlib import loads
from .shapes import INDEX, TEXT, member, text_of, with_text
from .sse import SseEvent
from .text_streams import Texts

__all__ = ["DELTA_FIELDS", "OpenAIChat"]

_ENVELOPE = ("id", "object", "created", "model", "system_fingerprint", "service_tier")
DELTA_FIELDS = ("content", "reasoning_content", "reasoning", "refusal")

Change = tuple[str, str | None, str]  # field, text received, text sent

# The usual chunk: one choice whose delta is its content (and perhaps its role), not
# finished, every other member a scalar.
_CHUNK = re.compile(
    rf'data: \{{(?:{member("choices")},)*"choices":\[\{{"index":({INDEX}),'
    rf'"delta":\{{("role":"assistant",)?"content":"({TEXT})"\}}'
    rf'(?:,"logprobs":null)?(?:,"finish_reason":null)?\}}\](?:,{member("choices")})*\}}\n\n'
)
# A chunk holding only these (logprobs null) and scalars beside `choices` carries
# nothing but its text: emptied, it is not sent.
_BARE_CHOICE = frozenset({"index", "delta", "logprobs", "finish_reason"})


class OpenAIChat:
    """Sanitises each choice's texts; their tails go into the `finish_reason` chunk."""

    name = "openai-chat"

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        self._last: dict[str, Any] = {"object": "chat.completion.chunk"}
        self._last_text: str | None = None  # the last chunk, when it was not parsed
        self._chunks = 0

    def quick(self, text: str) -> str | None:
        """The usual chunk (`_CHUNK`) rewritten without parsing it: itself, "" when its
        text was emptied (unless it is the first or names the role), or its text
        replaced; None for any other."""
        match = _CHUNK.fullmatch(text)
        if match is None:
            return None
        self._chunks += 1
        self._last_text = text
        index, role, inside = match.groups()
        content = text_of(inside)
        out = self.texts.feed((int(index), "content"), content)
        if out == content:
            return text
        if not out and role is None and self._chunks > 1:
            return ""
        return with_text(text, match, 3, out)

    def event(self, event: SseEvent, data: Any) -> list[SseEvent]:
        if data == DONE:
            return [*self.finish(), event]
        if not isinstance(data, dict) or "choices" not in data:
            return [event]  # an error, or the usage-only last chunk
        self._chunks += 1
        self._last, self._last_text = data, None
        fast = self._content_only(event, data)
        if fast is not None:
            return fast
        changes = [
            change
            for choice in require(data["choices"], list, "choices")
            for change in self._choice(require(choice, dict, "a choice"))
        ]
        if not changes:
            return [event]
        field, old, new = changes[0]
        if len(changes) == 1 and old is not None:
            return [with_string(event, data, field, old, new)]
        return [json_event(event, data)]

    def _content_only(self, event: SseEvent, data: dict[str, Any]) -> list[SseEvent] | None:
        """The usual chunk, one choice with one token of content, in fewer steps
        (this runs once per token); None for any other chunk."""
        found = _lone_content(data)
        if found is None:
            return None
        choice, delta, content = found
        out = self.texts.feed((choice.get("index", 0), "content"), content)
        if out == content:
            return [event]
        if not out and self._chunks > 1 and _bare(data, choice):
            return []
        delta["content"] = out
        return [with_string(event, data, "content", content, out)]

    def _choice(self, choice: dict[str, Any]) -> list[Change]:
        """Sanitise one choice's texts in place; what changed."""
        index = choice.get("index", 0)
        finished = choice.get("finish_reason") is not None
        changes = []
        if "text" in choice:  # the legacy completions endpoint
            changes += self._field(choice, index, "text", finished=finished)
        delta = choice.get("delta")
        if delta is None:
            delta = choice["delta"] = {}
        require(delta, dict, "delta")
        for field in DELTA_FIELDS:
            if field in delta or finished:
                changes += self._field(delta, index, field, finished=finished)
        return changes

    def _field(
        self, holder: dict[str, Any], index: Any, field: str, *, finished: bool
    ) -> list[Change]:
        text = holder.get(field)
        key = (index, field)
        out = text if text is None else self.texts.feed(key, require(text, str, field))
        if finished and (rest := self.texts.close(key)):
            out = (out or "") + rest
        if out == text or out is None:
            return []
        holder[field] = out
        return [(field, text, out)]

    def finish(self) -> list[SseEvent]:
        if self._last_text is not None:
            self._last, self._last_text = loads(self._last_text[6:]), None
        events = []
        for key in self.texts.open_keys():
            index, field = key if isinstance(key, tuple) else (key, "content")
            if rest := self.texts.close(key):
                choice = {"index": index, "delta": {field: rest}, "finish_reason": None}
                if field == "text":
                    choice = {"index": index, "text": rest, "finish_reason": None}
                envelope = {k: self._last[k] for k in _ENVELOPE if k in self._last}
                events.append(new_event({**envelope, "choices": [choice]}))
        return events

    def error(self, message: str) -> SseEvent:
        return new_event({"error": {"message": message, "type": "rendersafe_error", "code": None}})


def _lone_content(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str] | None:
    """The choice, delta and content of a chunk of one unfinished choice whose delta is
    only its content; None for any other."""
    choices = data["choices"]
    if type(choices) is not list or len(choices) != 1:
        return None
    choice = choices[0]
    if type(choice) is not dict or choice.get("finish_reason") is not None or "text" in choice:
        return None
    delta = choice.get("delta")
    if type(delta) is not dict or len(delta) != 1 or type(delta.get("content")) is not str:
        return None
    return choice, delta, delta["content"]


def _bare(data: dict[str, Any], choice: dict[str, Any]) -> bool:
    """Does the chunk of `choice` hold nothing a client needs but its content?"""
    if not choice.keys() <= _BARE_CHOICE or choice.get("logprobs") is not None:
        return False
    return not any(type(v) in (dict, list) for k, v in data.items() if k != "choices")
