"""`Message`: one text of a record, its role, and where to write it back; and the
readers every shape shares (a chat message, its content parts, a conversation tree)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Message",
    "counter",
    "read_content",
    "read_message",
    "read_messages",
    "read_tree",
]

# Fields of a message that a chat UI renders besides its content.
_MESSAGE_FIELDS = ("refusal", "reasoning_content", "reasoning")
# Text of a content part: Chat Completions and Anthropic `text`, Anthropic `thinking`,
# the Assistants API's `text.value`.
_PART_FIELDS = ("text", "thinking", "refusal")
# LangChain's message types (`messages_to_dict`'s `type`, the class of a serialised one).
_LANGCHAIN_ROLES = {
    "human": "user",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
    "function": "tool",
    "humanmessage": "user",
    "aimessage": "assistant",
    "aimessagechunk": "assistant",
    "systemmessage": "system",
    "toolmessage": "tool",
    "functionmessage": "tool",
}


@dataclass(frozen=True, slots=True)
class Message:
    """One text of a record: its role, and where to write it back.

    `mirrors` are other places holding the same text (Open WebUI keeps each message in
    two lists; Claude.ai in `text` and `content`): a fix writes them all. `after` are
    the turns this one answers, for trees where the record's order is not the
    conversation's (a ChatGPT branch); None: every turn before it."""

    role: str
    text: str
    holder: Any  # the dict or list that holds the text
    key: Any
    turn: int = 0  # which message of the record it is part of
    mirrors: tuple[tuple[Any, Any], ...] = ()
    after: tuple[int, ...] | None = None

    def put(self, text: str) -> None:
        """Write the sanitised text back into the record."""
        self.holder[self.key] = text
        for holder, key in self.mirrors:
            holder[key] = text

    def places(self) -> tuple[tuple[Any, Any], ...]:
        """Every (container, key) that holds this text."""
        return ((self.holder, self.key), *self.mirrors)


def counter() -> Iterator[int]:
    """Turn numbers."""
    return itertools.count()


def read_message(message: dict[str, Any], turn: int = 0) -> Iterator[Message]:
    """The texts of one chat message: OpenAI's or Anthropic's `role`/`content`,
    LangChain's `type`/`data` (`messages_to_dict`) or its serialised `kwargs`."""
    role, holder = _role_and_holder(message)
    yield from read_content(role, holder, "content", turn)
    for field in _MESSAGE_FIELDS:
        if isinstance(holder.get(field), str):
            yield Message(role, holder[field], holder, field, turn)


def read_messages(messages: list[Any], turns: Iterator[int]) -> Iterator[Message]:
    """The texts of a list of chat messages, one turn each."""
    for message in messages:
        if isinstance(message, dict):
            yield from read_message(message, next(turns))


def _role_and_holder(message: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    data, kwargs = message.get("data"), message.get("kwargs")
    if isinstance(data, dict) and isinstance(message.get("type"), str):
        kind = str(data.get("role") or message["type"]) if message["type"] == "chat" else ""
        return _langchain_role(kind or message["type"]), data
    if isinstance(kwargs, dict) and message.get("lc"):
        names = message.get("id")
        name = names[-1] if isinstance(names, list) and names else ""
        return _langchain_role(str(kwargs.get("type") or name)), kwargs
    role, given = message.get("role"), message.get("type")
    if not role and isinstance(given, str) and given.lower() in _LANGCHAIN_ROLES:
        return _langchain_role(given), message
    # No role is read as the model's: judging too much is the safe mistake.
    return str(role or "assistant").lower(), message


def _langchain_role(kind: str) -> str:
    return _LANGCHAIN_ROLES.get(kind.lower(), kind.lower())


def read_content(role: str, holder: dict[str, Any], key: str, turn: int) -> Iterator[Message]:
    """The texts of `holder[key]`: a string, or a list of content parts."""
    content = holder.get(key)
    if isinstance(content, str):
        yield Message(role, content, holder, key, turn)
    elif isinstance(content, list):
        for index, part in enumerate(content):
            if isinstance(part, dict):
                yield from _part(role, part, turn)
            elif isinstance(part, str):  # ChatGPT's parts, LangChain's string blocks
                yield Message(role, part, content, index, turn)


def _part(role: str, part: dict[str, Any], turn: int) -> Iterator[Message]:
    if part.get("type") == "tool_result":  # Anthropic: a tool's answer in a user message
        yield from read_content("tool", part, "content", turn)
        return
    for field in _PART_FIELDS:
        value = part.get(field)
        if isinstance(value, str):
            yield Message(role, value, part, field, turn)
        elif isinstance(value, dict) and isinstance(value.get("value"), str):
            yield Message(role, value["value"], value, "value", turn)


Node = tuple[Any, list[Any], Any]  # parent id, child ids, the node's message


def read_tree(
    nodes: Mapping[Any, Node],
    read: Callable[[Any, int, tuple[int, ...]], Iterator[Message]],
    turns: Iterator[int],
) -> Iterator[Message]:
    """The messages of a conversation tree, every branch, depth first from each root;
    each answers the turns of its ancestors only (`Message.after`)."""
    roots = [key for key, (parent, _, _) in nodes.items() if parent not in nodes]
    seen: set[Any] = set()
    stack: list[tuple[Any, tuple[int, ...]]] = [(root, ()) for root in reversed(roots)]
    while stack:
        key, above = stack.pop()
        if key in seen or key not in nodes:
            continue
        seen.add(key)
        _, children, payload = nodes[key]
        turn = next(turns)
        found = list(read(payload, turn, above))
        yield from found
        below = (*above, turn) if found else above
        stack.extend((child, below) for child in reversed(children))
