"""Content codings: gzip and deflate bodies are inflated; any other is refused."""

from __future__ import annotations

import zlib

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


def inflater_for(coding: str | None) -> Inflater | None:
    """None for an identity body; an `Inflater` for gzip and deflate; else refuse."""
    name = (coding or "identity").strip().lower()
    if name in ("identity", ""):
        return None
    if name in ("gzip", "x-gzip", "deflate"):
        return Inflater(name)
    raise FormatError(
        f"content-encoding {safe_name(name)} cannot be decoded (gzip and deflate can)"
    )
