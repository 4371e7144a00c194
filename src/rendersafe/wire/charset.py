"""Bodies in another charset: decoded as labelled, sent on as UTF-8, relabelled.

Clients disagree on a label: `fetch` and `EventSource` read UTF-8 whatever it says,
Python's httpx and requests read what it says. A body judged one way and rendered
another is not sanitised, so a reply labelled other than UTF-8 (or ASCII) is decoded as
labelled and re-encoded as UTF-8, its `charset` changed to match: every client then
reads the text rendersafe judged. A label Python does not know is refused, and so is
a body read as UTF-8 that starts as UTF-16 or UTF-32 does (a byte order mark, NUL
bytes: `check_utf8_head`), which a client that sniffs would read another way.

    transcoder = transcoder_for(charset_of(content_type))   # None for UTF-8
    utf8 = transcoder.feed(chunk) ... + transcoder.close()
"""

from __future__ import annotations

import codecs

from ..errors import FormatError
from .error_text import safe_name

__all__ = [
    "HEAD_BYTES",
    "UTF8_LABELS",
    "Transcoder",
    "check_utf8_head",
    "relabelled",
    "transcoder_for",
]

# Read as UTF-8 and passed as they are: ASCII is UTF-8's first half, and a byte past it
# reads as U+FFFD to a client that decodes ASCII, never as markup.
UTF8_LABELS = frozenset({"utf-8", "utf8", "ascii", "us-ascii", "unicode-1-1-utf-8"})
# How much of a UTF-8 body's start `check_utf8_head` reads: UTF-16 text has a NUL in
# every other byte of its ASCII, so a few dozen bytes tell.
HEAD_BYTES = 64
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


class Transcoder:
    """Decodes one charset incrementally and encodes UTF-8."""

    def __init__(self, charset: str) -> None:
        self.charset = charset
        self._decoder = codecs.getincrementaldecoder(charset)(errors="replace")

    def feed(self, data: bytes) -> bytes:
        """The UTF-8 of the next piece of the body."""
        return self._decoder.decode(data).encode("utf-8", "replace")

    def close(self) -> bytes:
        """The rest (a sequence cut at the end reads as U+FFFD)."""
        return self._decoder.decode(b"", final=True).encode("utf-8", "replace")


def transcoder_for(charset: str | None) -> Transcoder | None:
    """None for a UTF-8 (or ASCII, or unlabelled) body; a `Transcoder` for a charset
    Python decodes; `FormatError` for any other label."""
    name = (charset or "utf-8").strip().strip("\"'").lower()
    if name in UTF8_LABELS:
        return None
    try:
        found = codecs.lookup(name).name
        b"a".decode(found, errors="replace")  # LookupError for bytes codecs (base64, rot13)
    except LookupError:
        raise FormatError(f"charset {safe_name(name)} cannot be decoded") from None
    if found in ("utf-8", "utf-8-sig"):
        return None  # another name of UTF-8
    return Transcoder(found)


def check_utf8_head(head: bytes, *, first: bool) -> None:
    """`FormatError` if `head` (the `first` bytes of a body read as UTF-8, or more of its
    first `HEAD_BYTES`) is UTF-16 or UTF-32: a byte order mark of either, or a NUL."""
    if (first and head.startswith(_WIDE_BOMS)) or b"\x00" in head:
        raise FormatError(
            "the body reads as UTF-16 or UTF-32, not as the UTF-8 it is read as: label its charset"
        )


def relabelled(content_type: str) -> str:
    """`content_type` with its `charset` parameter set to utf-8 (and no `charset*`,
    which Python's `email` would read first)."""
    main, *params = content_type.split(";")
    kept = [p for p in params if p.partition("=")[0].strip().lower() not in ("charset", "charset*")]
    return ";".join([main, *kept, " charset=utf-8"])
