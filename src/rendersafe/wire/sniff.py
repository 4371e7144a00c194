"""`SniffCodec`: a body whose content type names no format a codec reads, read by what
its first bytes are.

An upstream that labels its event stream `application/octet-stream` (or sends no
useful type) still has it read by an SDK that expects one. On a path that only ever
carries chat replies such a body is not passed through: its start says what it is.

* a field and a colon (`data:`, `event:`, `id:`, `retry:`) or a comment (`:`): SSE;
* `{` or `[`: NDJSON when a first line that is one JSON value is followed by more,
  else one JSON body;
* other UTF-8 text: text (which itself refuses framed text);
* anything else: refused.

Nothing is sent until it has decided (`buffered` while it sniffs).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import FormatError
from .text_streams import ENDS

if TYPE_CHECKING:
    from . import Codec

__all__ = ["SNIFF_BYTES", "SniffCodec"]

# Enough to see any stream's first line; a JSON body's first line may be longer.
SNIFF_BYTES = 64 * 1024
_SSE = re.compile(rb"(?:data|event|id|retry):|:")
_FIELD_PREFIXES = (b"data", b"event", b"id", b"retry")
_LEADING = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"


class SniffCodec:
    """Holds the first bytes until they say what the body is, then reads it with the
    codec `make(format)` gives (`sse`, `ndjson`, `json` or `text`)."""

    def __init__(self, make: Callable[[str], Codec]) -> None:
        self._make = make
        self._head = b""
        self._codec: Codec | None = None
        self.format: str | None = None  # what it decided the body is
        self.buffered = True  # nothing is sent while it sniffs

    def feed(self, data: bytes) -> bytes:
        """Take body bytes; return what the codec settled."""
        if self._codec is not None:
            return self._codec.feed(data)
        self._head += data
        fmt = _decide(self._head, final=False)
        return b"" if fmt is None else self._start(fmt)

    def close(self) -> bytes:
        """The body ended: the rest."""
        codec, out = self._codec, b""
        if codec is None:
            out = self._start(_decide(self._head, final=True) or "text")
            codec = self._codec
        return out if codec is None else out + codec.close()

    def token(self, data: bytes) -> bytes | None:
        """The codec's fast path, once it is known."""
        return None if self._codec is None else self._codec.token(data)

    def reach(self, data: bytes, *, final: bool) -> tuple[int, int]:
        """While it sniffs, everything held may be settled at once."""
        if self._codec is None:
            return len(self._head) + len(data), ENDS
        return self._codec.reach(data, final=final)

    def error_frame(self, message: str) -> bytes:
        """The codec's error frame (nothing was sent before it was known)."""
        return b"" if self._codec is None else self._codec.error_frame(message)

    def _start(self, fmt: str) -> bytes:
        codec = self._codec = self._make(fmt)
        self.format, self.buffered = fmt, codec.buffered
        head, self._head = self._head, b""
        return codec.feed(head)


def _decide(head: bytes, *, final: bool) -> str | None:
    """The format a body starting with `head` is in; None: more bytes are needed."""
    text = head.removeprefix(_BOM).lstrip(_LEADING)
    if not text:
        return "text" if final else None
    if _SSE.match(text):
        return "sse"
    if not final and len(text) < 8 and b"\n" not in text and _may_be_field(text):
        return None
    if text[:1] in b"{[":
        return _json_kind(text, final=final or len(head) >= SNIFF_BYTES)
    if _is_utf8(head, final=final):
        return "text"
    raise FormatError("a body that is not SSE, NDJSON, JSON or UTF-8 text cannot be sanitised")


def _json_kind(text: bytes, *, final: bool) -> str | None:
    """`ndjson` when a first line of one JSON value has more after it, `json` when it
    does not (or is not one value); None while that cannot be told yet."""
    line, newline, rest = text.partition(b"\n")
    if not newline:
        return "json" if final else None
    try:
        json.loads(line)
    except ValueError:
        return "json"  # a value over many lines
    if rest.strip(_LEADING):
        return "ndjson"
    return "json" if final else None


def _may_be_field(text: bytes) -> bool:
    return any(prefix.startswith(text) or text.startswith(prefix) for prefix in _FIELD_PREFIXES)


def _is_utf8(head: bytes, *, final: bool) -> bool:
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(head, final=final)
    except UnicodeDecodeError:
        return False
    return True
