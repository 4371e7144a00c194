"""The one reader of chat shapes: every provider's and framework's, as `Text`s.

    chat = read(request_body)       # or messages, one message, a stored record, a string
    chat.texts                      # Text(role="tool", text=..., kind=Kind.RESULT, turn=3, ...)
    chat.shape                      # "chat", "responses", "gemini", "chatgpt", ... or None
    chat.notes                      # what could not be read, and why

Nothing above this package knows a provider's field names (a test holds the code to
it): the conversation, the scanner and the request readers all read through here.
Every string reachable in a message is read, at any depth; files sent as base64 are
read as the text they hold; what cannot be read is noted, never raised.

    families   openai (chat, Responses; Mistral, Ollama and every compatible API),
               anthropic, gemini, bedrock, ai_sdk, langchain, pydantic_ai, cohere, exports (stored
               chats: ChatGPT, Claude.ai, Open WebUI, LMSYS, batches, LangSmith, ...)
    bodies     request bodies and message lists; messages: one message, its author
    content    parts by type (`tables`), common parts; walk: every string, bounded
    select     the window of a long chat, chosen by whose the texts are
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .bodies import REPLY_KEYS, body, messages, read_body_or_messages
from .exports import EXPORTS
from .langchain import unwrapped
from .messages import message
from .record import (
    MODEL,
    RENDERED,
    ROLES,
    TOOL,
    TRUSTED_ROLES,
    UNKNOWN,
    USER,
    Kind,
    Path,
    Role,
    Text,
    role_of,
)
from .select import window
from .walk import At, Reader

__all__ = [
    "MODEL",
    "RENDERED",
    "ROLES",
    "TOOL",
    "TRUSTED_ROLES",
    "UNKNOWN",
    "USER",
    "Chat",
    "Kind",
    "Path",
    "Role",
    "Text",
    "is_message",
    "put",
    "read",
    "recognise",
    "role_of",
    "window",
]

logger = logging.getLogger("rendersafe")


@dataclass(frozen=True, slots=True)
class Chat:
    """What one read found: the texts in order, the shape read (None: none known, its
    strings read as of no known author), and what could not be read."""

    texts: tuple[Text, ...]
    shape: str | None
    notes: tuple[str, ...] = ()


def read(value: object) -> Chat:
    """Read a chat in any shape. Never raises: a value that breaks a reader is read
    string by string, of no known author, and noted."""
    reader = Reader()
    try:
        shape = _read(reader, value)
    except Exception as exc:  # any shape, any failure: what was read stays read
        reader.note(f"unread: reading the conversation raised {type(exc).__name__}")
        shape = None
        try:
            reader.strings(value, At(UNKNOWN, len(reader.texts), ()), Kind.OTHER)
        except Exception:  # an object whose every attribute raises: nothing more to read
            logger.debug("rendersafe: a conversation could not be read", exc_info=True)
    return Chat(tuple(reader.texts), shape, tuple(reader.notes))


def _read(reader: Reader, value: object) -> str | None:
    shape = recognise(value)
    if shape in EXPORTS:
        EXPORTS[shape][1](reader, value)
    elif shape in ("chat", "reply"):
        body(reader, value)  # type: ignore[arg-type]  # recognise checked it is a dict
    elif shape == "message":
        message(reader, value, 0, ())
    elif shape == "messages":
        messages(reader, value, (), 0)  # type: ignore[arg-type]  # a list, checked
    else:
        return read_body_or_messages(reader, value)
    return shape


def recognise(data: object) -> str | None:
    """The name of the stored-chat shape `data` is read as (`chatgpt`, `claude`, `chat`,
    `message`, `messages`, `reply`, ...), None for any other (a request body of
    another shape, a string: `read` reads those too)."""
    if isinstance(data, dict):
        return _record_shape(data)
    if isinstance(data, list) and data and all(is_message(item) for item in data):
        return "messages"
    return None


def _record_shape(data: dict[str, Any]) -> str | None:
    found = next((name for name, (test, _) in EXPORTS.items() if test(data)), None)
    if found is None and isinstance(data.get("messages"), list):
        found = "chat"
    elif found is None and is_message(data):
        found = "message"
    elif found is None and any(isinstance(data.get(key), str) for key in REPLY_KEYS):
        found = "reply"
    return found


def is_message(data: object) -> bool:
    """Is `data` one message: a role and content, or a serialised LangChain message?"""
    if not isinstance(data, Mapping):
        return False
    return ("role" in data and "content" in data) or unwrapped(data) is not None


def put(root: Any, path: Path, value: str) -> None:
    """Write `value` at `path` in `root` (dicts and lists, as JSON gives them)."""
    holder = root
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
