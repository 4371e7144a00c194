"""`TextCodec`: a `text/markdown` or `text/plain` body, streamed or not, as one reply."""

from __future__ import annotations

import codecs

from ..errors import FormatError
from .texts import Texts

__all__ = ["TextCodec"]


class TextCodec:
    """Decodes the body incrementally in its charset, sanitises it as one stream."""

    buffered = False

    def __init__(self, texts: Texts, charset: str = "utf-8") -> None:
        try:
            info = codecs.lookup(charset)
        except LookupError as exc:
            raise FormatError(f"unknown charset {charset!r}") from exc
        self.texts = texts
        self._decoder = info.incrementaldecoder(errors="replace")
        self._encoder = info.incrementalencoder(errors="strict")

    def feed(self, data: bytes) -> bytes:
        """Take body bytes; return what is safe to send now."""
        return self._encode(self.texts.feed(0, self._decoder.decode(data)))

    def close(self) -> bytes:
        """The body ended: the rest."""
        tail = self.texts.feed(0, self._decoder.decode(b"", final=True)) + self.texts.close(0)
        return self._encode(tail, final=True)

    def error_frame(self, message: str) -> bytes:
        """Plain text has no error frame: the body just ends."""
        return b""

    def _encode(self, text: str, *, final: bool = False) -> bytes:
        try:
            return self._encoder.encode(text, final)
        except UnicodeEncodeError as exc:
            raise FormatError(f"the sanitised text does not fit the charset: {exc}") from exc
