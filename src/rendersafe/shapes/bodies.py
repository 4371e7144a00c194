"""A chat as a caller hands it over: a request body, a list of messages, a string.

    {"messages": [...], "system"}            OpenAI chat, Anthropic, Mistral, Ollama chat,
                                             Bedrock Converse, Cohere v2, the AI SDK
    {"input": str | [items], "instructions"} OpenAI Responses
    {"contents": [...], "systemInstruction"} Gemini
    {"prompt": str | [str], "system"}        Ollama generate, text completions
    {"message", "chat_history", "preamble"}  Cohere v1
    [message, ...], a message, a string      as they are

A body's system prompt is a message of its own (turn 0). Its other fields are read
too: tool definitions and output formats as the operator's (`system`), retrieved
`documents` as a tool's, anything else as of no known author.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from . import cohere
from .content import content, rest
from .messages import message
from .record import MODEL, SYSTEM, TOOL, UNKNOWN, USER, Kind, Path, Role, role_of
from .walk import At, Fields, Reader, fields_of

__all__ = ["BODY_KEYS", "REPLY_KEYS", "body", "messages", "read_body_or_messages"]

# Fields of a request body that hold the conversation, by shape.
BODY_KEYS = frozenset({"messages", "input", "contents", "prompt", "chat_history"})
# Where a body's system prompt is, by shape.
_SYSTEM_KEYS = ("system", "instructions", "systemInstruction", "system_instruction", "preamble")
# What the operator writes into a request besides the conversation.
_OPERATOR_KEYS = frozenset(
    {
        "tools",
        "functions",
        "tool_choice",
        "toolConfig",
        "tool_config",
        "response_format",
        "text",
        "generationConfig",
        "generation_config",
        "safetySettings",
    }
)
_FIELD_ROLES: Mapping[str, Role] = MappingProxyType(
    {
        "documents": TOOL,  # Cohere's and others' retrieved documents
        "tool_results": TOOL,  # Cohere's first API: results sent with the message
        **dict.fromkeys(_OPERATOR_KEYS, SYSTEM),
    }
)
# Prompt/completion records (and scans of them): what the model was given, what it said.
_PROMPT_KEYS: tuple[tuple[str, Role], ...] = (
    ("instruction", USER),
    ("input", USER),
    ("suffix", USER),  # Ollama's generate: the text after the insertion point
)
REPLY_KEYS = ("reply", "response", "completion", "output", "text")
# Request fields that name earlier turns kept elsewhere (by the provider, or as tokens):
# the body is then only part of the conversation.
_ELSEWHERE = ("previous_response_id", "conversation", "context")


def read_body_or_messages(reader: Reader, value: object, path: Path = ()) -> str | None:
    """Read a request body, a message list, one message or a string; the shape read
    (None when `value` is none of them: its strings are read, of no known author)."""
    if isinstance(value, str | bytes | bytearray):
        message(reader, value, 0, path)
        return "text"
    fields = fields_of(value)
    if fields is not None:
        authored = any(key in fields for key in ("role", "from", "sender", "type"))
        if not authored and not _BODY_TEST.isdisjoint(k for k in fields if isinstance(k, str)):
            return body(reader, fields, path)
        if _is_message(fields):
            message(reader, value, 0, path)
            return "message"
        reader.strings(value, At(UNKNOWN, 0, path), Kind.OTHER)
        return None
    if isinstance(value, Iterable):
        messages(reader, value, path, 0)
        return "messages"
    reader.strings(value, At(UNKNOWN, 0, path), Kind.OTHER)
    return None


_BODY_TEST = BODY_KEYS | {"message"}


def _is_message(fields: Fields) -> bool:
    keys = {k for k in fields if isinstance(k, str)}
    return bool(keys & {"role", "from", "sender", "author", "content", "parts", "type"})


def messages(reader: Reader, value: Iterable[object], path: Path, turn: int) -> int:
    """Read a list of messages from turn `turn` (a body inside the list is read as a
    body: Ollama's generate requests, listed); the next turn."""
    for index, item in enumerate(value):
        if type(item) is dict and _plain(item):  # the common message, read at once
            _plain_message(reader, item, turn, (*path, index))
            turn += 1
            continue
        try:
            fields = fields_of(item) if not isinstance(item, str) else None
            if fields is not None and _is_body(fields):
                turn = _body_turns(reader, fields, (*path, index), turn)
                continue
            message(reader, item, turn, (*path, index))
        except Exception as exc:  # one message that breaks a reader costs only itself
            reader.note(f"unread: a message raised {type(exc).__name__}")
        turn += 1
    return turn


_PLAIN_KEYS = frozenset({"role", "content", "name"})


def _plain(item: dict[Any, object]) -> bool:
    """Is `item` a chat message of a role, string content and perhaps a name?"""
    return (
        isinstance(item.get("content"), str)
        and isinstance(item.get("role"), str)
        and item.keys() <= _PLAIN_KEYS
    )


def _plain_message(reader: Reader, item: dict[Any, object], turn: int, path: Path) -> None:
    """`messages.message` for a plain chat message, without the dispatch (what every
    shape's reader would make of it: the same `Text`s)."""
    role = role_of(item["role"])
    kind = Kind.RESULT if role == TOOL else Kind.TEXT
    reader.nodes += 1
    reader.text(str(item["content"]), At(role, turn, (*path, "content")), kind)
    name = item.get("name")
    if name is not None:
        reader.strings(name, At(role, turn, (*path, "name")), Kind.OTHER)


def _is_body(fields: Fields) -> bool:
    return (
        "role" not in fields
        and "type" not in fields
        and not BODY_KEYS.isdisjoint(k for k in fields if isinstance(k, str))
    )


def body(reader: Reader, fields: Fields, path: Path = ()) -> str:
    """Read a request body; the name of its shape."""
    _body_turns(reader, fields, path, 0)
    return _shape(fields)


def _shape(fields: Fields) -> str:
    if "contents" in fields:
        return "gemini"
    if "messages" in fields:
        return "chat"
    if ("input" in fields and "instructions" in fields) or isinstance(fields.get("input"), list):
        return "responses"
    if "chat_history" in fields or ("message" in fields and not cohere.V1_KEYS.isdisjoint(fields)):
        return "cohere"
    return "prompt" if "prompt" in fields else "body"


def _body_turns(reader: Reader, fields: Fields, path: Path, turn: int) -> int:
    """Read a body from turn `turn`, in the order the model read it; the next turn."""
    _elsewhere(reader, fields)
    done: list[str] = []
    turn = _system(reader, fields, path, turn, done)
    turn = _prompts(reader, fields, path, turn, done)
    turn = _conversation(reader, fields, path, turn, done)
    turn = _replies(reader, fields, path, turn, done)
    for key, value in fields.items():
        if key not in done:
            role = _FIELD_ROLES.get(str(key), UNKNOWN)
            kind = Kind.RESULT if role == TOOL else Kind.OTHER
            reader.strings(value, At(role, turn, (*path, str(key))), kind)
    return turn + 1


def _elsewhere(reader: Reader, fields: Fields) -> None:
    for key in _ELSEWHERE:
        value = fields.get(key)
        if value and (key == "context" or not isinstance(value, list | tuple)):
            reader.note(f"partial: {key} (earlier turns are not in the request)")


def _system(reader: Reader, fields: Fields, path: Path, turn: int, done: list[str]) -> int:
    """The body's system prompt (Gemini's is a `Content` of parts)."""
    for key in _SYSTEM_KEYS:
        if key not in fields:
            continue
        value = fields[key]
        inner = fields_of(value)
        where = At(SYSTEM, turn, (*path, key))
        if inner is not None and "parts" in inner:
            content(reader, inner.get("parts"), where / "parts", Kind.TEXT)
            rest(reader, inner, where, ("parts", "role"))
        else:
            content(reader, value, where, Kind.TEXT)
        done.append(key)
        turn += 1
    return turn


def _prompts(reader: Reader, fields: Fields, path: Path, turn: int, done: list[str]) -> int:
    """A prompt/completion record's instruction and input."""
    for key, role in _PROMPT_KEYS:
        value = fields.get(key)
        if isinstance(value, str) and not (key == "input" and "instructions" in fields):
            reader.text(value, At(role, turn, (*path, key)), Kind.TEXT)
            done.append(key)
            turn += 1
    return turn


def _replies(reader: Reader, fields: Fields, path: Path, turn: int, done: list[str]) -> int:
    """A record's reply kept beside the request (a completion, an output)."""
    for key in REPLY_KEYS:
        value = fields.get(key)
        if isinstance(value, str) and key not in done:
            reader.text(value, At(MODEL, turn, (*path, key)), Kind.TEXT)
            done.append(key)
            turn += 1
    return turn


def _conversation(reader: Reader, fields: Fields, path: Path, turn: int, done: list[str]) -> int:
    """Read the body's turns: its history, then the message it sends."""
    for key in ("chat_history", "messages", "contents", "input", "prompt", "message"):
        if key not in fields or key in done:
            continue
        value = fields[key]
        done.append(key)
        if isinstance(value, str):
            reader.text(value, At(USER, turn, (*path, key)), Kind.TEXT)
            turn += 1
        elif isinstance(value, list | tuple):
            turn = messages(reader, value, (*path, key), turn)
        elif (inner := fields_of(value)) is not None and _is_body(inner):
            turn = _body_turns(reader, inner, (*path, key), turn)  # LangServe's {"input": {...}}
        elif value is not None:
            message(reader, value, turn, (*path, key))
            turn += 1
    return turn
