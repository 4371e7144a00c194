"""Parts several families name alike: `text`, `image`, `file`, `reasoning`.

Each reader knows every family's fields for its part (OpenAI's `file.file_data`, the
AI SDK's `url` and `mediaType`, LangChain's `base64` and `mime_type`), so one name is
read one way.
"""

from __future__ import annotations

from .content import content, rest
from .record import MODEL, Kind
from .walk import At, Fields, Reader, fields_of

__all__ = ["file_part", "image_part", "media_type", "reasoning_part", "text_part"]

_MEDIA_KEYS = ("mediaType", "media_type", "mime_type", "mimeType", "format")
# Where a file's content, or its address, is: base64, a data: URL, or a URL.
_DATA_KEYS = ("file_data", "data", "base64", "bytes", "url", "file_url", "fileUri", "uri")


def media_type(fields: Fields) -> object:
    """The media type a file part states, under any family's name for it."""
    return next((fields[key] for key in _MEDIA_KEYS if key in fields), None)


def text_part(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """`{"type": "text", "text": ...}`: the message's text (its citations and
    annotations are other strings of it)."""
    content(reader, fields.get("text"), at / "text", kind)
    rest(reader, fields, at, ("type", "text"))


def reasoning_part(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """The model's shown thinking: the AI SDK's `text`, LangChain's `reasoning`,
    a Responses item's `summary` and `content`."""
    mine = at.by(MODEL)
    done = ["type"]
    for key in ("text", "reasoning", "summary", "content", "thinking"):
        if key in fields:
            content(reader, fields[key], mine / key, Kind.REASONING)
            done.append(key)
    rest(reader, fields, mine, done)


def image_part(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """An image: its address is kept (a URL seen), its bytes are no text."""
    file_part(reader, fields, at, Kind.FILE)


def file_part(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """A file: OpenAI's `file` object, the AI SDK's and LangChain's flat fields,
    Anthropic's `source`. Its text is read (`Reader.attachment`); a URL is a URL."""
    inner = fields_of(fields.get("file")) or fields_of(fields.get("source"))
    holder, where = (
        (inner, at / ("file" if "file" in fields else "source")) if inner else (fields, at)
    )
    media = media_type(holder) or media_type(fields)
    done = ["type", "file", "source"] if inner else ["type"]
    for key in _DATA_KEYS:
        value = holder.get(key)
        if isinstance(value, str | bytes | bytearray):
            _file_data(reader, value, media, where / key)
            if holder is fields:
                done.append(key)
    if inner:
        rest(reader, inner, where, (*_DATA_KEYS, "type"))
    rest(reader, fields, at, done)


def _file_data(reader: Reader, value: str | bytes | bytearray, media: object, at: At) -> None:
    if isinstance(value, str) and value[:4].lower() in ("http", "gs:/", "s3:/", "file"):
        reader.text(value, at, Kind.FILE)
    else:
        reader.attachment(value, media, at)
