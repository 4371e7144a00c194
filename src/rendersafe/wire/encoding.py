"""Content codings: gzip and deflate bodies are inflated; any other is refused.

A body coded twice (`gzip, gzip`, or two `Content-Encoding` headers) is refused on
purpose: a client undoes every coding it is told of, so reading only one of them would
judge bytes no client renders.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

from ..errors import FormatError
from .error_text import safe_name

__all__ = ["Inflater", "inflater_for"]

_GZIP_WBITS = 16 + zlib.MAX_WBITS


class Inflater:
    """Inflates a gzip or deflate body fed in pieces."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._inflate: zlib._Decompress | None = None
        self._head = b""

    def feed(self, data: bytes) -> bytes:
        """Inflate the next piece of the body."""
        if self._inflate is None:
            # "deflate" is meant as zlib-wrapped, but raw deflate is common: tell by
            # the first two bytes (a zlib header is a multiple of 31).
            self._head += data
            if len(self._head) < 2:
                return b""
            data, self._head = self._head, b""
            self._inflate = zlib.decompressobj(self._wbits(data))
        try:
            return self._inflate.decompress(data)
        except zlib.error as exc:
            raise FormatError(f"the {self.coding} body does not inflate: {exc}") from exc

    def close(self) -> bytes:
        """The rest; a body cut short is an error."""
        if self._inflate is None:
            if self._head:
                raise FormatError(f"the {self.coding} body is cut short")
            return b""
        rest = self._inflate.flush()
        if not self._inflate.eof:
            raise FormatError(f"the {self.coding} body is cut short")
        if self._inflate.unused_data:
            raise FormatError(f"bytes after the end of the {self.coding} body")
        return rest

    def _wbits(self, head: bytes) -> int:
        if self.coding in ("gzip", "x-gzip"):
            return _GZIP_WBITS
        zlib_header = (head[0] & 0x0F) == 8 and (head[0] << 8 | head[1]) % 31 == 0
        return zlib.MAX_WBITS if zlib_header else -zlib.MAX_WBITS


def inflater_for(coding: str | Iterable[str] | None) -> Inflater | None:
    """None for an identity body; an `Inflater` for gzip and deflate; else refuse.
    `coding` is one `Content-Encoding` value or every one the response has."""
    values = [coding] if coding is None or isinstance(coding, str) else list(coding)
    names = [
        name.strip().lower()
        for value in values
        for name in (value or "").split(",")
        if name.strip().lower() not in ("identity", "")
    ]
    if len(names) > 1:
        shown = ", ".join(safe_name(name) for name in names[:4])
        raise FormatError(f"a body coded more than once ({shown}) is not read; send one coding")
    if not names:
        return None
    if names[0] in ("gzip", "x-gzip", "deflate"):
        return Inflater(names[0])
    raise FormatError(
        f"content-encoding {safe_name(names[0])} cannot be decoded (gzip and deflate can)"
    )
