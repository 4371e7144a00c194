"""The Vercel AI SDK's messages: UI messages (`parts`) and model messages.

    UI message     {"id", "role", "parts": [part], "metadata"}
      text {"text"}, reasoning {"text"}, file {"mediaType", "url"}, source-url {"url",
      "title"}, source-document, step-start, tool-<name> and dynamic-tool {"input",
      "output", "errorText", "state"}, tool-invocation (v4: {"toolInvocation": {"args",
      "result"}}), data-<name> {"data"}
    model message  {"role", "content": str | [part]}
      text, image {"image", "mediaType"}, file {"data", "mediaType"}, reasoning,
      tool-call {"toolName", "input" | "args"}, tool-result {"output": {"type": "text" |
      "json" | "error-text" | "error-json" | "content", "value"} | "result"}

A tool part's input is the model's; its output is the tool's. Sources are what a
search provider returned; data parts are the app's own (no known author).

Sources: vercel/ai `packages/ai/src/ui/ui-messages.ts`,
`packages/provider-utils/src/types/content-part.ts`, `model-message.ts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .common import file_part
from .content import PartReader, content, rest
from .record import MODEL, TOOL, UNKNOWN, Kind
from .walk import At, Fields, Reader, fields_of

__all__ = ["FAMILIES", "PARTS", "ui_message"]

# What a tool gave back, in a part that holds the call too.
_OUTPUT_KEYS = ("output", "result", "errorText", "error")


def ui_message(reader: Reader, fields: Fields, at: At) -> None:
    """A UI message: its parts, then any other field (its metadata)."""
    content(reader, fields.get("parts"), at / "parts", Kind.TEXT)
    rest(reader, fields, at, ("role", "parts"))


def _tool(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """`tool-<name>`, `dynamic-tool`, `tool-call` and `tool-result` parts: what went
    in is the model's, what came out the tool's."""
    theirs = at.by(TOOL)
    done = ["type"]
    for key in _OUTPUT_KEYS:
        if key in fields:
            _output(reader, fields[key], theirs / key)
            done.append(key)
    rest(reader, fields, at.by(MODEL), done, Kind.CALL)


def _output(reader: Reader, value: object, at: At) -> None:
    """A tool's output: `{"type": "content", "value": [parts]}` is read part by part,
    any other value string by string."""
    fields = fields_of(value)
    if fields is not None and fields.get("type") == "content":
        content(reader, fields.get("value"), at / "value", Kind.RESULT)
        rest(reader, fields, at, ("type", "value"), Kind.RESULT)
    else:
        reader.strings(value, at, Kind.RESULT)


def _result(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """A `tool-result` part of a tool message: every string of it is the tool's."""
    theirs = at.by(TOOL)
    done = ["type"]
    for key in _OUTPUT_KEYS:
        if key in fields:
            _output(reader, fields[key], theirs / key)
            done.append(key)
    rest(reader, fields, theirs, done)


def _invocation(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    inner = fields_of(fields.get("toolInvocation"))
    if inner is not None:
        _tool(reader, inner, at / "toolInvocation", kind)
    rest(reader, fields, at, ("type", "toolInvocation"))


def _source(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at.by(TOOL), ("type",), Kind.RESULT)


def _data(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at.by(UNKNOWN), ("type",))


def _nothing(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at, ("type",))


PARTS: Mapping[str, PartReader] = MappingProxyType(
    {
        "tool-call": _tool,
        "tool-result": _result,
        "dynamic-tool": _tool,
        "tool-invocation": _invocation,
        "source-url": _source,
        "source-document": _source,
        "step-start": _nothing,
        "media": file_part,  # a tool output's `content` part: {"data", "mediaType"}
    }
)
# Part types read by their start: `tool-<name>`, `data-<name>`.
FAMILIES: tuple[tuple[str, PartReader], ...] = (("tool-", _tool), ("data-", _data))
