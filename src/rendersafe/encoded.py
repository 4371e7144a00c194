"""Does a URL carry data? Detectors over the parts of one parsed URL.

Each detector looks at one kind of evidence and returns a reason code. The parts
inspected are the userinfo, long subdomain labels, path segments, query names and
values, and the fragment, each percent-decoded once. Decoded base64 and hex runs
count only when they decode to *text*: documentation IDs (commit SHAs, UUIDs,
Google Docs IDs) decode to random bytes, an exfiltrated chat decodes to prose.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote, unquote_plus

from .findings import Reason
from .policy import Thresholds

__all__ = ["UrlParts", "data_reasons", "nested_urls"]


@dataclass(frozen=True, slots=True)
class UrlParts:
    """The WHATWG-serialised parts of a URL, still percent-encoded."""

    href: str
    username: str
    password: str
    subdomain: str
    path: str
    query: str
    fragment: str


# Formats of credentials a model could be told to copy out of its context.
SECRET_PATTERNS = re.compile(
    r"AKIA[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|github_pat_[A-Za-z0-9_]{22,}"
    r"|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{35}"
    r"|[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\."
    r"|-----BEGIN[ A-Z]*PRIVATE KEY"
    r"|glpat-[A-Za-z0-9_-]{20}"
    r"|npm_[A-Za-z0-9]{36}"
)
# Query parameter names that announce a credential.
SECRET_NAMES = re.compile(
    r"(?:pass(?:word|wd)?|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token"
    r"|session(?:id)?|cookie|private[_-]?key|client[_-]?secret|refresh[_-]?token)",
    re.IGNORECASE,
)
_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}={0,2}")
_HEX = re.compile(r"[0-9A-Fa-f]+")
_UNRESERVED_ESCAPE = re.compile(r"%(?:3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|2[DEde]|5[Ff]|7[Ee])")
_NESTED = re.compile(r"(?:https?:|ftp:)?[/\\]{2}[^/\\\s]|https?:[/\\]|www\.", re.IGNORECASE)
_NON_ASCII_LETTER = re.compile(r"[^\x00-\x7f]")
# What some sites base64-encode on purpose: a GUID (Teams), a short random password
# (Zoom's `pwd=`). An identifier is not a leaked conversation.
_IDENTIFIER = re.compile(r"[0-9A-Fa-f-]+|[A-Za-z0-9+/_-]{1,23}={0,2}")


def data_reasons(parts: UrlParts, th: Thresholds) -> set[Reason]:
    """Return the reasons to believe `parts` carries encoded data (empty: none)."""
    reasons = _whole_url_reasons(parts, th)
    for name, value in _query_pairs(parts.query):
        reasons |= _value_reasons(value, th, query=True)
        reasons |= _value_reasons(name, th, query=True)
        if value and SECRET_NAMES.fullmatch(name):
            reasons.add(Reason.SECRET_PATTERN)
    for segment in parts.path.split("/"):
        # `+` is a space only in a query, but prose glued with `+` is prose anywhere.
        reasons |= _value_reasons(unquote(segment.replace("+", "%20")), th, query=False)
    fragment = parts.fragment.removeprefix("#")
    if fragment:
        reasons |= _value_reasons(unquote_plus(fragment), th, query=True)
        for _name, value in _query_pairs(fragment):
            reasons |= _value_reasons(value, th, query=True)
    return reasons


def _whole_url_reasons(parts: UrlParts, th: Thresholds) -> set[Reason]:
    reasons: set[Reason] = set()
    if len(parts.href) > th.max_url_chars:
        reasons.add(Reason.LONG_URL)
    if parts.username or parts.password:
        reasons.add(Reason.USERINFO)
    if _subdomain_carries_data(parts.subdomain, th):
        reasons.add(Reason.SUBDOMAIN_DATA)
    tail = parts.path + parts.query + parts.fragment
    if len(_UNRESERVED_ESCAPE.findall(tail)) >= th.percent_escapes:
        reasons.add(Reason.PERCENT_ENCODED_RUN)
    if SECRET_PATTERNS.search(unquote(tail)):
        reasons.add(Reason.SECRET_PATTERN)
    return reasons


def nested_urls(parts: UrlParts) -> Iterator[str]:
    """Yield absolute URLs embedded in the path, query or fragment (open redirects, proxies)."""
    for value in _embedded_values(parts):
        match = _NESTED.search(value)
        if match:
            yield value[match.start() :]


def _embedded_values(parts: UrlParts) -> Iterator[str]:
    for _name, value in _query_pairs(parts.query):
        yield value
    fragment = unquote(parts.fragment.removeprefix("#"))
    if fragment:
        yield fragment
    path = unquote(parts.path)
    # A browser collapses nothing in the path, so `/web/2020/https://x` stays nested.
    index = path.find(":/", 1)
    if index > 0:
        yield path[max(path.rfind("/", 0, index) + 1, 0) :]


def _query_pairs(query: str) -> Iterator[tuple[str, str]]:
    for item in re.split(r"[&;]", query.lstrip("?#")):
        if not item:
            continue
        name, _sep, value = item.partition("=")
        yield unquote_plus(name), unquote_plus(value)


def _value_reasons(value: str, th: Thresholds, *, query: bool) -> set[Reason]:
    reasons: set[Reason] = set()
    if not value:
        return reasons
    words = len(value.split())
    if words >= th.text_words or (len(value) >= th.text_chars and words >= 3):
        reasons.add(Reason.URLENCODED_TEXT)
    if len(_NON_ASCII_LETTER.findall(value)) >= th.non_ascii_chars:
        reasons.add(Reason.URLENCODED_TEXT)
    if query and len(value) >= th.entropy_chars and _entropy(value) >= th.entropy_bits:
        reasons.add(Reason.HIGH_ENTROPY_TOKEN)
    return reasons | _run_reasons(value, th)


def _run_reasons(text: str, th: Thresholds) -> set[Reason]:
    reasons: set[Reason] = set()
    for match in _B64_RUN.finditer(text):
        run = match.group()
        if len(run) < th.min_encoded_chars:
            continue
        if _hex_text(run, th):
            reasons.add(Reason.ENCODED_HEX)
        elif _base64_text(run, th):
            reasons.add(Reason.ENCODED_BASE64)
    return reasons


def _hex_text(run: str, th: Thresholds) -> bool:
    """Is `run`, or a `-`/`_`-separated part of it, hex that decodes to text?"""
    parts = [run] if _HEX.fullmatch(run) else re.split(r"[-_]", run)
    return any(_HEX.fullmatch(p) and _is_text(_unhex(p), th) for p in parts if p)


def _base64_text(run: str, th: Thresholds) -> bool:
    """Does `run` decode to text at some alignment?

    `-` and `_` are base64url characters but also join the words of an ID
    (`meeting_<base64 GUID>`): when the run has such parts, a long part must decode
    to text on its own.
    """
    if not any(_is_text(_unbase64(run[i:]), th) for i in range(4)):
        return False
    parts = [p for p in re.split(r"[-_]", run) if len(p) >= th.min_encoded_chars]
    if ("-" not in run and "_" not in run) or not parts:
        return True
    return any(_is_text(_unbase64(p[i:]), th) for p in parts for i in range(4))


def _unhex(run: str) -> bytes:
    try:
        return binascii.unhexlify(run[: len(run) // 2 * 2])
    except binascii.Error:
        return b""


def _unbase64(run: str) -> bytes:
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    body = body[: len(body) // 4 * 4 + (len(body) % 4 if len(body) % 4 != 1 else 0)]
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return b""


def _is_text(data: bytes, th: Thresholds) -> bool:
    """Did a run decode to text (not random bytes, and not just another identifier)?"""
    if len(data) < th.min_decoded_bytes:
        return False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        printable = sum(1 for b in data if 0x20 <= b < 0x7F or b in (9, 10, 13))
        return printable / len(data) >= th.printable_ratio
    printable = sum(1 for c in text if c.isprintable() or c in "\t\n\r")
    return printable / len(text) >= th.printable_ratio and not _IDENTIFIER.fullmatch(text)


def _entropy(text: str) -> float:
    counts = Counter(text)
    total = len(text)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _subdomain_carries_data(subdomain: str, th: Thresholds) -> bool:
    for label in subdomain.split("."):
        if len(label) < th.subdomain_label_chars:
            continue
        if re.fullmatch(r"[a-z]+(?:-[a-z]+)*", label):
            continue  # hyphenated words: a project or tenant name
        if _HEX.fullmatch(label) and _is_text(_unhex(label), th):
            return True
        if _is_text(_unbase32(label), th) or _is_text(_unbase64(label), th):
            return True
        digits = sum(c.isdigit() for c in label)
        if digits / len(label) >= 0.15 and _entropy(label) >= 3.8:
            return True
    return False


def _unbase32(label: str) -> bytes:
    body = label.upper().rstrip("=")
    body = body[: len(body) // 8 * 8] if len(body) % 8 in (1, 3, 6) else body
    try:
        return base64.b32decode(body + "=" * (-len(body) % 8))
    except (binascii.Error, ValueError):
        return b""
