"""The conversation a chat request carries, read from its body.

    tee = RequestTee(limit=1 << 20)
    message = tee.take(await receive())     # the app gets `message` exactly as it came
    found = conversation_of(tee.body, coding=headers.get("content-encoding"), whole=tee.whole)
    found.messages                          # for `conversation=`, or None
    found.notes                             # why it may be only part of the conversation

The first shape that matches is read:

    OpenAI chat, Ollama chat     {"messages": [...]}                  the list as it is
    Anthropic Messages           {"system": str | blocks, "messages": [...]}
    AI SDK UI                    {"messages": [{"role", "parts": [...]}]}
    OpenAI Responses             {"instructions": str, "input": str | items}
    Ollama generate, completions {"system": str, "prompt": str | [str]}

The system prompt becomes a `{"role": "system", ...}` message first. Any other JSON body
gives its string values; a body that is not JSON, its text; a body cut short (over the
limit, or not read whole by the app), the strings of what was read. Those are messages
of no known author (`UNKNOWN_ROLE`): their pieces count, but they prove no URL copied
(the model's earlier turns may be among them).
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from starlette.types import Message

from ..conversation.messages import UNKNOWN_ROLE
from .messages import safe_name

__all__ = ["RequestConversation", "RequestTee", "conversation_of"]

# A JSON string, closed or cut short, and whether a colon makes it a key. The
# alternatives never overlap, so the scan is linear.
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)(")?(\s*:)?', re.DOTALL)
_CODINGS = frozenset({"gzip", "x-gzip", "deflate"})
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_ELSEWHERE_NOTE = "partial: {} (earlier turns are not in the request)"
# Request fields, by shape, that name earlier turns kept elsewhere (by the provider, or
# as tokens): the body is then only part of the conversation.
_ELSEWHERE = MappingProxyType(
    {"responses": ("previous_response_id", "conversation"), "prompt": ("context",)}
)
# Request content types read as JSON or text; others (a file upload) are not read.
_READ_TYPES = ("json", "text/", "application/x-www-form-urlencoded")


@dataclass(frozen=True, slots=True)
class RequestConversation:
    """What a request body says the model saw: `messages` for `conversation=` (chat
    messages or strings, None when the body has none), the `shape` read, and `notes`
    on why it may be only part of the conversation."""

    messages: list[Any] | None
    shape: str
    notes: tuple[str, ...] = ()


class RequestTee:
    """Copies the request body aside as the app reads it, up to `limit` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: list[bytes] = []
        self.size = 0  # bytes kept
        self.cut = False  # the body went on past the limit
        self.complete = False  # the app has read the last body message

    def take(self, message: Message) -> Message:
        """Note `message` (any kind); return it as it is."""
        if message["type"] != "http.request" or self.complete or not self.limit:
            return message
        self.complete = not message.get("more_body", False)
        body = message.get("body", b"")
        room = self.limit - self.size
        if len(body) > room:
            self.cut, body = True, body[:room]
        if body:
            # bytes are immutable: keeping a reference copies nothing.
            self._parts.append(body if isinstance(body, bytes) else bytes(body))
            self.size += len(body)
        return message

    @property
    def body(self) -> bytes:
        """The bytes kept."""
        if len(self._parts) > 1:
            self._parts = [b"".join(self._parts)]
        return self._parts[0] if self._parts else b""

    @property
    def whole(self) -> bool:
        """Are the bytes kept the whole body?"""
        return self.complete and not self.cut

    def notes(self) -> tuple[str, ...]:
        """Why the bytes kept are not the whole body, if they are not."""
        if self.cut:
            return (
                f"cut: the request body is over max_request_bytes ({self.limit}); "
                "the conversation is what was read",
            )
        if not self.complete and self.size:
            return ("incomplete: the app had not read the whole request body",)
        return ()


def conversation_of(
    body: bytes,
    *,
    content_type: str | None = None,
    coding: str | None = None,
    whole: bool = True,
    limit: int = 1 << 20,
) -> RequestConversation:
    """The conversation in a request `body` (`whole`: all of it; else what was read),
    inflated first if `coding` is gzip or deflate (to at most `limit` bytes)."""
    main = (content_type or "").split(";", 1)[0].strip().lower()
    if main and not any(kind in main for kind in _READ_TYPES):
        return RequestConversation(None, "unread", (f"unread: content type {safe_name(main)}",))
    raw, notes = _inflated(body, coding, limit)
    if raw is None or not raw.strip():
        return RequestConversation(None, "unread" if raw is None else "empty", notes)
    text = raw.decode("utf-8-sig", errors="replace")
    if not whole or notes:
        return RequestConversation(_unattributed(_strings_of_text(text)), "strings", notes)
    return _read(text)


# Where each provider's API lives: its GenAI semantic conventions' system and operation.
_PROVIDERS = (
    ("/chat/completions", "openai", "chat"),
    ("/completions", "openai", "text_completion"),
    ("/responses", "openai", "chat"),
    ("/messages", "anthropic", "chat"),
    ("/api/chat", "ollama", "chat"),
    ("/api/generate", "ollama", "text_completion"),
)


def provider_of(path: str | None, body: bytes) -> dict[str, str]:
    """What a request says of the model it asks, as GenAI semantic-convention span
    attributes: the system and operation (from the API's path), the model (from a JSON
    body's `model`); only what is known."""
    found: dict[str, str] = {}
    for suffix, system, operation in _PROVIDERS:
        if path and path.endswith(suffix):
            found = {"gen_ai.system": system, "gen_ai.operation.name": operation}
            break
    try:
        data = json.loads(body) if body.lstrip()[:1] == b"{" else None
    except (ValueError, RecursionError):
        data = None
    model = data.get("model") if isinstance(data, dict) else None
    if isinstance(model, str) and model:
        found["gen_ai.request.model"] = model[:128]
    return found


def _read(text: str) -> RequestConversation:
    """The conversation in a whole body, by its shape."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return RequestConversation(_unattributed([text]), "text")
    for shape, read in _SHAPES:
        messages = read(data)
        if messages is not None:
            return RequestConversation(messages, shape, _elsewhere(shape, data))
    return RequestConversation(_unattributed(_strings_of(data)), "strings")


def _inflated(body: bytes, coding: str | None, limit: int) -> tuple[bytes | None, tuple[str, ...]]:
    """The body inflated (None when it cannot be), and a note if it was cut."""
    name = (coding or "identity").strip().lower()
    if name in ("identity", ""):
        return body, ()
    if name not in _CODINGS:
        return None, (f"unread: content-encoding {safe_name(name)} (gzip and deflate are read)",)
    try:
        inflate = zlib.decompressobj(_wbits(name, body))
        out = inflate.decompress(body, limit)
    except zlib.error:
        return None, (f"unread: the {name} body does not inflate",)
    if inflate.unconsumed_tail:
        return out, (f"cut: the inflated request body is over {limit} bytes",)
    return out, ()


def _wbits(coding: str, head: bytes) -> int:
    if coding != "deflate":
        return _GZIP_WBITS
    # "deflate" is meant zlib-wrapped, but raw deflate is common (see wire/encoding.py).
    zlib_header = len(head) > 1 and (head[0] & 0x0F) == 8 and (head[0] << 8 | head[1]) % 31 == 0
    return zlib.MAX_WBITS if zlib_header else -zlib.MAX_WBITS


def _elsewhere(shape: str, data: dict[str, Any]) -> tuple[str, ...]:
    fields = _ELSEWHERE.get(shape, ())
    return tuple(_ELSEWHERE_NOTE.format(field) for field in fields if data.get(field))


def _system(data: dict[str, Any], field: str) -> list[Any]:
    """The system prompt in `field`, as a message, if there is one."""
    value = data.get(field)
    if isinstance(value, str | list) and value:
        return [{"role": "system", "content": value}]
    return []


def _chat(data: Any) -> list[Any] | None:
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        return None
    messages: list[Any] = data["messages"]
    if any(isinstance(m, dict) and isinstance(m.get("parts"), list) for m in messages):
        messages = [item for m in messages for item in _ui_message(m)]
    return _system(data, "system") + messages


def _responses(data: Any) -> list[Any] | None:
    if not isinstance(data, dict) or "input" not in data:
        return None
    items = data["input"]
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    elif not isinstance(items, list):
        return None
    return _system(data, "instructions") + items


def _prompt(data: Any) -> list[Any] | None:
    if not isinstance(data, dict) or "prompt" not in data:
        return None
    prompt = data["prompt"]
    prompts = [prompt] if isinstance(prompt, str) else prompt
    if not isinstance(prompts, list):
        return None
    users = [{"role": "user", "content": p} for p in prompts if isinstance(p, str)]
    return _system(data, "system") + users


_SHAPES: tuple[tuple[str, Callable[[Any], list[Any] | None]], ...] = (
    ("messages", _chat),
    ("responses", _responses),
    ("prompt", _prompt),
)


def _ui_message(message: Any) -> list[Any]:
    """An AI SDK UI message as chat messages: its text, then one per tool output."""
    if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
        return [message]
    role = message.get("role") or "user"
    texts: list[dict[str, str]] = []
    outputs: list[dict[str, str]] = []
    for part in message["parts"]:
        if not isinstance(part, dict):
            continue
        text, output = _ui_part(part)
        if text:
            texts.append({"type": "text", "text": text})
        if output:
            outputs.append({"role": "tool", "content": output})
    return [{"role": role, "content": texts}, *outputs]


def _ui_part(part: dict[str, Any]) -> tuple[str | None, str | None]:
    """(text, tool output) of one part: v5 `text`, `reasoning`, `tool-*` and
    `dynamic-tool` (`output`), `source-url`; v4 `reasoning` and `tool-invocation`."""
    kind = str(part.get("type", ""))
    if kind in ("text", "reasoning"):
        return _str(part.get("text")) or _str(part.get("reasoning")), None
    if kind == "source-url":
        return _str(part.get("url")), None
    if kind == "tool-invocation":
        invocation = part.get("toolInvocation")
        result = invocation.get("result") if isinstance(invocation, dict) else None
        return None, _as_text(result)
    if kind.startswith("tool-") or kind == "dynamic-tool":
        return None, _as_text(part.get("output"))
    return None, None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value or None
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None


def _unattributed(strings: Iterable[str]) -> list[Any]:
    """Strings as messages of no known author."""
    return [{"role": UNKNOWN_ROLE, "content": text} for text in strings]


def _strings_of(data: Any) -> Iterator[str]:
    """The string values in a JSON value (not its keys), in order."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(reversed(item.values()))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def _strings_of_text(text: str) -> list[Any]:
    """The string values in JSON text that may be cut anywhere (not its keys); the
    text itself when it holds none."""
    if not text.lstrip().startswith(("{", "[")):
        return [text]
    found: list[Any] = []
    for match in _STRING.finditer(text):
        if match.group(3):
            continue  # a key
        found.append(_unescaped(match.group(1)))
    return found or [text]


def _unescaped(raw: str) -> str:
    try:
        value = json.loads(f'"{raw}"')
    except ValueError:  # a control character, or an escape cut short
        return raw
    return value if isinstance(value, str) else raw
