"""Every way a URL can carry a piece: its readings, reduced to letters and digits.

A URL's parts (userinfo, host labels, port, path segments, query names and values,
fragment) are read raw, percent-decoded (twice: `%2573` is `%73`), entity-decoded,
cleaned of invisible characters and variation selectors, NFKC-folded (and, where letters
of other scripts show as Latin ones, also read as those) and lower-cased;
then the letters and digits of each reading are decoded as base64 / base64url at every
alignment, hex at both, base32 of either case at all eight. Dropping every separator
joins pieces split across parameters, segments, labels and `-._/+~,`; a second reading
of the parameter *values* only joins pieces split across `?a=..&b=..`. For prose, words
run together in camelCase are read apart as well. Characters hidden
as Unicode tags or variation selectors (one byte each) are read back as bytes too.

The URL as written is read too where the browser's serialisation differs from it.
A reading without a capital letter is not decoded as base64: honest lower-case paths
skip it, and the base64 of a piece lacks one rarely (measured on random pieces: of 6
bytes 0.2-2.4 % of the time, of 8 bytes under 0.4 %, of 12 under 0.1 %).

All readings go into one `blob` (NUL between them): a piece is carried when the blob
contains its key (`pieces.alnum_key`). The work is bounded per URL (`MAX_SOURCE`
characters), C-level (`bytes.translate`, `binascii`,
`int(_, 32)`), and cached per URL, since it does not depend on the conversation.
"""

from __future__ import annotations

import binascii
import html
import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple
from urllib.parse import unquote, unquote_plus, unquote_to_bytes

from ..urls.parse import INVISIBLE, ParsedUrl
from .fold import LOOK_ALIKE
from .index import sample
from .pieces import alnum_key
from .prose import MIN_PROSE_CHARS, could_carry, words_of

__all__ = ["MAX_SOURCE", "Readings", "joined_readings", "readings_of", "url_readings"]

MAX_SOURCE = 4096  # characters of a URL read; longer URLs are flagged as long anyway
_CACHE_SIZE = 4096

_HIDDEN = re.compile(INVISIBLE.pattern[:-1] + "\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_SMUGGLED = re.compile("[\ufe00-\ufe0f\U000e0000-\U000e007f\U000e0100-\U000e01ef]")
_LETTERS_DIGITS = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_NOT_BASE64 = bytes(b for b in range(256) if b not in _LETTERS_DIGITS + b"+/-_")
_NOT_ALNUM = bytes(b for b in range(256) if b not in _LETTERS_DIGITS)
_NOT_ALNUM_NUL = _NOT_ALNUM[1:]
_URLSAFE = bytes.maketrans(b"-_", b"+/")
_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
_BASE32 = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz234567", b"0123456789abcdefghijklmnopqrstuv")
_HEX_RUN = re.compile(rb"[0-9a-f]{8,}")  # a PIN's four bytes
_BASE32_RUN = re.compile(rb"[a-z2-7]{10,}")
_PRINTABLE = bytes(range(32, 127)) + b"\t\n\r"
_HUMPS = re.compile(r"[a-z][A-Z]")
_MIN_HUMPS = 2  # fewer: a name in camelCase, not a run of prose
# Where camelCase words meet: `aB`, `IExpect` and `APrice` (a one-letter word), `a1`, `1a`.
_CAMEL = re.compile(
    r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])"
)
_MIN_TEXT = 40  # decoded bytes read as prose from this length (ten short words)
_ESCAPED = re.compile(rb"%[0-9A-Fa-f]{2}")
_OTHER_DIGIT = re.compile(r"(?![0-9])\d")  # a decimal digit of another script


class Readings(NamedTuple):
    """A URL's readings: `blob` (letters and digits, lower case, NUL-separated) for
    pieces, `grams` (its sample for the index), `prose` (the words of each decoded
    text that could hold a run of the conversation's prose), `joined_prose` (those of
    its path and parameter values run together: held to the long run only, since a
    pre-filled form's two fields, a title and a body, may each end a sentence)."""

    blob: bytes
    grams: frozenset[bytes]
    prose: tuple[tuple[str, ...], ...]
    joined_prose: tuple[tuple[str, ...], ...] = ()


_cache: dict[tuple[str, bool], Readings] = {}


def url_readings(url: ParsedUrl, *, skip_path: bool = False) -> Readings:
    """The readings of `url` (cached). `skip_path` leaves the path out (a `mailto:`
    to the user's own address: only its query can carry anything)."""
    key = (url.href or url.raw, skip_path)
    found = _cache.get(key)
    if found is None:
        if len(_cache) >= _CACHE_SIZE:
            _cache.clear()
        found = _cache[key] = _compute(url, skip_path)
    return found


def _compute(url: ParsedUrl, skip_path: bool) -> Readings:
    parts = url.parts
    if parts is None:
        return readings_of(url.raw, smuggled=url.raw)
    host = "" if url.relative else parts.host
    path = "" if skip_path else parts.path
    whole = f"{parts.username} {parts.password} {host} {parts.port} {path}"
    whole += f" {parts.query} {parts.fragment}"
    values = _values(parts.query) + _values(parts.fragment)
    joined = "".join(values) if len(values) > 1 else ""
    # The data parts run together without the site and the parameter names between
    # them (`zq7.evil.example/mk2px9`, `/Zq7/mK2?x=pX9`), read plain and for prose, not
    # decoded: decoding them all again would cost every URL what its readings cost.
    labels = host.split(".")
    named = len(labels) > 2 and not labels[-1].isdigit()  # not an IPv4 address
    sub = ".".join(labels[1 if labels[0] == "www" else 0 : -2]) if named else ""
    data = [part for part in (sub, path.strip("/"), *values) if part]
    spliced = "/".join(data) if len(data) > 1 else ""
    if "xn--" in host:
        whole += " " + _unpunycode(host)
    # As written too, where the browser's serialisation differs: it may hide a piece
    # (digits read as an IPv4 host, `\` turned into `/`).
    written = "" if skip_path or url.raw.lower() == parts.href.lower() else url.raw
    if "&" in url.raw and ";" in url.raw and not skip_path:
        written = html.unescape(url.raw)  # `&#115;` would have ended the path at its `#`
    site = ".".join(host.split(".")[-2:])
    return readings_of(
        whole, joined=joined, smuggled=url.raw, written=written, site=site, spliced=spliced
    )


def readings_of(
    source: str,
    *,
    joined: str = "",
    smuggled: str = "",
    written: str = "",
    site: str = "",
    spliced: str = "",
) -> Readings:
    """The readings of `source` (a URL's parts as text), of `joined` (its parameter
    values run together), of the bytes hidden as Unicode tags or variation selectors in
    `smuggled`, of the letters and digits of `written` (the URL as written) and of
    `spliced` (its data parts run together, read plain, and for prose). The prose reading leaves
    out `site`: the site's own name is no prose of anyone's."""
    plain: list[bytes] = []
    cased: list[bytes] = []
    texts = [_read_text(source[:MAX_SOURCE], plain, cased)]
    camel = _camel_words(source[:MAX_SOURCE])
    if joined:
        _read_text(joined[:MAX_SOURCE], plain, cased)
    if smuggled and not smuggled.isascii():
        hidden = _hidden_bytes(smuggled[:MAX_SOURCE])
        if hidden:
            plain.append(alnum_key(hidden))
            texts.append(hidden.decode("ascii", "ignore").lower())
    _decodings(plain, cased, texts)
    if written:
        plain.append(alnum_key(written[:MAX_SOURCE].encode("utf-8", "ignore")))
    joined_texts: list[str] = []
    if spliced:
        plain.append(alnum_key(spliced[:MAX_SOURCE].encode("utf-8", "ignore")))
        joined_texts.append(_decode(spliced[:MAX_SOURCE]).lower())
        joined_texts.append(_camel_words(spliced[:MAX_SOURCE]) or "")
    if site:  # in the readings of the URL's parts as written
        texts[0] = texts[0].replace(site, " ", 1)
        camel = camel and camel.replace(site, " ", 1)
    if camel:
        texts.append(camel)
    blob = b"\0".join(plain)
    return Readings(blob, sample(blob), _prose(texts), _prose(joined_texts))


def joined_readings(joins: Sequence[str], *, decode: bool = True) -> Readings:
    """The readings of values of several URLs joined (one text per slot), for pieces.

    The texts are read as one, NUL between them: the plain reading keeps the NULs (no
    key runs across two texts), the case-kept ones drop them (a base64 run decodes at
    its own alignment wherever it sits), so several texts cost about as much as one."""
    plain: list[bytes] = []
    cased: list[bytes] = []
    _read_text("\0".join(joins)[:MAX_SOURCE], plain, cased, keep=_NOT_ALNUM_NUL)
    if decode:
        _decodings(plain, cased, [])
    blob = b"\0".join(plain)
    return Readings(blob, sample(blob), ())


def _read_text(
    source: str, plain: list[bytes], cased: list[bytes], keep: bytes = _NOT_ALNUM
) -> str:
    """Add the readings of one text (two case-kept forms to `cased`: letters and digits,
    and the base64 alphabet); return it decoded, lower case (for prose). `keep` is
    the table of bytes the plain readings drop."""
    text = _decode(source)
    if "%" in source:
        plain.append(source.encode("utf-8", "ignore").translate(_LOWER, keep))
    if not text.isascii():
        folded = text.translate(LOOK_ALIKE)
        if folded != text:  # read as the Latin letters it shows, as well as written
            _read_letters(folded, plain, cased, keep)
    return _read_letters(text, plain, cased, keep)


def _read_letters(text: str, plain: list[bytes], cased: list[bytes], keep: bytes) -> str:
    """Add the readings of one decoded text (as `_read_text`); return it, lower case."""
    lowered = text.lower()
    plain.append(lowered.encode("utf-8", "ignore").translate(_LOWER, keep))
    encoded = text.encode("utf-8", "ignore")
    letters_digits = encoded.translate(None, _NOT_ALNUM)
    # Base64 of a piece nearly always has a capital (see the module's docstring): a
    # reading without one is words and numbers, not base64.
    if letters_digits.lower() == letters_digits:
        cased += (b"", b"")
        return lowered
    cased.append(letters_digits)
    # `/` alone separates path segments; a base64 alphabet reading matters where a
    # `+`, `-` or `_` is (or a `/` in the query or fragment).
    query = encoded.find(b"?")
    symbols = b"+" in encoded or b"-" in encoded or b"_" in encoded
    if symbols or (query >= 0 and b"/" in encoded[query:]):
        cased.append(encoded.translate(_URLSAFE, _NOT_BASE64))
    else:
        cased.append(b"")
    return lowered


def _camel_words(source: str) -> str | None:
    """Words run together with only their capitals between them
    (`/OurMergerWithHalvorsenBiotech...`), split, lower case: for prose (None: too few)."""
    if source.islower() or len(_HUMPS.findall(source)) < _MIN_HUMPS:
        return None
    return _CAMEL.sub(" ", _decode(source)).lower()


def _prose(texts: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """The words of each text long enough, and with words rare enough, for a run."""
    found = (tuple(words_of(text)) for text in texts if len(text) >= MIN_PROSE_CHARS)
    return tuple(words for words in found if could_carry(words))


def _decode(source: str) -> str:
    """Percent- (twice) and entity-decoded, without hidden characters, NFKC-folded."""
    text = source
    for _ in range(2):
        if "%" in text:
            text = unquote(text, errors="replace")
    if "&" in text and ";" in text:
        text = html.unescape(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", _HIDDEN.sub("", text))
        # NFKC leaves the digits of other scripts (`٤٨٢١`) as they are; a server reads
        # them as the number they are.
        text = _OTHER_DIGIT.sub(_ascii_digit, text)
    return text


def _ascii_digit(match: re.Match[str]) -> str:
    return str(unicodedata.decimal(match.group()))


def _decodings(plain: list[bytes], cased: list[bytes], texts: list[str]) -> None:
    """Add base64 of the case-kept readings, hex and base32 of the lower-case ones."""
    decoded = _base64([reading for reading in cased if len(reading) >= 8])
    lowered = b"\0".join(plain)  # the runs of each reading, found in one pass
    # Every run (once): a cap on their number let decoy runs before the data hide it.
    # Their length is bounded by the readings', so the work stays linear in the URL.
    for run in dict.fromkeys(_HEX_RUN.findall(lowered)):
        decoded += _hex(run)
    for run in dict.fromkeys(_BASE32_RUN.findall(lowered)):
        decoded += _base32(run)
    joined = b"\0".join(decoded)
    # Data percent-encoded before it was encoded (`%40` for the `@` of an address).
    if _ESCAPED.search(joined):
        joined += b"\0" + unquote_to_bytes(joined)
    # One pass reduces them all; NUL (kept) still separates them.
    plain.append(joined.translate(_LOWER, _NOT_ALNUM_NUL))
    long = [data for data in decoded if len(data) >= _MIN_TEXT]
    for data in long:
        if len(data.translate(None, _PRINTABLE)) * 10 <= len(data):
            texts.append(data.decode("ascii", "ignore").lower())


def _base64(readings: list[bytes]) -> list[bytes]:
    """Each reading decoded at its four alignments, in one call: each is padded to whole
    groups (zero bits), `AAAA` (three NULs) between them."""
    if not readings:
        return []
    bodies = [reading[offset:] for reading in readings for offset in range(4)]
    padded = [body + b"A" * (-len(body) % 4) for body in bodies]
    data = binascii.a2b_base64(b"AAAA".join(padded))
    out, start = [], 0
    for body in padded:
        end = start + len(body) // 4 * 3
        out.append(data[start:end])
        start = end + 3
    return out


def _hex(run: bytes) -> list[bytes]:
    odd = run[1:]
    return [
        binascii.unhexlify(run[: len(run) // 2 * 2]),
        binascii.unhexlify(odd[: len(odd) // 2 * 2]),
    ]


def _base32(run: bytes) -> list[bytes]:
    """The run decoded at each of its eight alignments, from one integer: alignment
    `k` drops the first 5k bits (a partial last byte is padded with zero bits)."""
    number = int(run.translate(_BASE32), 32)
    bits = len(run) * 5
    out = []
    for width in range(bits, max(bits - 40, 7), -5):
        pad = -width % 8
        out.append(((number & ((1 << width) - 1)) << pad).to_bytes((width + pad) // 8, "big"))
    return out


def _hidden_bytes(raw: str) -> bytes:
    """Bytes smuggled as Unicode tags (ASCII + 0xE0000) or variation selectors."""
    out = bytearray()
    for match in _SMUGGLED.finditer(raw):
        point = ord(match.group())
        if point <= 0xFE0F:
            out.append(point - 0xFE00)
        elif point <= 0xE007F:
            out.append(point - 0xE0000)
        else:
            out.append(point - 0xE0100 + 16)
    return bytes(out)


def _values(query: str) -> list[str]:
    """The parameter values of a query or fragment, percent-decoded."""
    body = query[1:]
    if "=" not in body:
        return []
    return [unquote_plus(item.partition("=")[2]) for item in re.split(r"[&;]", body) if item]


def _unpunycode(host: str) -> str:
    try:
        return host.encode("ascii").decode("idna")
    except UnicodeError:
        return ""
