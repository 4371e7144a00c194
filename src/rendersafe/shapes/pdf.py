"""The text a PDF shows, as far as its content streams say it plainly.

    pdf_text(data)       # "Quarterly report ..." (its `Tj` and `TJ` strings), or ""

Content streams are inflated where they are Flate-compressed (zlib, bounded), and the
string operands of the text operators are read: `(Hello) Tj`, `[(Hel) -20 (lo)] TJ`.
A font with its own encoding (CID fonts, subsets) shows other bytes than its text, so
what is read here is only part of what the model may have read: the caller notes it.
"""

from __future__ import annotations

import re
import zlib

__all__ = ["is_pdf", "pdf_text"]

_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.DOTALL)
# A string literal (no nested parentheses: rare in text), then its operator, or an array.
_SHOWN = re.compile(rb"\(((?:[^()\\]|\\.)*)\)\s*(?:Tj|'|\")|\[((?:[^\]\\]|\\.)*)\]\s*TJ", re.DOTALL)
_LITERAL = re.compile(rb"\(((?:[^()\\]|\\.)*)\)", re.DOTALL)
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}
_ESCAPE = re.compile(rb"\\([0-7]{1,3}|.)", re.DOTALL)


def is_pdf(raw: bytes) -> bool:
    """Does `raw` start as a PDF file?"""
    return raw[:1024].lstrip().startswith(b"%PDF-")


def pdf_text(raw: bytes, limit: int = 1 << 20) -> str:
    """The strings the PDF's text operators show, a line each (at most `limit` bytes of
    inflated streams are read)."""
    lines: list[str] = []
    budget = limit
    for match in _STREAM.finditer(raw):
        stream = match.group(1)
        if budget <= 0:
            break
        inflated = _inflated(stream, budget)
        budget -= len(inflated)
        lines.extend(_shown(inflated))
    return "\n".join(line for line in lines if line.strip())


def _inflated(stream: bytes, budget: int) -> bytes:
    try:
        return zlib.decompressobj().decompress(stream, budget)
    except zlib.error:
        return stream[:budget]  # not compressed (or not Flate): read as it is


def _shown(content: bytes) -> list[str]:
    found = []
    for match in _SHOWN.finditer(content):
        single, array = match.group(1), match.group(2)
        if single is not None:
            found.append(_decoded(single))
        else:
            found.append("".join(_decoded(m.group(1)) for m in _LITERAL.finditer(array)))
    return found


def _decoded(literal: bytes) -> str:
    def escape(match: re.Match[bytes]) -> bytes:
        code = match.group(1)
        if code[:1].isdigit():
            return bytes([int(code, 8) & 0xFF])
        return _ESCAPES.get(code, code if code != b"\n" else b"")

    return _ESCAPE.sub(escape, literal).decode("latin-1")
