"""Anthropic's content blocks (Messages API; Bedrock's and Vertex's Claude send the same).

    text                 {"text", "citations"}
    image                {"source": {"type": "base64" | "url" | "file", ...}}
    document             {"source": {"type": "text", "data"} | {"type": "base64",
                          "media_type", "data"} | {"type": "content", "content": [blocks]}
                          | {"type": "url"} | {"type": "file"}, "title", "context"}
    tool_use, server_tool_use, mcp_tool_use     {"name", "input"}: the model's
    tool_result, mcp_tool_result                {"content": str | [blocks]}: the tool's
    web_search_tool_result, web_fetch_tool_result, code_execution_tool_result, any
    ..._tool_result                             the server tool's
    search_result        {"source", "title", "content": [text blocks]}: a retriever's
    thinking             {"thinking", "signature"}; redacted_thinking {"data"}

A `document`'s text is its message author's (a user attaches it); a search result is
what a retriever returned. Signatures and redacted thinking are opaque bytes.

Sources: anthropic-sdk-python `types/*_block_param.py`; docs.anthropic.com "PDF support",
"Citations", "Search results", "Web search tool".
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .common import media_type
from .content import PartReader, content, rest
from .record import MODEL, TOOL, Kind
from .walk import At, Fields, Reader, fields_of

__all__ = ["PARTS", "TOOL_RESULT_END", "tool_result"]

TOOL_RESULT_END = "_tool_result"


def _tool_use(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at.by(MODEL), ("type",), Kind.CALL)


def tool_result(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """What a tool (or a server tool) returned: every string of it is the tool's."""
    theirs = at.by(TOOL)
    content(reader, fields.get("content"), theirs / "content", Kind.RESULT)
    rest(reader, fields, theirs, ("type", "content"))


def _document(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    source = fields_of(fields.get("source"))
    where = at / "source"
    if source is not None:
        _source(reader, source, where)
    for key in ("title", "context"):
        if key in fields:
            reader.strings(fields[key], at / key, Kind.ATTACHMENT)
    rest(reader, fields, at, ("type", "source", "title", "context"))


def _source(reader: Reader, source: Fields, at: At) -> None:
    kind = source.get("type")
    data = source.get("data")
    if kind == "content":
        content(reader, source.get("content"), at / "content", Kind.ATTACHMENT)
        rest(reader, source, at, ("type", "content"))
        return
    if isinstance(data, str):
        found = {"text": False, "base64": True}.get(kind if isinstance(kind, str) else "")
        if found is False:
            reader.text(data, at / "data", Kind.ATTACHMENT)
        else:
            reader.attachment(data, media_type(source), at / "data")
    rest(reader, source, at, ("type", "data"), Kind.FILE)


def _search_result(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    theirs = at.by(TOOL)
    content(reader, fields.get("content"), theirs / "content", Kind.RESULT)
    rest(reader, fields, theirs, ("type", "content"), Kind.RESULT)


def _thinking(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    mine = at.by(MODEL)
    content(reader, fields.get("thinking"), mine / "thinking", Kind.REASONING)
    rest(reader, fields, mine, ("type", "thinking", "signature"))


def _opaque(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """Redacted thinking: encrypted bytes, no text."""


PARTS: Mapping[str, PartReader] = MappingProxyType(
    {
        "tool_use": _tool_use,
        "server_tool_use": _tool_use,
        "mcp_tool_use": _tool_use,
        "tool_result": tool_result,
        "document": _document,
        "search_result": _search_result,
        "thinking": _thinking,
        "redacted_thinking": _opaque,
    }
)
