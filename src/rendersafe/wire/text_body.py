"""`TextCodec`: a `text/markdown` or `text/plain` body, streamed or not, as one reply.

Chat clients read a body with `fetch`, which decodes UTF-8 whatever the charset says:
only UTF-8 (and ASCII) bodies are read. A body whose first line is SSE, JSON or the
AI SDK's v4 data stream is framed text that a client unpacks before it renders it, so
its content type is wrong: it is refused rather than judged in its wrappings.
"""

from __future__ import annotations

import codecs
import re

from ..errors import FormatError
from .error_text import safe_name
from .text_streams import ENDS, Texts

__all__ = ["TextCodec"]

_UTF8 = frozenset({"utf-8", "utf8", "ascii", "us-ascii"})
# What framed text starts with: an SSE field, a JSON value, an AI SDK v4 part (`0:"`).
_FRAMED = re.compile(
    r"""\A\ufeff?[ \t]*(?:(?:data|event|id|retry)[ \t]*:|:[ \t\r\n]|:\Z"""
    r"""|\{|\[[ \t\r\n]*[\[{"\d\]-]|[0-9a-z]:["\[{])"""
)
_SNIFF = 256  # bytes enough to see the start of the first line


class TextCodec:
    """Decodes UTF-8 incrementally, sanitises the body as one stream."""

    buffered = False

    def __init__(self, texts: Texts, charset: str = "utf-8") -> None:
        if charset.strip().lower() not in _UTF8:
            raise FormatError(
                f"charset {safe_name(charset)}: clients read UTF-8, so only UTF-8 is read"
            )
        self.texts = texts
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._head: str | None = ""  # None once the first line is known not to be framing

    def feed(self, data: bytes) -> bytes:
        """Take body bytes; return what is safe to send now."""
        return self._sanitise(self._decoder.decode(data), final=False)

    def close(self) -> bytes:
        """The body ended: the rest."""
        return self._sanitise(self._decoder.decode(b"", final=True), final=True)

    def token(self, data: bytes) -> bytes | None:
        """No message of this format is taken as a usual token: always None."""
        return None

    def reach(self, data: bytes, *, final: bool) -> tuple[int, int]:
        """At most how many characters feeding `data` hands the text (with the head
        held to sniff), and how many line ends (`ENDS` at the end)."""
        head = self._head or ""
        ends = ENDS if final else data.count(b"\n") + head.count("\n")
        return len(data) + len(head), ends

    def error_frame(self, message: str) -> bytes:
        """Plain text has no error frame: the body just ends."""
        return b""

    def _sanitise(self, text: str, *, final: bool) -> bytes:
        if self._head is not None:
            self._head += text
            if not final and "\n" not in self._head and len(self._head) < _SNIFF:
                return b""
            text, self._head = self._head, None
            if _FRAMED.match(text):
                raise FormatError(
                    "the text body is framed (SSE, JSON or a data stream): "
                    "send it with its content type, or pin a format"
                )
        out = self.texts.feed(0, text)
        if final:
            out += self.texts.close(0)
        return out.encode()
