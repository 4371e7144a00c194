"""Pydantic AI's messages: `ModelRequest` and `ModelResponse`, objects or dumped dicts.

    ModelRequest    {"kind": "request", "parts": [...], "instructions"}
    ModelResponse   {"kind": "response", "parts": [...], "model_name", ...}
    a part          {"part_kind": ..., "content" | "args", "tool_name", ...}

A part's author is its kind: `system-prompt` and `instruction` parts the operator's,
`user-prompt` the user's, `tool-return`, `builtin-tool-return`, `retry-prompt` and
`retry-feedback` a tool's (a retry prompt quotes what a validator said), `text`,
`thinking`, `tool-call`, `builtin-tool-call` and `file` the model's. A user prompt's
content is a string or a list of strings and files: `image-url`, `audio-url`,
`video-url`, `document-url` (a URL), `binary` (`data` bytes and a `media_type`: read
as the text a text file holds), `text-content`. A part of another kind is read, every
string of it, as of its message's author (a response's: the model's).

Sources: pydantic-ai-slim `messages.py` (`ModelRequestPart`, `ModelResponsePart`,
`UserContent`), `ModelMessagesTypeAdapter` for the dumped form.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .content import rest
from .record import MODEL, SYSTEM, TOOL, UNKNOWN, USER, Kind, Path, Role
from .walk import At, Fields, Reader, fields_of, items

__all__ = ["is_message", "message"]

_KINDS = frozenset({"request", "response"})
# Each part kind: its author, what its content is, and the field that holds it.
_PARTS: Mapping[str, tuple[Role, Kind, str]] = MappingProxyType(
    {
        "system-prompt": (SYSTEM, Kind.TEXT, "content"),
        "instruction": (SYSTEM, Kind.TEXT, "content"),
        "user-prompt": (USER, Kind.TEXT, "content"),
        "tool-return": (TOOL, Kind.RESULT, "content"),
        "builtin-tool-return": (TOOL, Kind.RESULT, "content"),
        "retry-prompt": (TOOL, Kind.RESULT, "content"),
        "retry-feedback": (TOOL, Kind.RESULT, "content"),
        "text": (MODEL, Kind.TEXT, "content"),
        "thinking": (MODEL, Kind.REASONING, "content"),
        "tool-call": (MODEL, Kind.CALL, "args"),
        "builtin-tool-call": (MODEL, Kind.CALL, "args"),
        "file": (MODEL, Kind.FILE, "content"),
    }
)
_URL_KINDS = frozenset({"image-url", "audio-url", "video-url", "document-url"})


def is_message(fields: Fields) -> bool:
    """Is `fields` a Pydantic AI `ModelRequest` or `ModelResponse`?"""
    return fields.get("kind") in _KINDS and "parts" in fields and "role" not in fields


def message(reader: Reader, fields: Fields, turn: int, path: Path) -> None:
    """Read one `ModelRequest` or `ModelResponse`: its parts, its instructions."""
    author = MODEL if fields.get("kind") == "response" else UNKNOWN
    at = At(author, turn, path)
    for index, value in items(fields.get("parts")):
        _part(reader, value, at / "parts" / index)
    instructions = fields.get("instructions")
    if isinstance(instructions, str):
        reader.text(instructions, At(SYSTEM, turn, (*path, "instructions")), Kind.TEXT)
    rest(reader, fields, at, ("parts", "instructions", "kind"))


def _part(reader: Reader, value: object, at: At) -> None:
    fields = fields_of(value)
    if fields is None:
        reader.strings(value, at, Kind.OTHER)
        return
    if not reader.enter(fields):
        return
    known = _PARTS.get(str(fields.get("part_kind")))
    if known is None:
        rest(reader, fields, at, ("part_kind",))
        return
    role, kind, key = known
    theirs = at.by(role)
    value = fields.get(key)
    if kind is Kind.TEXT and role == USER:
        _user_content(reader, value, theirs / key)
    elif kind is Kind.FILE:
        _file(reader, value, theirs / key)
    else:
        reader.strings(value, theirs / key, kind)
    rest(reader, fields, theirs, (key, "part_kind"))


def _user_content(reader: Reader, value: object, at: At) -> None:
    """A user prompt: a string, or strings and files."""
    if isinstance(value, str):
        reader.text(value, at, Kind.TEXT)
        return
    listed = isinstance(value, list | tuple)
    for index, item in items(value) if listed else ((None, value),):
        where = at / index if index is not None else at
        if isinstance(item, str):
            reader.text(item, where, Kind.TEXT)
        else:
            _file(reader, item, where)


def _file(reader: Reader, value: object, at: At) -> None:
    """A file given to or made by the model: a URL, bytes with their media type, text."""
    fields = fields_of(value)
    if fields is None:
        reader.strings(value, at, Kind.OTHER)
        return
    kind = fields.get("kind")
    if kind in _URL_KINDS:
        reader.strings(fields.get("url"), at / "url", Kind.FILE)
        rest(reader, fields, at, ("url", "kind"))
    elif kind == "binary" or ("data" in fields and "media_type" in fields):
        reader.attachment(fields.get("data"), fields.get("media_type"), at / "data")
        rest(reader, fields, at, ("data", "kind", "media_type"))
    elif kind == "text-content":
        reader.strings(fields.get("content"), at / "content", Kind.TEXT)
        rest(reader, fields, at, ("content", "kind"))
    else:
        rest(reader, fields, at, ("kind",))
