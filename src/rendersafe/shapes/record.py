"""`Text`: one string of a chat, read: who wrote it, what it is, where it was.

Every reader of a chat shape gives `Text`s; nothing above `shapes/` knows a provider's
field names. A `Text`'s `role` is one of six, whatever the shape called it
(`role_of`): the author of its words, which is not always the role of the message that
holds it (a tool's result inside a user message is the tool's).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Literal

__all__ = [
    "MODEL",
    "RENDERED",
    "ROLES",
    "SYSTEM",
    "TOOL",
    "TRUSTED_ROLES",
    "UNKNOWN",
    "USER",
    "Kind",
    "Path",
    "Role",
    "Text",
    "role_of",
]

Role = Literal["user", "system", "developer", "tool", "model", "unknown"]
ROLES: tuple[Role, ...] = ("user", "system", "developer", "tool", "model", "unknown")
USER: Role = "user"
SYSTEM: Role = "system"
TOOL: Role = "tool"
MODEL: Role = "model"
UNKNOWN: Role = "unknown"
# Whose words are the user's (or the operator's) by default: a URL first seen there was
# given to the model, not chosen by it.
TRUSTED_ROLES: frozenset[Role] = frozenset({"user", "system", "developer"})

Key = str | int
Path = tuple[Key, ...]


class Kind(StrEnum):
    """What a string is to its message."""

    TEXT = "text"  # the author's words, as a chat client renders them
    REASONING = "reasoning"  # the model's shown thinking or its summary
    REFUSAL = "refusal"  # the model's refusal, rendered in place of its text
    CALL = "call"  # a tool call: its name and arguments (the model's)
    RESULT = "result"  # what a tool, a server tool or a retriever returned
    ATTACHMENT = "attachment"  # a file's or a document's text (decoded from base64)
    FILE = "file"  # where a file or an image is: its URL
    OTHER = "other"  # any other string of the message: names, ids, metadata


# What a chat client shows as the message: what a scan judges and fixes.
RENDERED = frozenset({Kind.TEXT, Kind.REASONING, Kind.REFUSAL})


@dataclass(frozen=True, slots=True)
class Text:
    """One string of a chat.

    `turn` is the message it belongs to (in the order given: a request body's system
    prompt first); `path` the keys from the value read to the string (a scan writes a
    fixed text back there, and at each of `mirrors`: other places holding the same
    text); `after` the turns it answers where the order given is not the chat's (a
    branch of a ChatGPT or Open WebUI tree), None for every turn before it.
    """

    role: Role
    text: str
    kind: Kind
    turn: int
    path: Path = ()
    mirrors: tuple[Path, ...] = ()
    after: tuple[int, ...] | None = None
    editable: bool = True

    @property
    def rendered(self) -> bool:
        """Does a chat client render it as its message's text?"""
        return self.kind in RENDERED


# Every name a shape gives an author, lower case. LangChain's classes and types are
# read without their `Message`/`Chunk` ends (`AIMessageChunk` is `ai`).
_ROLES: MappingProxyType[str, Role] = MappingProxyType(
    {
        "user": "user",
        "human": "user",
        "system": "system",
        "developer": "developer",
        "tool": "tool",
        "function": "tool",
        "ipython": "tool",
        "assistant": "model",
        "model": "model",
        "gpt": "model",
        "ai": "model",
        "bot": "model",
        "chatbot": "model",
    }
)


def role_of(name: object) -> Role:
    """The role a shape's name for an author means (`unknown` for none it uses)."""
    if not isinstance(name, str) or not name:
        return UNKNOWN
    key = name.strip().lower()
    found = _ROLES.get(key)
    if found is None and key.endswith(("message", "messagechunk")):
        found = _ROLES.get(key.removesuffix("chunk").removesuffix("message"))
    return found or UNKNOWN
