"""A message's content: a string, a part, or a list of parts, read by the part's kind.

    content(reader, message["content"], at, Kind.TEXT)

A part is read by its `type` (OpenAI, Anthropic, the AI SDK, LangChain and Cohere
name their parts so; `tables.TYPED`, with `tables.typed_family` for families of names
such as `tool-<name>`), else by its one key (Gemini's and Bedrock's parts:
`tables.KEYED`). A part of no known kind gives its `text` as the message's text and
every other string as `OTHER`. Whatever a part's reader leaves is read by `rest`:
no key is skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from .record import Kind
from .walk import At, Fields, Reader, fields_of

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["MAX_NESTING", "PartReader", "content", "dispatch", "part", "rest"]

PartReader = Callable[[Reader, Fields, At, Kind], None]
# Parts inside parts (a tool result's blocks) are read by kind this deep; deeper, every
# string is read all the same, by the walk that keeps its own stack.
MAX_NESTING = 24
_tables: ModuleType | None = None


def content(reader: Reader, value: object, at: At, kind: Kind) -> None:
    """Read a content value: a string (as `kind`), one part, or a list of parts."""
    if isinstance(value, str):
        reader.text(value, at, kind)
        return
    if reader.depth >= MAX_NESTING:
        reader.strings(value, at, kind)
        return
    reader.depth += 1
    try:
        if isinstance(value, list | tuple):
            for index, item in enumerate(value):
                part(reader, item, at / index, kind)
        elif value is not None:
            part(reader, value, at, kind)
    finally:
        reader.depth -= 1


def part(reader: Reader, value: object, at: At, kind: Kind) -> None:
    """Read one part of a content list (a string is the message's text)."""
    if isinstance(value, str):
        reader.text(value, at, kind)
        return
    fields = fields_of(value)
    if fields is None or reader.depth > MAX_NESTING:
        reader.strings(value, at, kind if fields is None else Kind.OTHER)
        return
    if reader.enter(fields):
        dispatch(reader, fields, at, kind)


def dispatch(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """Read a part (or an item) already entered, by its kind."""
    _reader_of(fields)(reader, fields, at, kind)


def rest(
    reader: Reader,
    fields: Fields,
    at: At,
    done: Collection[str],
    kind: Kind = Kind.OTHER,
) -> None:
    """Read every field of `fields` not in `done`, as `kind`."""
    for key, value in fields.items():
        if key not in done:
            reader.strings(value, at / str(key), kind)


def _reader_of(fields: Fields) -> PartReader:
    tables = _table_module()
    kind = fields.get("type")
    if isinstance(kind, str):
        found: PartReader | None = tables.TYPED.get(kind) or tables.typed_family(kind)
        if found is not None:
            return found
    for key in fields:
        if isinstance(key, str) and key in tables.KEYED:
            keyed: PartReader = tables.KEYED[key]
            return keyed
    return _untyped


def _untyped(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """A part of no known kind: its `text` (or `content`) is the message's, the rest
    other strings of it."""
    other = Kind.RESULT if kind == Kind.RESULT else Kind.OTHER
    for name in ("text", "content", "value"):  # `value`: the Assistants API's `text.value`
        if name in fields:
            content(reader, fields[name], at / name, kind)
            rest(reader, fields, at, (name,), other)
            return
    rest(reader, fields, at, (), other)


def _table_module() -> ModuleType:
    # The tables import the families, which import this module: bound on first use.
    global _tables  # noqa: PLW0603
    if _tables is None:
        from . import tables  # noqa: PLC0415  (the families import this module)

        _tables = tables
    return _tables
