"""Does a run of characters decode to text? Base64, base64url, base32 and hex.

A run counts when it decodes to *text* (UTF-8 or UTF-16, mostly printable), of
`min_decoded_bytes` or more: documentation IDs (commit SHAs, UUIDs, Google Docs IDs)
decode to random bytes; an exfiltrated chat, a key or an identifier someone encoded
decodes to text. A run split into pieces by `-`, `.`, `_`, `~`, `:` or `/` is also
judged joined up again.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Reason

if TYPE_CHECKING:
    from ..policy import Thresholds

__all__ = ["HEX", "encoded_runs", "is_text", "min_run_chars", "unbase32", "unbase64", "unhex"]

_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}={0,2}")
HEX = re.compile(r"[0-9A-Fa-f]+")
_BASE32 = re.compile(r"[A-Za-z2-7]+=*")
# Hex bytes joined by a separator: `54-68-65-20` or `54:68:65`.
_SEPARATED_HEX = re.compile(r"(?:[0-9A-Fa-f]{2}[-_:. ]){7,}[0-9A-Fa-f]{2}")
# Characters that split a run into pieces: none is in the hex or base32 alphabets, but
# `/` is in base64's and `-` and `_` in base64url's, so a run is read joined without
# each subset of those three (and always without `.`, `~` and `:`): `_joins`.
_SEPARATORS = re.compile(r"[-._~:/]")
_NOT_IN_ANY_ALPHABET = re.compile(r"[.~:]")
# The first character of each group holds a byte's top bits: for printable ASCII, I-Z
# or a-f in base64 (a group is 4 characters for 3 bytes), E-P in base32 (8 for 5).
_ASCII_LEADS = {
    4: str.maketrans("", "", "IJKLMNOPQRSTUVWXYZabcdef"),
    8: str.maketrans("", "", "EFGHIJKLMNOPefghijklmnop"),
}
_BASE32_DIGITS = str.maketrans("", "", "234567")
# What decoded text that must read as text (base32 with few digits, base64 of one
# case) may look like: a key or an id (letters and digits, or letters of both cases),
# or mostly these characters.
_TOKEN = re.compile(r"(?=.*[0-9])(?=.*[A-Za-z])[A-Za-z0-9_-]+|(?=.*[a-z])(?=.*[A-Z])[A-Za-z_-]+")
_WORDY = re.compile(r"[A-Za-z0-9 .,:;'!?()\"-]")


def encoded_runs(text: str, th: Thresholds) -> set[Reason]:
    """Reasons for every run in `text` that decodes to text, whole or joined from pieces."""
    reasons = _run_reasons(text, th)
    for match in _SEPARATED_HEX.finditer(text):
        if is_text(unhex(re.sub(r"[-_:. ]", "", match.group())), th):
            reasons.add(Reason.ENCODED_HEX)
    if reasons or not _SEPARATORS.search(text):
        return reasons
    if len(_SEPARATORS.sub("", text)) < min_run_chars(th):
        return reasons  # too little to hold a run once joined
    seen: set[str] = set()
    for joined in (*_joins(text), *_regular_joins(text)):
        if reasons := _run_reasons(joined, th, joined=True, seen=seen):
            break
    return reasons


def _joins(text: str) -> Iterator[str]:
    """`text` joined without `.`, `~` and `:` and each subset of the `-`, `_` and `/` in it."""
    present = [c for c in "-_/" if c in text]
    base = _NOT_IN_ANY_ALPHABET.sub("", text)
    for mask in range((1 << len(present)) - 1, -1, -1):
        joined = base
        for i, char in enumerate(present):
            if mask >> i & 1:
                joined = joined.replace(char, "")
        if joined != text:
            yield joined


def _regular_joins(text: str) -> Iterator[str]:
    """`text` without the separators that cut it into pieces of one length: a separator
    that is also in the alphabet (`_` in base64url) is then told from the data."""
    for match in list(_SEPARATORS.finditer(text))[:2]:
        size = match.start()
        cuts = text[size :: size + 1]
        if size >= 4 and len(cuts) > 1 and cuts == match.group() * len(cuts):
            yield "".join(text[i : i + size] for i in range(0, len(text), size + 1))


def _run_reasons(
    text: str, th: Thresholds, *, joined: bool = False, seen: set[str] | None = None
) -> set[Reason]:
    """Reasons for the runs of `text`; the runs in `seen` are skipped, then added to it."""
    reasons: set[Reason] = set()
    for run in _runs(text, th):
        if seen is not None:
            if run in seen:
                continue
            seen.add(run)
        if _hex_text(run, th):
            reasons.add(Reason.ENCODED_HEX)
        elif _base64_text(run, th, joined=joined) or _base32_text(run, th):
            reasons.add(Reason.ENCODED_BASE64)
    return reasons


def min_run_chars(th: Thresholds) -> int:
    """The shortest run worth decoding: `min_encoded_chars`, or fewer when that many
    base64 characters already hold `min_decoded_bytes` (16 for 12)."""
    return min(th.min_encoded_chars, -(-th.min_decoded_bytes * 4 // 3))


def _runs(text: str, th: Thresholds) -> Iterator[str]:
    shortest = min_run_chars(th)
    for match in _B64_RUN.finditer(text):
        if len(match.group()) >= shortest:
            yield match.group()


def _hex_text(run: str, th: Thresholds) -> bool:
    """Is `run`, or a `-`/`_`-separated part of it, hex that decodes to text?"""
    parts = [run] if HEX.fullmatch(run) else re.split(r"[-_]", run)
    return any(HEX.fullmatch(p) and is_text(unhex(p), th) for p in parts if p)


def _base64_text(run: str, th: Thresholds, *, joined: bool = False) -> bool:
    """Does `run` decode to text at some alignment?

    `-` and `_` are base64url characters but also join the words of a slug: when the
    run has such parts, a long part must decode to text on its own (the pieces are
    judged joined by `encoded_runs`, `joined` here).
    """
    # Base64 of text is about a third upper case: a run of (mostly) one case is words,
    # or a number's base64 (`MTIzNDU2`), which must then read as text once decoded.
    if run.islower():
        return False  # base64 of any text has upper-case letters all through it
    least = len(run) // 8
    mixed = sum(map(str.isupper, run)) >= least and sum(map(str.islower, run)) >= least
    if not any(_text(unbase64(run[i:]), th, strict=not mixed) for i in _aligned(run, 4, mixed)):
        return False
    parts = [p for p in re.split(r"[-_]", run) if len(p) >= min_run_chars(th)]
    if joined or ("-" not in run and "_" not in run) or not parts:
        return True
    return any(_text(unbase64(p[i:]), th, strict=not mixed) for p in parts for i in range(4))


def _text(data: bytes, th: Thresholds, *, strict: bool) -> bool:
    return is_text(data, th) and (not strict or _wordy(data))


def _base32_text(run: str, th: Thresholds) -> bool:
    """Does `run` decode to text as base32? Base32 of text has digits 2-7 all through it;
    with fewer, only text that reads as text counts (plain words decode to printable
    bytes by chance)."""
    if not _BASE32.fullmatch(run):
        return False
    # A number at the end of a word run is not digits "all through" it.
    body = run.rstrip("234567=") or run
    digits = len(body) - len(body.translate(_BASE32_DIGITS)) >= len(run) // 16 + 1
    return any(_text(unbase32(run[i:]), th, strict=not digits) for i in _aligned(run, 8, digits))


def _aligned(run: str, group: int, loose: bool) -> Iterator[int]:
    """The alignments to decode `run` at; where only written text counts (`loose` False),
    the ones where the run could be printable ASCII (most alignments of a word are not)."""
    for i in range(group):
        leads = run[i::group]
        if loose or len(leads) - len(leads.translate(_ASCII_LEADS[group])) >= 0.8 * len(leads):
            yield i


def _wordy(data: bytes) -> bool:
    """Does decoded `data` read as written text or a token: no control characters, and
    letters and digits only, or mostly letters, digits, spaces and punctuation with either
    mostly digits (a number) or letters with vowels among them?"""
    text = _decode(data, 1)
    if not text or any(unicodedata.category(c) == "Cc" and c not in "\t\n\r" for c in text):
        return False
    if _TOKEN.fullmatch(text):
        return True  # a key or an id: random bytes are never all letters and digits
    if len(_WORDY.findall(text)) < 0.85 * len(text):
        return False
    letters = [c for c in text if c.isalpha()]
    digits = sum(c.isdigit() for c in text)
    vowels = sum(c in "aeiouyAEIOUY" for c in letters)
    if digits >= 0.5 * len(text):
        return True
    return len(letters) + digits >= 0.5 * len(text) and vowels >= 0.2 * len(letters) > 0


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
    """Did a run decode to text (not random bytes)?"""
    if len(data) < th.min_decoded_bytes:
        return False
    text = _decode(data, th.min_decoded_bytes)
    if text is None:
        return False
    printable = sum(1 for c in text if c.isprintable() or c in "\t\n\r")
    return printable / len(text) >= th.printable_ratio and _one_script(text)


def _one_script(text: str) -> bool:
    """Is the text outside ASCII in one script? Random bytes that happen to be UTF-8 mix
    Greek, Hebrew, Arabic and CJK in a dozen characters; text does not, and text that is
    mostly ASCII has Latin letters and punctuation beside it."""
    scripts = Counter(_script(c) for c in text if not c.isascii())
    if not scripts:
        return True
    if scripts.total() * 2 <= len(text):
        return scripts.keys() <= {"LATIN", "SYMBOL"}
    return scripts.most_common(1)[0][1] >= 0.8 * scripts.total()


def _script(char: str) -> str:
    # The first word of a character's name is its script for letters (LATIN, CYRILLIC,
    # CJK, HANGUL, ...); punctuation and symbols count as one script, of their own.
    name = unicodedata.name(char, "")
    return name.partition(" ")[0] if unicodedata.category(char).startswith("L") else "SYMBOL"


def _decode(data: bytes, shortest: int) -> str | None:
    """UTF-16 or UTF-8 text of `shortest` bytes or more, forgiving a ragged last byte or
    two (a run cut short)."""
    if data[1::2].count(0) > len(data) // 4:  # UTF-16: every other byte is zero
        codec = "utf-16-le" if data[1] == 0 else "utf-16-be"
        return _decode_as(data[: len(data) // 2 * 2], codec, 2, shortest)
    return _decode_as(data, "utf-8", 1, shortest)


def _decode_as(data: bytes, codec: str, unit: int, shortest: int) -> str | None:
    for end in range(len(data), max(len(data) - 3 * unit, shortest - 1), -unit):
        try:
            return data[:end].decode(codec)
        except UnicodeDecodeError:
            continue
    return None
