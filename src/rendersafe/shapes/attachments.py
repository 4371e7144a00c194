"""A file sent in a chat, as the text the model read of it.

    decode_attachment("data:text/plain;base64,aGVsbG8=")        # Attachment("hello", None)
    decode_attachment("JVBERi0xLjQK...", "application/pdf")      # Attachment("", "unread: ...")

Text types (`text/*`, JSON, XML, YAML, CSV...) are decoded, from base64 or
percent-escapes, up to `MAX_ATTACHMENT_BYTES`; images, audio and video are no text and
are skipped; any other type the model may have read (a PDF, an office document) cannot
be read here, and is noted: the judge is stricter for what it did not see (a PDF is
read as far as its text streams show it, and noted all the same). A string of no
stated type is read as text when its bytes are text.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from .pdf import is_pdf, pdf_text

__all__ = ["MAX_ATTACHMENT_BYTES", "Attachment", "decode_attachment", "sniff_base64"]

MAX_ATTACHMENT_BYTES = 1 << 20
# A run of base64 this long that decodes to no text is a file's bytes (an image, a
# signature), not words anyone read; a shorter one (a key, a hash) is read as written.
BINARY_FROM = 4096
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_DATA_URL = re.compile(r"data:([^,;]*)((?:;[^,;]*)*),", re.IGNORECASE)
_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/csv",
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/sql",
        "application/x-sh",
        "application/x-python",
        "application/markdown",
        "application/x-tex",
        "application/rtf",
    }
)
# Bedrock's document formats, and file names' extensions, that are text.
_TEXT_FORMATS = frozenset({"txt", "md", "csv", "html", "htm", "json", "xml", "yaml", "yml"})
_MEDIA = ("image/", "audio/", "video/")
_SNIFF_CHARS = 4096
# A PDF's text is read as far as its streams show it plainly: a font of its own encoding
# shows other bytes. The judge is stricter for what may not have been read.
_PDF_NOTE = "partial: a PDF attachment was read as far as its text streams show it"
# Types that say nothing of what the bytes are: read as text when they are text.
_SNIFFED = frozenset({"", "application/octet-stream", "binary/octet-stream"})


@dataclass(frozen=True, slots=True)
class Attachment:
    """The text read of a file ("" for none), whether it was decoded (from base64 or
    percent-escapes) or is the text as given, and why it was not (all) read."""

    text: str
    note: str | None = None
    decoded: bool = True


def decode_attachment(
    data: str | bytes, media_type: object = None, *, encoded: bool | None = None
) -> Attachment:
    """The text of a file's content `data`: a `data:` URL, base64 (`encoded` True;
    None: base64 if it reads as base64 of text), or the text itself."""
    kind = media_type.strip().lower() if isinstance(media_type, str) else ""
    if isinstance(data, bytes):
        return _of_bytes(data, kind)
    if data[:5].lower() == "data:":
        return _data_url(data, kind)
    if encoded is False or (encoded is None and not sniff_base64(data)):
        return _as_given(data) if _texty(kind) or not kind else _unread(kind)
    raw = _b64(data)
    if raw is None:
        return _as_given(data) if encoded is None else Attachment("", _note(kind, "bad base64"))
    found = _of_bytes(raw, kind, cut=len(data) > _encoded_chars(MAX_ATTACHMENT_BYTES))
    if encoded is None and not found.text and found.note is None and len(data) < BINARY_FROM:
        return _as_given(data)  # base64 of no text, and short: a token, read as written
    return found


def sniff_base64(value: str) -> bool:
    """Could `value` be base64 (or base64url) of a file: one run of its alphabet, with
    capitals, small letters and digits in it (a run of one letter, or hex, is not)?"""
    if len(value) < 16 or _BASE64.fullmatch(value) is None:
        return False
    head = value[:_SNIFF_CHARS]
    return (
        any(c.isupper() for c in head)
        and any(c.islower() for c in head)
        and any(c.isdigit() for c in head)
    )


def _data_url(url: str, given: str) -> Attachment:
    match = _DATA_URL.match(url)
    if match is None:
        return _as_given(url)
    kind = match.group(1).strip().lower() or given
    payload = url[match.end() :]
    if ";base64" in match.group(2).lower():
        raw = _b64(payload)
        if raw is None:
            return Attachment("", _note(kind, "bad base64"))
        cut = len(payload) > _encoded_chars(MAX_ATTACHMENT_BYTES)
        return _of_bytes(raw, kind, cut=cut)
    return _of_bytes(unquote_to_bytes(payload[: 3 * MAX_ATTACHMENT_BYTES]), kind)


def _of_bytes(raw: bytes, kind: str, *, cut: bool = False) -> Attachment:
    if kind.startswith(_MEDIA):
        return Attachment("")  # pictures and sound: no text to read
    if len(raw) > MAX_ATTACHMENT_BYTES:
        raw, cut = raw[:MAX_ATTACHMENT_BYTES], True
    note = f"cut: an attachment over {MAX_ATTACHMENT_BYTES} bytes was read in part" if cut else None
    if _texty(kind):
        return Attachment(raw.decode("utf-8", "replace"), note)
    if kind == "application/pdf" or (kind in _SNIFFED and is_pdf(raw)):
        return Attachment(pdf_text(raw), _PDF_NOTE)
    if kind not in _SNIFFED:
        return _unread(kind)  # a PDF, an office document: the model read what we cannot
    text = _text_of(raw)
    if text is not None:
        return Attachment(text, note)
    return _unread(kind) if kind else Attachment("")  # of no type: an image's bytes


def _as_given(text: str) -> Attachment:
    return Attachment(text, None, decoded=False)


def _texty(kind: str) -> bool:
    main = kind.split(";", 1)[0].strip()
    return (
        main.startswith("text/")
        or main in _TEXT_TYPES
        or main.endswith(("+json", "+xml"))
        or main in _TEXT_FORMATS
    )


def _text_of(raw: bytes) -> str | None:
    """`raw` as text if it is UTF-8 of mostly printable characters."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        try:
            text = raw[: len(raw) - 3].decode("utf-8") if len(raw) > 3 else ""
        except UnicodeDecodeError:
            return None
        if not text:
            return None
    sample = text[:_SNIFF_CHARS]
    printable = sum(ch.isprintable() or ch in "\t\n\r" for ch in sample)
    return text if sample and printable >= 0.9 * len(sample) else None


def _b64(data: str) -> bytes | None:
    data = data[: _encoded_chars(MAX_ATTACHMENT_BYTES)].strip()
    data = data.replace("-", "+").replace("_", "/")
    data += "=" * (-len(data) % 4)
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None


def _encoded_chars(size: int) -> int:
    return (size + 2) // 3 * 4


def _unread(kind: str) -> Attachment:
    return Attachment("", _note(kind, "not text"))


def _note(kind: str, why: str) -> str:
    shown = kind if re.fullmatch(r"[a-z0-9.+/-]{1,60}", kind or "") else "unknown"
    return f"unread: an attachment of type {shown} ({why})"
