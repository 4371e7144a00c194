"""Amazon Bedrock's Converse API: content blocks read by their one key.

    {"system": [{"text"} | {"guardContent"}], "messages": [{"role", "content": [block]}]}
    text                 a string
    image, video         {"format", "source": {"bytes"}}: no text
    document             {"format": "txt" | "md" | "csv" | "html" | "pdf" | ..., "name",
                          "source": {"bytes"} | {"text"} | {"content"}}
    toolUse              {"toolUseId", "name", "input"}: the model's
    toolResult           {"toolUseId", "content": [{"text"} | {"json"} | {"image"} |
                          {"document"}], "status"}: the tool's
    guardContent         {"text": {"text"}}
    reasoningContent     {"reasoningText": {"text", "signature"}, "redactedContent"}

Sources: boto3 `bedrock-runtime` `Converse` request syntax; docs.aws.amazon.com
"Carry out a conversation with the Converse API operations".
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .content import PartReader, content, rest
from .record import MODEL, TOOL, Kind
from .walk import At, Fields, Reader, fields_of

__all__ = ["KEYED"]


def _media(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """An image or a video: its bytes are no text; its other fields are read."""
    for name in ("image", "video"):
        inner = fields_of(fields.get(name))
        if inner is not None:
            rest(reader, inner, at / name, ("source",), Kind.FILE)
    rest(reader, fields, at, ("image", "video"))


def _document(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    inner = fields_of(fields.get("document"))
    if inner is None:
        rest(reader, fields, at, ())
        return
    where = at / "document"
    source = fields_of(inner.get("source")) or {}
    for key, value in source.items():
        if key == "bytes":
            reader.attachment(value, inner.get("format"), where / "source" / "bytes")
        else:
            content(reader, value, where / "source" / str(key), Kind.ATTACHMENT)
    rest(reader, inner, where, ("source",), Kind.ATTACHMENT)
    rest(reader, fields, at, ("document",))


def _tool_use(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at.by(MODEL), (), Kind.CALL)


def _tool_result(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    theirs = at.by(TOOL)
    inner = fields_of(fields.get("toolResult"))
    if inner is not None:
        content(reader, inner.get("content"), theirs / "toolResult" / "content", Kind.RESULT)
        rest(reader, inner, theirs / "toolResult", ("content",))
    rest(reader, fields, theirs, ("toolResult",))


def _json(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at, (), kind)


def _guard(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at, (), kind)


def _reasoning(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    mine = at.by(MODEL)
    inner = fields_of(fields.get("reasoningContent"))
    if inner is not None:
        text = fields_of(inner.get("reasoningText"))
        if text is not None:
            where = mine / "reasoningContent" / "reasoningText"
            content(reader, text.get("text"), where / "text", Kind.REASONING)
            rest(reader, text, where, ("text", "signature"))
        rest(reader, inner, mine / "reasoningContent", ("reasoningText", "redactedContent"))
    rest(reader, fields, mine, ("reasoningContent",))


KEYED: Mapping[str, PartReader] = MappingProxyType(
    {
        "image": _media,
        "video": _media,
        "document": _document,
        "toolUse": _tool_use,
        "toolResult": _tool_result,
        "json": _json,
        "guardContent": _guard,
        "reasoningContent": _reasoning,
    }
)
