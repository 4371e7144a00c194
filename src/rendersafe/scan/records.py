"""Find the messages in a transcript record, in the common chat shapes.

    OpenAI / Anthropic   {"messages": [{"role": "assistant", "content": "..." | [parts]}]}
    ShareGPT             {"conversations": [{"from": "gpt", "value": "..."}]}
    one message          {"role": "assistant", "content": [{"type": "text", "text": "..."}]}
    one reply            "..."  or  {"reply" | "response" | "completion" | "output" | "text": "..."}
    --json-path          the fields named, as replies

Each message comes with a way to put its sanitised text back, so `--fix` changes only
the text and leaves everything else in the record as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..wire.json_path import json_path_fields

__all__ = ["Message", "UnknownShapeError", "messages_of", "record_id"]

_SHAREGPT_ROLES = {"gpt": "assistant", "human": "user", "system": "system", "tool": "tool"}
_REPLY_FIELDS = ("reply", "response", "completion", "output", "text")
# Fields of a message that a chat UI renders besides its content.
_MESSAGE_FIELDS = ("refusal", "reasoning_content", "reasoning")
# Text of a content part: Chat Completions and Anthropic `text`, Anthropic `thinking`,
# the Assistants API's `text.value`.
_PART_FIELDS = ("text", "thinking", "refusal")
_ID_FIELDS = ("id", "conversation_id", "record_id", "uuid")


class UnknownShapeError(ValueError):
    """A record in none of the shapes this reads."""


@dataclass(frozen=True, slots=True)
class Message:
    """One text of a record: its role, and where to write it back."""

    role: str
    text: str
    holder: Any  # the dict or list that holds the text
    key: Any

    def put(self, text: str) -> None:
        """Write the sanitised text back into the record."""
        self.holder[self.key] = text


def record_id(data: Any, fallback: str) -> str:
    """The record's own id, if it has one."""
    if isinstance(data, dict):
        for name in _ID_FIELDS:
            if isinstance(data.get(name), str | int):
                return str(data[name])
    return fallback


def messages_of(data: Any, json_paths: tuple[str, ...] = ()) -> list[Message]:
    """Every text message of `data`; `UnknownShapeError` when it has no known shape."""
    if json_paths:
        return [
            Message("assistant", holder[key], holder, key)
            for path in json_paths
            for holder, key in json_path_fields(data, path)
            if isinstance(holder[key], str)
        ]
    for test, read in _SHAPES:
        if test(data):
            return list(read(data))
    keys = sorted(data)[:6] if isinstance(data, dict) else type(data).__name__
    raise UnknownShapeError(
        f"a record of an unknown shape ({keys}); name its text with --json-path"
    )


def _chat(data: Any) -> Iterator[Message]:
    for message in data["messages"]:
        if isinstance(message, dict):
            yield from _message(message)
    yield from _replies(data)  # prompt/completion records: the completion is the reply


def _message(message: dict[str, Any]) -> Iterator[Message]:
    # No role is read as the model's: judging too much is the safe mistake.
    role = str(message.get("role") or "assistant").lower()
    yield from _content(role, message, "content")
    for field in _MESSAGE_FIELDS:
        if isinstance(message.get(field), str):
            yield Message(role, message[field], message, field)


def _sharegpt(data: Any) -> Iterator[Message]:
    for turn in data["conversations"]:
        if isinstance(turn, dict) and isinstance(turn.get("value"), str):
            role = str(turn.get("from") or "gpt").lower()
            yield Message(_SHAREGPT_ROLES.get(role, role), turn["value"], turn, "value")


def _one_message(data: Any) -> Iterator[Message]:
    yield from _message(data)


def _content(role: str, holder: dict[str, Any], key: str) -> Iterator[Message]:
    content = holder.get(key)
    if isinstance(content, str):
        yield Message(role, content, holder, key)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                yield from _part(role, part)


def _part(role: str, part: dict[str, Any]) -> Iterator[Message]:
    for field in _PART_FIELDS:
        value = part.get(field)
        if isinstance(value, str):
            yield Message(role, value, part, field)
        elif isinstance(value, dict) and isinstance(value.get("value"), str):
            yield Message(role, value["value"], value, "value")


def _replies(data: dict[str, Any]) -> Iterator[Message]:
    for name in _REPLY_FIELDS:
        if isinstance(data.get(name), str):
            yield Message("assistant", data[name], data, name)


def _is_chat(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("messages"), list)


def _is_sharegpt(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("conversations"), list)


def _is_message(data: Any) -> bool:
    return isinstance(data, dict) and "role" in data and "content" in data


def _is_reply(data: Any) -> bool:
    return isinstance(data, dict) and any(isinstance(data.get(n), str) for n in _REPLY_FIELDS)


_SHAPES: tuple[tuple[Callable[[Any], bool], Callable[[Any], Iterator[Message]]], ...] = (
    (_is_chat, _chat),
    (_is_sharegpt, _sharegpt),
    (_is_message, _one_message),
    (_is_reply, _replies),
)
