"""The conversation a chat request carries, read from its body.

    tee = RequestTee(limit=1 << 20)
    message = tee.take(await receive())     # the app gets `message` exactly as it came
    found = conversation_of(tee.body, coding=headers.get("content-encoding"), whole=tee.whole)
    found.chat                              # for `conversation=`, or None
    found.notes                             # why it may be only part of the conversation

A whole JSON body is read by `shapes.read` (every provider's request shape); a body
that is not JSON gives its text; a body cut short (over the limit, or not read whole by
the app) gives the string values of what was read. Those are texts of no known author:
their pieces count, but they prove no URL copied (the model's earlier turns may be
among them), and the judge is stricter for what was not read.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from starlette.types import Message

from ..shapes import UNKNOWN, Chat, Kind, Text, read
from .error_text import safe_name

__all__ = ["RequestConversation", "RequestTee", "conversation_of", "provider_of"]

# A JSON string, closed or cut short, and whether a colon makes it a key. The
# alternatives never overlap, so the scan is linear.
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)(")?(\s*:)?', re.DOTALL)
_CODINGS = frozenset({"gzip", "x-gzip", "deflate"})
_GZIP_WBITS = 16 + zlib.MAX_WBITS
# Request content types read as JSON or text; others (a file upload) are not read.
_READ_TYPES = ("json", "text/", "application/x-www-form-urlencoded")


@dataclass(frozen=True, slots=True)
class RequestConversation:
    """What a request body says the model saw: `chat` for `conversation=` (None when
    the body has none), the `shape` read, and `notes` on why it may be only part of
    the conversation (the chat's own notes among them)."""

    chat: Chat | None
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
        return RequestConversation(_unattributed(_strings_of_text(text), notes), "strings", notes)
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
    chat = read(data)
    return RequestConversation(chat, chat.shape or "strings", chat.notes)


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


def _unattributed(strings: Iterable[str], notes: tuple[str, ...] = ()) -> Chat:
    """Strings as texts of no known author."""
    texts = tuple(Text(UNKNOWN, text, Kind.OTHER, turn) for turn, text in enumerate(strings))
    return Chat(texts, None, notes)


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
