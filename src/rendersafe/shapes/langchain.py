"""LangChain's messages: serialised dicts, dumped objects, standard content blocks.

    messages_to_dict   {"type": "human" | "ai" | "system" | "tool" | "function" | "chat",
                        "data": {"content", "additional_kwargs", "tool_calls", ...}}
    dumpd              {"lc": 1, "type": "constructor", "id": [..., "AIMessage"],
                        "kwargs": {...}}
    an object          `HumanMessage(...)`: its `model_dump()`, with `type` for the role
    content blocks     text, reasoning {"reasoning"}, image / audio / video / file
                       {"url" | "base64" | "id", "mime_type"}, text-plain {"text" |
                       "base64", "mime_type"}, tool_call {"name", "args"},
                       server_tool_call, server_tool_result {"output"}, non_standard

A message's role is its type (`chat` messages say theirs in `role`).

Sources: langchain-core `messages/base.py` (`messages_to_dict`), `load/dump.py`,
`messages/content.py` (v1 standard blocks).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .common import file_part
from .content import PartReader, rest
from .record import MODEL, TOOL, UNKNOWN, Kind, Role, role_of
from .walk import At, Fields, Reader

__all__ = ["PARTS", "unwrapped"]


def unwrapped(fields: Fields) -> tuple[Fields, Role] | None:
    """A serialised LangChain message's own fields and its role; None for any other."""
    kind, data, kwargs = fields.get("type"), fields.get("data"), fields.get("kwargs")
    if fields.get("lc") and isinstance(kwargs, Mapping):
        path = fields.get("id")
        name = path[-1] if isinstance(path, list) and path else kwargs.get("type")
        return kwargs, _role(str(name or ""), kwargs)
    if isinstance(kind, str) and isinstance(data, Mapping) and "content" in data:
        return data, _role(kind, data)
    return None


def _role(name: str, fields: Fields) -> Role:
    if name.lower().removesuffix("chunk").removesuffix("message") == "chat":
        return role_of(fields.get("role"))  # a ChatMessage says its role
    return role_of(name)


def _call(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at.by(MODEL), ("type",), Kind.CALL)


def _server_result(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at.by(TOOL), ("type",), Kind.RESULT)


def _non_standard(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at.by(UNKNOWN) if at.role == MODEL else at, ("type",))


PARTS: Mapping[str, PartReader] = MappingProxyType(
    {
        "text-plain": file_part,
        "audio": file_part,
        "video": file_part,
        "tool_call": _call,
        "tool_call_chunk": _call,
        "invalid_tool_call": _call,
        "server_tool_call": _call,
        "server_tool_call_chunk": _call,
        "server_tool_result": _server_result,
        "non_standard": _non_standard,
    }
)
