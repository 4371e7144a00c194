"""What every SSE dialect offers, and helpers to write JSON events back."""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # the C encoder json.dumps uses
from typing import Any, Protocol

from ..errors import FormatError
from .sse import SseEvent
from .text_streams import Texts

__all__ = [
    "DONE",
    "Dialect",
    "dumps",
    "json_event",
    "judged_urls",
    "new_event",
    "require",
    "url_of",
    "with_string",
]

DONE = "[DONE]"  # OpenAI's and the AI SDK's last event


class Dialect(Protocol):
    """Rewrites one provider's events; one instance per response."""

    name: str

    def event(self, event: SseEvent, data: Any) -> list[SseEvent]:
        """The events to send for `event` (whose data parsed to `data`, or is DONE)."""
        ...

    def quick(self, text: str) -> str | None:
        """The text to send for one whole event (`text`, ending with its blank line)
        when it provably has the dialect's usual per-token shape (`shapes`), worked out
        without parsing it: `text` itself when nothing changed, "" when it is not sent;
        None (and nothing done) for any other event, which `event` then reads."""
        ...

    def finish(self) -> list[SseEvent]:
        """The events that end every text still open, at the end of the body."""
        ...

    def error(self, message: str) -> SseEvent:
        """The provider's own error event, sent when the rest of a reply is withheld."""
        ...


def dumps(data: Any) -> str:
    """Compact JSON, as the providers send it."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def json_event(event: SseEvent, data: Any) -> SseEvent:
    """`event` with `data` as its new JSON data."""
    return event.with_data(dumps(data))


def with_string(event: SseEvent, data: Any, key: str, old: str, new: str) -> SseEvent:
    """`event` with the string `old` of field `key` now `new`.

    The one-line event is edited where the value is (a full `json.dumps` per token
    costs more than sanitising it); when the field is not there exactly once, as
    written, the whole of `data` (already holding `new`) is written instead.
    """
    line = event.lines[0] if len(event.lines) == 1 else "\\u"
    # A key spelled with escapes ("con\\u0074ent") is the same key to a client, and the
    # last of two wins: edit the text only when no key can be hidden that way.
    if "\\u" not in line:
        needle = f'"{key}":'
        at = line.find(needle)
        if at >= 0 and line.find(needle, at + 1) < 0:
            at += len(needle) + (line[at + len(needle) : at + len(needle) + 1] == " ")
            encoded = encode_basestring(old)
            if line.startswith(encoded, at):
                edited = line[:at] + encode_basestring(new) + line[at + len(encoded) :]
                return SseEvent([edited], event.eol)
    return json_event(event, data)


def new_event(data: Any, *, name: str | None = None, eol: str = "\n") -> SseEvent:
    """An event made here (a flushed tail, an error)."""
    lines = [f"event: {name}"] if name else []
    return SseEvent([*lines, f"data: {dumps(data)}"], eol)


def require(value: Any, kind: type, what: str) -> Any:
    """`value` if it is a `kind`; else the response is not in the format it claims."""
    if not isinstance(value, kind):
        raise FormatError(f"{what} is {type(value).__name__}, expected {kind.__name__}")
    return value


def url_of(item: Any) -> Any:
    """The `url` of a citation or annotation object; None for anything else."""
    return item.get("url") if isinstance(item, dict) else None


def judged_urls(texts: Texts, urls: dict[str, bool], url: Any, *, image: bool = False) -> bool:
    """May a citation or source URL (`image`: a file shown inline) stay? Each URL is
    judged and reported once."""
    if not isinstance(url, str):
        return True
    if url not in urls:
        urls[url] = texts.judge_url(url, image=image) is None
    return urls[url]
