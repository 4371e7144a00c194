"""One message of any family: who wrote it, and which family reads it.

    message(reader, {"role": "user", "content": "hi"}, turn=0, path=(0,))

Its author is its `role` (or ShareGPT's `from`, a LangChain message's type, Claude.ai's
`sender`, ChatGPT's `author.role`), as `record.role_of` reads it. A message that names
none is read by what it is: a Responses item by its type (a call the model's, an
output the tool's); a chat message of no stated author is `unknown` (it may be the
model's); a record with no message's shape (a retrieved document) too.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import ai_sdk, gemini, langchain, openai, pydantic_ai
from .content import dispatch, rest
from .record import MODEL, TOOL, UNKNOWN, USER, Kind, Path, Role, role_of
from .tables import TYPED, typed_family
from .walk import At, Fields, Reader, fields_of

__all__ = ["author", "message"]

_AUTHOR_KEYS = ("role", "from", "sender")


def message(reader: Reader, value: object, turn: int, path: Path) -> None:
    """Read one message (or item) of a conversation."""
    if isinstance(value, str):
        reader.text(value, At(USER, turn, path), Kind.TEXT)
        return
    if isinstance(value, bytes | bytearray):
        text = bytes(value).decode("utf-8", "replace")
        reader.text(text, At(USER, turn, path), Kind.TEXT)
        return
    fields = fields_of(value)
    if fields is None:
        reader.strings(value, At(UNKNOWN, turn, path), Kind.OTHER)
        return
    if not reader.enter(fields):
        return
    wrapped = langchain.unwrapped(fields)
    if wrapped is not None:
        inner, role = wrapped
        where = "kwargs" if "kwargs" in fields else "data"
        openai.chat_message(reader, inner, At(role, turn, (*path, where)))
        rest(reader, fields, At(role, turn, path), ("type", "data", "kwargs", "id", "lc"))
        return
    if pydantic_ai.is_message(fields):
        pydantic_ai.message(reader, fields, turn, path)
        return
    _fields(reader, fields, turn, path)


def _fields(reader: Reader, fields: Fields, turn: int, path: Path) -> None:
    role = author(fields)
    at = At(role or UNKNOWN, turn, path)
    kind = fields.get("type")
    if role is None and isinstance(kind, str) and _is_item(kind):
        dispatch(reader, fields, At(_item_author(kind), turn, path), Kind.TEXT)
        return
    parts = fields.get("parts")
    if isinstance(parts, list | tuple) and "content" not in fields:
        typed = any(isinstance(p, Mapping) and "type" in p for p in parts)
        (ai_sdk.ui_message if typed else gemini.gemini_content)(reader, fields, at)
        return
    if role is None and not any(k in fields for k in ("content", "message", "value")):
        # A record with no message's shape (`page_content`): a retrieved document.
        rest(reader, fields, at.by(TOOL), (), Kind.RESULT)
        return
    openai.chat_message(reader, fields, at)


def author(fields: Fields) -> Role | None:
    """The role a message names for its author, if it names one."""
    for key in _AUTHOR_KEYS:
        if fields.get(key):
            return role_of(fields[key])
    nested = fields_of(fields.get("author"))
    if nested is not None and nested.get("role"):
        return role_of(nested["role"])
    kind = fields.get("type")
    if isinstance(kind, str) and kind not in ("message", "text") and not _is_item(kind):
        named = role_of(kind)  # a LangChain message's dump: {"type": "ai", "content": ...}
        return named if named != UNKNOWN else None
    return None


def _is_item(kind: str) -> bool:
    return kind in TYPED or typed_family(kind) is not None


def _item_author(kind: str) -> Role:
    """Whose an item of no stated role is, by its type."""
    if kind.endswith(("_output", "_result")) or kind == "search_result":
        return TOOL
    if kind.endswith("_call") or kind in ("reasoning", "mcp_approval_request", "mcp_list_tools"):
        return MODEL
    return UNKNOWN
