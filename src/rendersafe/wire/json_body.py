"""`JsonCodec`: a whole JSON reply (not streamed), read once it has all arrived.

Known shapes have their text fields sanitised: an OpenAI chat completion or Responses
object, an Anthropic message, an Ollama reply. `json_paths` name the fields of any
other backend (`answer`, `results[].text`). A body of another shape has every string
in it sanitised: each is judged whole, so nothing a client renders slips through.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ..errors import FormatError
from .dialect import dumps, judged_urls, url_of
from .error_text import json_error
from .json_path import Holder, json_path_fields
from .text_streams import ENDS, Texts

__all__ = ["CHAT_TEXT_PATHS", "MESSAGE_TEXT_PATHS", "RESPONSE_TEXT_PATHS", "JsonCodec"]


class JsonCodec:
    """Buffers the body (up to `limit` bytes), then rewrites it once."""

    buffered = True

    def __init__(self, texts: Texts, *, paths: Sequence[str] = (), limit: int) -> None:
        self.texts = texts
        self._paths = tuple(paths)
        self._limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._urls: dict[str, bool] = {}

    def feed(self, data: bytes) -> bytes:
        """Keep the bytes until the body is complete."""
        self._size += len(data)
        if self._size > self._limit:
            raise FormatError(f"a JSON body over {self._limit} bytes cannot be sanitised")
        self._parts.append(data)
        return b""

    def token(self, data: bytes) -> bytes | None:
        """No message of this format is taken as a usual token: always None."""
        return None

    def reach(self, data: bytes, *, final: bool) -> tuple[int, int]:
        """Nothing is sanitised until the body ends; then all of it, at once."""
        return (self._size + len(data), ENDS) if final else (0, 0)

    def close(self) -> bytes:
        """The whole body, its text fields sanitised (unchanged bytes if nothing was)."""
        raw = b"".join(self._parts)
        if not raw.strip():
            return raw  # no body, no text
        try:
            data = json.loads(raw)
        except ValueError as exc:
            why = json_error(exc, len(raw))
            raise FormatError(f"the JSON body does not parse ({why})") from exc
        holders = list(self._holders(data))
        changed = False
        for holder, key in holders:
            text = holder[key]
            if isinstance(text, str) and (out := self.texts.one_shot(text)) != text:
                holder[key], changed = out, True
        changed |= self._drop_citations(data)
        if not changed:
            return raw
        try:
            return dumps(data).encode()
        except UnicodeEncodeError:  # a lone surrogate (`\ud83d`) the body escaped
            return json.dumps(data, separators=(",", ":")).encode()

    def error_frame(self, message: str) -> bytes:
        """A JSON body is never partly sent: a failure is always a 502."""
        return b""

    def _holders(self, data: Any) -> Iterator[Holder]:
        if self._paths:
            for path in self._paths:
                yield from json_path_fields(data, path)
            return
        for matches, paths in _SHAPES:
            if isinstance(data, dict) and matches(data):
                for path in paths:
                    yield from json_path_fields(data, path)
                return
        yield from _every_string(data)

    def _drop_citations(self, data: Any) -> bool:
        changed = False
        for holder, key in list(_citation_lists(data)):
            notes = holder[key]
            if isinstance(notes, list):
                kept = [n for n in notes if judged_urls(self.texts, self._urls, url_of(n))]
                if len(kept) != len(notes):
                    holder[key], changed = kept, True
        return changed


def _citation_lists(data: Any) -> Iterator[Holder]:
    """The lists of citations a Responses object or an Anthropic message carries."""
    yield from json_path_fields(data, "output[].content[].annotations")
    yield from json_path_fields(data, "content[].citations")


def _every_string(data: Any) -> Iterator[Holder]:
    items: Iterable[tuple[Any, Any]] = ()
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    for key, value in items:
        if isinstance(value, str):
            yield data, key
        else:
            yield from _every_string(value)


def _is_chat(data: dict[str, Any]) -> bool:
    return isinstance(data.get("choices"), list)


def _is_response(data: dict[str, Any]) -> bool:
    return data.get("object") == "response"


def _is_message(data: dict[str, Any]) -> bool:
    return data.get("type") == "message" and isinstance(data.get("content"), list)


def _is_ollama(data: dict[str, Any]) -> bool:
    return isinstance(data.get("message"), dict) or isinstance(data.get("response"), str)


# What a chat UI renders of a whole reply, in each shape (the LiteLLM guardrail reads
# the same fields).
CHAT_TEXT_PATHS = (
    "choices[].message.content",
    "choices[].message.content[].text",
    "choices[].message.reasoning_content",
    "choices[].message.reasoning",
    "choices[].message.refusal",
    "choices[].text",
)
RESPONSE_TEXT_PATHS = (
    "output[].content[].text",
    "output[].content[].refusal",
    "output[].summary[].text",
)
MESSAGE_TEXT_PATHS = ("content[].text",)
_SHAPES: tuple[tuple[Callable[[dict[str, Any]], bool], tuple[str, ...]], ...] = (
    (_is_chat, CHAT_TEXT_PATHS),
    (_is_response, RESPONSE_TEXT_PATHS),
    (_is_message, MESSAGE_TEXT_PATHS),
    (_is_ollama, ("message.content", "message.thinking", "response", "thinking")),
)
