"""What the fake attacker reads out of a request: each query value and path segment,
decoded the ways exfiltration URLs carry text (percent-encoding, hex, base64, base64url).

    decode_url("/p.png", "d=dXNlcjogaGk")  # [Decoded(where="query d", encoding="base64url", ...)]

A value cut short (a renderer fetching a URL still being streamed) decodes as far as it
goes. Only text that reads as text is reported, so ids and hashes stay undecoded.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import asdict, dataclass
from urllib.parse import unquote

__all__ = ["Decoded", "decode_url", "decode_value"]

# Shorter runs decode to text by chance too often to be worth a line in the log.
_MIN_CHARS = 8
_HEX = re.compile(r"[0-9a-fA-F]+")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+=*")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+=*")


@dataclass(frozen=True)
class Decoded:
    """One piece of text read out of a URL: where it was, how it was encoded, the text."""

    where: str
    encoding: str
    text: str

    def as_json(self) -> dict[str, str]:
        """The fields as a JSON object."""
        return asdict(self)


def decode_url(path: str, query: str) -> list[Decoded]:
    """Every query value and path segment of a request that decodes to text."""
    found = []
    for index, segment in enumerate(path.split("/")):
        found += _decoded(f"path segment {index}", segment)
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        found += _decoded(f"query {unquote(name)[:40]}", value)
    return found


def decode_value(raw: str) -> tuple[str, str] | None:
    """(encoding, text) of one raw (still percent-encoded) value, or None when it is
    plain text or does not decode to text."""
    value = unquote(raw)
    steps = ["percent"] if value != raw else []
    for name, decode in _DECODERS:
        text = decode(value)
        if text is not None:
            return "+".join([*steps, name]), text
    return ("percent", value) if steps and _reads_as_text(value) else None


def _decoded(where: str, raw: str) -> list[Decoded]:
    result = decode_value(raw)
    return [] if result is None else [Decoded(where, *result)]


def _hex(value: str) -> str | None:
    if len(value) < _MIN_CHARS or not _HEX.fullmatch(value):
        return None
    return _text(binascii.unhexlify(value[: len(value) // 2 * 2]))


def _base64(value: str, alphabet: re.Pattern[str], altchars: bytes) -> str | None:
    if len(value) < _MIN_CHARS or not alphabet.fullmatch(value):
        return None
    body = value.rstrip("=")
    body = body[: len(body) - 1] if len(body) % 4 == 1 else body  # a cut-off last character
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), altchars=altchars, validate=True)
    except binascii.Error:
        return None
    return _text(raw)


def _text(raw: bytes) -> str | None:
    # A value cut short can end inside a UTF-8 sequence: drop that tail, not the text.
    text = raw.decode("utf-8", errors="ignore")
    return text if len(text) >= len(raw) - 3 and _reads_as_text(text) else None


def _reads_as_text(text: str) -> bool:
    if len(text) < 4:
        return False
    printable = sum(c.isprintable() or c in "\n\t" for c in text)
    letters = sum(c.isalpha() or c == " " for c in text)
    return printable == len(text) and letters * 2 >= len(text)


_DECODERS = (
    ("hex", _hex),
    ("base64", lambda v: _base64(v, _BASE64, b"+/")),
    ("base64url", lambda v: _base64(v, _BASE64URL, b"-_")),
)
