"""Find the messages in a transcript record, in the common chat shapes.

    export formats       ChatGPT, Claude.ai, Open WebUI, LMSYS/WildChat, OpenAI and
                         Anthropic batches, Gemini/Vertex, chat.completion, Responses,
                         LangSmith (see `exports`)
    OpenAI / Anthropic   {"messages": [{"role": "assistant", "content": "..." | [parts]}]}
    ShareGPT             {"conversations": [{"from": "gpt", "value": "..."}]}
    one message          {"role": "assistant", "content": [{"type": "text", "text": "..."}]}
                         LangChain's {"type": "ai", "data": {"content": "..."}}
    messages             [{"type": "human", "data": ...}, ...] (`messages_to_dict`)
    one reply            "..."  or  {"reply" | "response" | "completion" | "output" | "text": "..."}
    --json-path          the fields named, as replies (or with the roles `--role-path` names)

A record's system prompt (Anthropic's `system`; `prompt`, `instruction` and `input` of
prompt/completion data) and tool results are messages too: each reply is judged with
the messages before it (`conversation_before`). Each message comes with a way to put its
sanitised text back, so `--fix` changes only the text and leaves everything else in the
record as it was.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from .exports import EXPORT_SHAPES
from .message import Message, counter, read_content, read_message, read_messages
from .paths import PathSpec, path_messages

__all__ = [
    "Message",
    "UnknownShapeError",
    "conversations",
    "is_message_list",
    "messages_of",
    "record_day",
    "record_id",
    "shape_of",
]

_SHAREGPT_ROLES = {"gpt": "assistant", "human": "user", "system": "system", "tool": "tool"}
_REPLY_FIELDS = ("reply", "response", "completion", "output", "text")
_TIME_FIELDS = ("create_time", "created_at", "timestamp", "created", "start_time", "processed_time")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_ID_FIELDS = ("id", "conversation_id", "record_id", "uuid", "custom_id", "conversation_hash")
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


def record_id(data: Any, fallback: str) -> str:
    """The record's own id, if it has one."""
    if isinstance(data, dict):
        for name in _ID_FIELDS:
            if isinstance(data.get(name), str | int):
                return str(data[name])
    return fallback


def record_day(data: Any) -> str | None:
    """The day (YYYY-MM-DD, UTC) of the record's own timestamp, if it has one."""
    if not isinstance(data, dict):
        return None
    for name in _TIME_FIELDS:
        value = data.get(name)
        if isinstance(value, str) and _DAY.match(value):
            return value[:10]
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            seconds = value / 1000 if value > 1e11 else value  # milliseconds
            with contextlib.suppress(OverflowError, OSError, ValueError):
                return datetime.fromtimestamp(seconds, UTC).date().isoformat()
    return None


def messages_of(data: Any, json_paths: tuple[str, ...] | PathSpec = ()) -> list[Message]:
    """Every text message of `data`; `UnknownShapeError` when it has no known shape."""
    if json_paths:
        spec = json_paths if isinstance(json_paths, PathSpec) else PathSpec(json_paths)
        return path_messages(data, spec)
    shape = shape_of(data)
    if shape is None:
        keys = sorted(data)[:6] if isinstance(data, dict) else type(data).__name__
        raise UnknownShapeError(
            f"a record of an unknown shape ({keys}); name its text with --json-path"
        )
    return list(_SHAPES[shape][1](data))


def shape_of(data: Any) -> str | None:
    """The name of the shape `data` is read as (`chatgpt`, `claude`, `chat`, ...)."""
    return next((name for name, (test, _) in _SHAPES.items() if test(data)), None)


def is_message_list(data: Any) -> bool:
    """Is `data` one LangChain message (`messages_to_dict`'s `type`/`data`, or a
    serialised one): a file of these is one conversation, not a record each?"""
    return isinstance(data, dict) and (
        (isinstance(data.get("data"), dict) and isinstance(data.get("type"), str))
        or (bool(data.get("lc")) and isinstance(data.get("kwargs"), dict))
    )


def conversations(messages: list[Message]) -> Iterator[list[dict[str, Any]] | None]:
    """For each message, the messages of the record before it (its own message's other
    parts excluded), as chat messages for `conversation=`; None when there are none.
    A message of a tree answers only its branch (`Message.after`)."""
    done: dict[int, dict[str, Any]] = {}
    for message in messages:
        if message.after is not None:
            before = [done[turn] for turn in message.after if turn in done]
        else:
            before = [m for turn, m in done.items() if turn != message.turn]
        yield before or None
        current = done.setdefault(message.turn, {"role": message.role, "content": []})
        current["content"].append({"type": "text", "text": message.text})


def _chat(data: Any) -> Iterator[Message]:
    turns = counter()
    yield from _prompts(data, turns)
    yield from read_messages(data["messages"], turns)
    yield from _replies(data, turns)  # prompt/completion records: the completion is the reply


def _sharegpt(data: Any) -> Iterator[Message]:
    turns = counter()
    yield from _prompts(data, turns)  # some exports keep the system prompt beside the turns
    for turn in data["conversations"]:
        number = next(turns)
        if isinstance(turn, dict) and isinstance(turn.get("value"), str):
            role = str(turn.get("from") or "gpt").lower()
            yield Message(_SHAREGPT_ROLES.get(role, role), turn["value"], turn, "value", number)


def _one_message(data: Any) -> Iterator[Message]:
    yield from read_message(data)


def _message_list(data: Any) -> Iterator[Message]:
    yield from read_messages(data, counter())


def _prompts(data: dict[str, Any], turns: Iterator[int]) -> Iterator[Message]:
    """What the model was given besides the messages: a system prompt, a prompt."""
    for field, role in _PROMPT_FIELDS:
        if isinstance(data.get(field), str | list):
            yield from read_content(role, data, field, next(turns))


def _replies(data: dict[str, Any], turns: Iterator[int] | None = None) -> Iterator[Message]:
    turns = turns or counter()
    for name in _REPLY_FIELDS:
        if isinstance(data.get(name), str):
            yield Message("assistant", data[name], data, name, next(turns))


def _one_reply(data: dict[str, Any]) -> Iterator[Message]:
    turns = counter()
    yield from _prompts(data, turns)
    yield from _replies(data, turns)


def _is_chat(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("messages"), list)


def _is_sharegpt(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("conversations"), list)


def _is_message(data: Any) -> bool:
    plain = isinstance(data, dict) and "role" in data and "content" in data
    return plain or is_message_list(data)


def _is_message_list(data: Any) -> bool:
    return isinstance(data, list) and bool(data) and all(_is_message(m) for m in data)


def _is_reply(data: Any) -> bool:
    return isinstance(data, dict) and any(isinstance(data.get(n), str) for n in _REPLY_FIELDS)


_Shape = tuple[Callable[[Any], bool], Callable[[Any], Iterator[Message]]]
# Name: (recognise, read); the first that recognises a record reads it.
_SHAPES: dict[str, _Shape] = {
    **EXPORT_SHAPES,
    "chat": (_is_chat, _chat),
    "sharegpt": (_is_sharegpt, _sharegpt),
    "message": (_is_message, _one_message),
    "messages": (_is_message_list, _message_list),
    "reply": (_is_reply, _one_reply),
}
