"""Does a URL carry data? Detectors over the parts of one parsed URL.

Each detector looks at one kind of evidence and returns a reason code. The parts
inspected are the userinfo, subdomain labels, path segments, query names and
values, and the fragment, each percent-decoded once, and the query values and the
path segments joined back together (data split into short pieces). What counts as
encoded text is decided in `decoding`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import unquote, unquote_plus

from ..findings import Reason
from .decode import HEX, encoded_runs, is_text, unbase32, unbase64, unhex
from .hosts import is_ip_literal, split_host
from .parse import UrlParts

if TYPE_CHECKING:
    from ..policy import Thresholds

__all__ = ["SECRET_NAMES", "SECRET_PATTERNS", "data_reasons", "nested_urls"]


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
_UNRESERVED_ESCAPE = re.compile(r"%(?:3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|2[DEde]|5[Ff]|7[Ee])")
_NESTED = re.compile(r"(?:https?:|ftp:)?[/\\]{2}[^/\\\s]|https?:[/\\]|www\.", re.IGNORECASE)
_NON_ASCII_LETTER = re.compile(r"[^\x00-\x7f]")


def data_reasons(parts: UrlParts, th: Thresholds) -> set[Reason]:
    """Return the reasons to believe `parts` carries encoded data (empty: none)."""
    reasons = _whole_url_reasons(parts, th)
    pairs = list(_query_pairs(parts.query))
    for name, value in pairs:
        reasons |= _value_reasons(value, th, query=True)
        reasons |= _value_reasons(name, th, query=True)
        if value and SECRET_NAMES.fullmatch(name):
            reasons.add(Reason.SECRET_PATTERN)
    # `+` is a space only in a query, but prose glued with `+` is prose anywhere.
    segments = [unquote(s.replace("+", "%20")) for s in parts.path.split("/") if s]
    for segment in segments:
        reasons |= _value_reasons(segment, th, query=False)
    fragment = parts.fragment.removeprefix("#")
    if fragment:
        reasons |= _value_reasons(unquote_plus(fragment), th, query=True)
        for _name, value in _query_pairs(fragment):
            reasons |= _value_reasons(value, th, query=True)
    # Data split into short pieces (one per parameter or path segment) joins up again.
    if len(pairs) > 1:
        reasons |= _joined_reasons("".join(value for _name, value in pairs), th)
    if len(segments) > 1:
        reasons |= _joined_reasons("".join(segments), th)
    return reasons


def _joined_reasons(joined: str, th: Thresholds) -> set[Reason]:
    reasons = encoded_runs(joined, th)
    if len(_NON_ASCII_LETTER.findall(joined)) >= th.non_ascii_chars:
        reasons.add(Reason.URLENCODED_TEXT)
    return reasons


def _whole_url_reasons(parts: UrlParts, th: Thresholds) -> set[Reason]:
    reasons: set[Reason] = set()
    if len(parts.href) > th.max_url_chars:
        reasons.add(Reason.LONG_URL)
    if parts.username or parts.password:
        reasons.add(Reason.USERINFO)
    if _subdomain_carries_data(parts.host, th):
        reasons.add(Reason.SUBDOMAIN_DATA)
    tail = parts.path + parts.query + parts.fragment
    once = unquote(tail)
    # Escapes of plain letters and digits, also double-encoded (`%2568` is `%68`).
    escapes = len(_UNRESERVED_ESCAPE.findall(tail)) + len(_UNRESERVED_ESCAPE.findall(once))
    if escapes >= th.percent_escapes:
        reasons.add(Reason.PERCENT_ENCODED_RUN)
    if SECRET_PATTERNS.search(once):
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
    if len(value) < min(th.min_encoded_chars, th.text_words, th.non_ascii_chars):
        return reasons  # too short to hold anything the detectors look for
    words = len(value.split())
    if words >= th.text_words or (len(value) >= th.text_chars and words >= 3):
        reasons.add(Reason.URLENCODED_TEXT)
    if not value.isascii() and len(_NON_ASCII_LETTER.findall(value)) >= th.non_ascii_chars:
        reasons.add(Reason.URLENCODED_TEXT)
    if query and len(value) >= th.entropy_chars and _entropy(value) >= th.entropy_bits:
        reasons.add(Reason.HIGH_ENTROPY_TOKEN)
    return reasons | encoded_runs(value, th)


def _entropy(text: str) -> float:
    counts = Counter(text)
    total = len(text)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _subdomain_carries_data(host: str, th: Thresholds) -> bool:
    """Long labels that decode to text or look random; short labels joined back up."""
    # Below the registrable domain (two labels at least) too little room for data: this
    # spares the suffix-list lookup for nearly every host.
    if sum(map(len, host.split(".")[:-2])) < th.subdomain_label_chars or is_ip_literal(host):
        return False
    subdomain = split_host(host)[0]
    labels = [label for label in subdomain.split(".") if label]
    joined = "".join(labels)
    candidates = [label for label in labels if len(label) >= th.subdomain_label_chars]
    if len(labels) > 1 and len(joined) >= th.subdomain_label_chars:
        candidates.append(joined)
    return any(_label_carries_data(label, th) for label in candidates)


def _label_carries_data(label: str, th: Thresholds) -> bool:
    if re.fullmatch(r"[a-z]+(?:-[a-z]+)*", label):
        return False  # hyphenated words: a project or tenant name
    if HEX.fullmatch(label) and is_text(unhex(label), th):
        return True
    if is_text(unbase32(label), th) or is_text(unbase64(label), th):
        return True
    digits = sum(c.isdigit() for c in label)
    return digits / len(label) >= 0.15 and _entropy(label) >= 3.8
