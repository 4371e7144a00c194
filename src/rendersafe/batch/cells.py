"""One cell of a column, read: a reply's text, or what the model saw.

    reply_text(b"bytes of UTF-8")      # "bytes of UTF-8"; Unreadable(...) for a number
    conversation_of('[{"role": ...}]')  # (Conversation, None); (Conversation, Unreadable)

A conversation cell is a chat in any shape `rendersafe.shapes` reads: a JSON string (a
message list, a request body, a stored export), the Python value of a list-of-struct
column, or plain text. A cell that starts as JSON and is not JSON is read as plain text
all the same, with a note: the judge is then as strict as for a conversation cut short,
and the row's findings say why.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..conversation import Conversation
from ..shapes import Chat, read
from ..wire.jsonlib import loads

__all__ = ["Unreadable", "conversation_of", "reply_text"]

_JSON_OPENERS = ("[", "{")  # a cell starting so is JSON, or a broken chat


@dataclass(frozen=True, slots=True)
class Unreadable:
    """Why a cell could not be read as it claims to be: a reason code and a detail."""

    reason: str
    detail: str


def reply_text(value: object) -> str | Unreadable:
    """The text of a reply cell (bytes are read as UTF-8); `Unreadable` for any other
    value. A null cell is for the caller: it stays null."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            return Unreadable("not_text", f"bytes that are not UTF-8 (byte {exc.start})")
    return Unreadable("not_text", f"a value of type {type(value).__name__}, not a string")


def conversation_of(value: object) -> tuple[Conversation | None, Unreadable | None]:
    """The conversation in a cell (None for a null cell, or the JSON `null`), and why
    it was read as plain text, if it was."""
    value, why = _parsed(value)
    if why is not None:
        return _as_text(str(value), why)
    if value is None:
        return None, None
    try:
        return Conversation.from_messages(value), None
    except TypeError:  # a number or a boolean: no messages in it
        kind = type(value).__name__
        why = Unreadable("conversation_unreadable", f"a value of type {kind} holds no messages")
        return _as_text(str(value), why)


def _parsed(value: object) -> tuple[object, Unreadable | None]:
    """A cell's value, JSON text parsed; the text itself, and why, when it is not JSON."""
    if isinstance(value, bytes | bytearray | memoryview):
        text = reply_text(value)
        if isinstance(text, Unreadable):
            return bytes(value).decode("utf-8", "replace"), text
        value = text
    if not isinstance(value, str) or not value.lstrip().startswith(_JSON_OPENERS):
        return value, None
    try:
        return loads(value), None
    except (ValueError, RecursionError) as exc:
        return value, Unreadable("conversation_unreadable", _not_json(exc))


def _as_text(text: str, why: Unreadable) -> tuple[Conversation, Unreadable]:
    """`text` read as a conversation of no known shape, noted as not read whole."""
    chat = read(text)
    noted = Chat(chat.texts, chat.shape, (*chat.notes, f"unread: {why.detail}"))
    return Conversation.from_messages(noted), why


def _not_json(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "JSON nested too deep to read"
    return f"not JSON ({str(exc).splitlines()[0][:120]})"
