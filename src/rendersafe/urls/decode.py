"""Does a run of characters decode to text? Base64, base64url, base32 and hex.

A run counts only when it decodes to *text* (UTF-8 or UTF-16, mostly printable)
that is not just another identifier: documentation IDs (commit SHAs, UUIDs, Google
Docs IDs) decode to random bytes, an exfiltrated chat decodes to prose.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Reason

if TYPE_CHECKING:
    from ..policy import Thresholds

__all__ = ["HEX", "encoded_runs", "is_text", "unbase32", "unbase64", "unhex"]

_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}={0,2}")
HEX = re.compile(r"[0-9A-Fa-f]+")
_BASE32 = re.compile(r"[A-Za-z2-7]+=*")
# Hex bytes joined by a separator: `54-68-65-20` or `54:68:65`.
_SEPARATED_HEX = re.compile(r"(?:[0-9A-Fa-f]{2}[-_:. ]){7,}[0-9A-Fa-f]{2}")
# What some sites base64-encode on purpose: a GUID (Teams), a short random password
# (Zoom's `pwd=`). An identifier is not a leaked conversation.
_IDENTIFIER = re.compile(r"[0-9A-Fa-f-]+|[A-Za-z0-9+/_-]{1,23}={0,2}")


def encoded_runs(text: str, th: Thresholds) -> set[Reason]:
    """Reasons for every run in `text` that decodes to text."""
    reasons: set[Reason] = set()
    for run in _runs(text, th):
        if _hex_text(run, th):
            reasons.add(Reason.ENCODED_HEX)
        elif _base64_text(run, th) or _base32_text(run, th):
            reasons.add(Reason.ENCODED_BASE64)
    for match in _SEPARATED_HEX.finditer(text):
        if is_text(unhex(re.sub(r"[-_:. ]", "", match.group())), th):
            reasons.add(Reason.ENCODED_HEX)
    return reasons


def _runs(text: str, th: Thresholds) -> Iterator[str]:
    for match in _B64_RUN.finditer(text):
        if len(match.group()) >= th.min_encoded_chars:
            yield match.group()


def _hex_text(run: str, th: Thresholds) -> bool:
    """Is `run`, or a `-`/`_`-separated part of it, hex that decodes to text?"""
    parts = [run] if HEX.fullmatch(run) else re.split(r"[-_]", run)
    return any(HEX.fullmatch(p) and is_text(unhex(p), th) for p in parts if p)


def _base64_text(run: str, th: Thresholds) -> bool:
    """Does `run` decode to text at some alignment?

    `-` and `_` are base64url characters but also join the words of an ID
    (`meeting_<base64 GUID>`): when the run has such parts, a long part must decode
    to text on its own.
    """
    # Base64 of text is about a third upper case: a run of (mostly) one case is words.
    upper = sum(map(str.isupper, run))
    if upper < len(run) // 8 or len(run) - upper < len(run) // 8:
        return False
    if not any(is_text(unbase64(run[i:]), th) for i in range(4)):
        return False
    parts = [p for p in re.split(r"[-_]", run) if len(p) >= th.min_encoded_chars]
    if ("-" not in run and "_" not in run) or not parts:
        return True
    return any(is_text(unbase64(p[i:]), th) for p in parts for i in range(4))


def _base32_text(run: str, th: Thresholds) -> bool:
    # Base32 of text has digits 2-7 all through it; a run of plain words has none
    # and decodes to printable bytes by chance too often.
    if not _BASE32.fullmatch(run) or sum(c in "234567" for c in run) < len(run) // 16 + 1:
        return False
    return any(is_text(unbase32(run[i:]), th) for i in range(8))


def unhex(run: str) -> bytes:
    """Decode hex, ignoring an odd last digit."""
    try:
        return binascii.unhexlify(run[: len(run) // 2 * 2])
    except binascii.Error:
        return b""


def unbase64(run: str) -> bytes:
    """Decode standard or URL-safe base64, forgiving missing padding and a ragged end."""
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    body = body[: len(body) // 4 * 4 + (len(body) % 4 if len(body) % 4 != 1 else 0)]
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return b""


def unbase32(run: str) -> bytes:
    """Decode base32 of either case, forgiving missing padding and a ragged end."""
    body = run.upper().rstrip("=")
    body = body[: len(body) // 8 * 8] if len(body) % 8 in (1, 3, 6) else body
    try:
        return base64.b32decode(body + "=" * (-len(body) % 8))
    except (binascii.Error, ValueError):
        return b""


def is_text(data: bytes, th: Thresholds) -> bool:
    """Did a run decode to text (not random bytes, and not just another identifier)?"""
    if len(data) < th.min_decoded_bytes:
        return False
    text = _decode(data)
    if text is None:
        printable = sum(1 for b in data if 0x20 <= b < 0x7F or b in (9, 10, 13))
        return printable / len(data) >= th.printable_ratio
    printable = sum(1 for c in text if c.isprintable() or c in "\t\n\r")
    return printable / len(text) >= th.printable_ratio and not _IDENTIFIER.fullmatch(text)


def _decode(data: bytes) -> str | None:
    if data[1::2].count(0) > len(data) // 4:  # UTF-16: every other byte is zero
        try:
            return data.decode("utf-16-le" if data[1] == 0 else "utf-16-be")
        except UnicodeDecodeError:
            return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
