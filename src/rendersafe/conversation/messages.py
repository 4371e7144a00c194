"""The conversation's messages: what `shapes` read, in the window, as the indexes take it.

    read = read_messages(request_body, max_chars=262_144)
    read.messages        # Message(index=3, role="tool", text=..., kind=Kind.RESULT), ...
    read.own             # the user's own words of each (for their e-mail addresses)
    read.notes           # what was not read, and why: the judge is stricter for it

One message is the consecutive texts of one turn by one author of one kind (a model's
reply and its tool calls are two): who wrote a URL first is asked per message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..shapes import MODEL, UNKNOWN, USER, Chat, Kind, Role, Text, read, window

__all__ = [
    "MEMO_CHARS",
    "MODEL_ROLES",
    "UNPROVEN_ROLES",
    "USER_ROLES",
    "Message",
    "Read",
    "read_messages",
]

# Roles whose own words are the user's.
USER_ROLES: frozenset[str] = frozenset({USER})
# Roles whose words are the model's (its earlier replies, as the client sends them back).
MODEL_ROLES: frozenset[str] = frozenset({MODEL})
# Messages that prove no URL copied and no host seen: the model may have written them.
UNPROVEN_ROLES: frozenset[str] = MODEL_ROLES | {UNKNOWN}
# What is read from one message is kept once per process (a chat sends its history
# again each turn), for messages of at most this many characters: a longer one is read
# again each time (linear: that costs what it cost before). The memos of a message's
# text and pieces (`memo.MessageMemo`) are bounded by the characters they keep
# (`RENDERSAFE_MESSAGE_MEMO_CHARS`, 16 Mi by default); the others by count, a few
# thousand messages each.
MEMO_CHARS = 32_768


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a conversation, as the model saw it: `index` is its turn (a
    request body's system prompt is 0), `role` its author, `text` its texts of one
    `kind` joined by "\\n"."""

    index: int
    role: Role
    text: str
    kind: Kind = Kind.TEXT


@dataclass(frozen=True, slots=True)
class Read:
    """A conversation read: its messages in the window, the user's own words of each,
    and what was not read (cut to the window, or not readable), with why."""

    messages: tuple[Message, ...]
    own: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def truncated(self) -> bool:
        """Was any of the conversation not read?"""
        return bool(self.notes)


def read_messages(messages: object, max_chars: int) -> Read:
    """Read `messages` (any shape `shapes.read` reads) into at most `max_chars`
    characters of text. Raises TypeError for a value that holds no messages at all
    (a number)."""
    if messages is None or isinstance(messages, bool | int | float):
        kind = type(messages).__name__
        raise TypeError(f"conversation must be a string or an iterable of messages, not {kind}")
    return of_chat(messages if isinstance(messages, Chat) else read(messages), max_chars)


def of_chat(chat: Chat, max_chars: int) -> Read:
    """The messages of a chat already read, in the window of `max_chars`."""
    kept, dropped = window(chat.texts, max_chars)
    notes = list(chat.notes)
    if dropped:
        notes.append(
            f"cut: {dropped} characters of the conversation were not read "
            f"(over {max_chars}; the model's and tools' oldest first)"
        )
    grouped = _grouped(kept)
    own = tuple(_own(texts) for texts in grouped)
    return Read(tuple(_message(texts) for texts in grouped), own, tuple(notes))


def _grouped(texts: Sequence[Text]) -> list[list[Text]]:
    groups: list[list[Text]] = []
    for text in texts:
        last = groups[-1][-1] if groups else None
        if last is not None and (last.turn, last.role, last.kind) == (
            text.turn,
            text.role,
            text.kind,
        ):
            groups[-1].append(text)
        else:
            groups.append([text])
    return groups


def _message(texts: list[Text]) -> Message:
    first = texts[0]
    return Message(first.turn, first.role, _unescaped("\n".join(t.text for t in texts)), first.kind)


def _own(texts: list[Text]) -> str:
    """The user's own words among `texts` ("" for anyone else's)."""
    first = texts[0]
    return "\n".join(t.text for t in texts) if first.role == USER and first.rendered else ""


def _unescaped(text: str) -> str:
    """`text` with the JSON escapes that hide a URL undone: `\\/` (PHP's and many
    encoders' `/`) and `\\u0026` (Go's `&`), so a tool result's URLs are seen as URLs."""
    if "\\/" in text:
        text = text.replace("\\/", "/")
    if "\\u0026" in text:
        text = text.replace("\\u0026", "&")
    return text
