"""Find the messages in a transcript record, in the common chat shapes.

    OpenAI / Anthropic   {"messages": [{"role": "assistant", "content": "..." | [parts]}]}
    ShareGPT             {"conversations": [{"from": "gpt", "value": "..."}]}
    one message          {"role": "assistant", "content": [{"type": "text", "text": "..."}]}
    one reply            "..."  or  {"reply" | "response" | "completion" | "output" | "text": "..."}
    --json-path          the fields named, as replies

A record's system prompt (Anthropic's `system`; `prompt`, `instruction` and `input` of
prompt/completion data) and tool results are messages too: each reply is judged with
the messages before it (`conversation_before`). Each message comes with a way to put its
sanitised text back, so `--fix` changes only the text and leaves everything else in the
record as it was.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..wire.json_path import json_path_fields

__all__ = ["Message", "UnknownShapeError", "conversations", "messages_of", "record_id"]

_SHAREGPT_ROLES = {"gpt": "assistant", "human": "user", "system": "system", "tool": "tool"}
_REPLY_FIELDS = ("reply", "response", "completion", "output", "text")
# Fields of a message that a chat UI renders besides its content.
_MESSAGE_FIELDS = ("refusal", "reasoning_content", "reasoning")
# Text of a content part: Chat Completions and Anthropic `text`, Anthropic `thinking`,
# the Assistants API's `text.value`.
_PART_FIELDS = ("text", "thinking", "refusal")
_ID_FIELDS = ("id", "conversation_id", "record_id", "uuid")
# What the model was given before its reply, in records that keep it beside the
# messages or the reply.
_PROMPT_FIELDS = (
    ("system", "system"),
    ("instruction", "user"),
    ("prompt", "user"),
    ("input", "user"),
)


class UnknownShapeError(ValueError):
    """A record in none of the shapes this reads."""


@dataclass(frozen=True, slots=True)
class Message:
    """One text of a record: its role, and where to write it back."""

    role: str
    text: str
    holder: Any  # the dict or list that holds the text
    key: Any
    turn: int = 0  # which message of the record it is part of

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


def conversations(messages: list[Message]) -> Iterator[list[dict[str, Any]] | None]:
    """For each message, the messages of the record before it (its own message's other
    parts excluded), as chat messages for `conversation=`; None when there are none."""
    done: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    turn = None
    for message in messages:
        if message.turn != turn:
            if current is not None:
                done.append(current)
            current, turn = {"role": message.role, "content": []}, message.turn
        yield list(done) if done else None
        if current is not None:
            current["content"].append({"type": "text", "text": message.text})


def _chat(data: Any) -> Iterator[Message]:
    turns = _counter()
    yield from _prompts(data, turns)
    for message in data["messages"]:
        if isinstance(message, dict):
            yield from _message(message, next(turns))
    yield from _replies(data, turns)  # prompt/completion records: the completion is the reply


def _message(message: dict[str, Any], turn: int = 0) -> Iterator[Message]:
    # No role is read as the model's: judging too much is the safe mistake.
    role = str(message.get("role") or "assistant").lower()
    yield from _content(role, message, "content", turn)
    for field in _MESSAGE_FIELDS:
        if isinstance(message.get(field), str):
            yield Message(role, message[field], message, field, turn)


def _sharegpt(data: Any) -> Iterator[Message]:
    turns = _counter()
    yield from _prompts(data, turns)  # some exports keep the system prompt beside the turns
    for turn in data["conversations"]:
        number = next(turns)
        if isinstance(turn, dict) and isinstance(turn.get("value"), str):
            role = str(turn.get("from") or "gpt").lower()
            yield Message(_SHAREGPT_ROLES.get(role, role), turn["value"], turn, "value", number)


def _one_message(data: Any) -> Iterator[Message]:
    yield from _message(data)


def _content(role: str, holder: dict[str, Any], key: str, turn: int) -> Iterator[Message]:
    content = holder.get(key)
    if isinstance(content, str):
        yield Message(role, content, holder, key, turn)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                yield from _part(role, part, turn)


def _part(role: str, part: dict[str, Any], turn: int) -> Iterator[Message]:
    if part.get("type") == "tool_result":  # Anthropic: a tool's answer in a user message
        yield from _content("tool", part, "content", turn)
        return
    for field in _PART_FIELDS:
        value = part.get(field)
        if isinstance(value, str):
            yield Message(role, value, part, field, turn)
        elif isinstance(value, dict) and isinstance(value.get("value"), str):
            yield Message(role, value["value"], value, "value", turn)


def _prompts(data: dict[str, Any], turns: Iterator[int]) -> Iterator[Message]:
    """What the model was given besides the messages: a system prompt, a prompt."""
    for field, role in _PROMPT_FIELDS:
        if isinstance(data.get(field), str | list):
            yield from _content(role, data, field, next(turns))


def _replies(data: dict[str, Any], turns: Iterator[int] | None = None) -> Iterator[Message]:
    turns = turns or _counter()
    for name in _REPLY_FIELDS:
        if isinstance(data.get(name), str):
            yield Message("assistant", data[name], data, name, next(turns))


def _one_reply(data: dict[str, Any]) -> Iterator[Message]:
    turns = _counter()
    yield from _prompts(data, turns)
    yield from _replies(data, turns)


def _counter() -> Iterator[int]:
    return itertools.count()


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
    (_is_reply, _one_reply),
)
