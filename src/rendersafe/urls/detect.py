"""Does a URL carry data? Detectors over the parts of one parsed URL.

Each detector looks at one kind of evidence and returns a reason code. The parts
inspected are the userinfo, subdomain labels, path segments, query names and
values, and the fragment, each percent-decoded once, and the query values and the
path segments joined back together (data split into short pieces). What counts as
encoded text is decided in `decode`, raw credentials, addresses and card numbers in
`credentials`.

How much is judged depends on the host's class (`classes`): a sealed first-party
service is held only to the checks for credentials, hidden characters and userinfo
(and its nested URLs, in `judge`); every other host to all of them. The parameters
a provider's signed URL carries in their exact shape (`shapes`) are not judged.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote, unquote_plus

from ..findings import Reason
from .classes import sealed_parts
from .credentials import EMAIL, SECRET_NAMES, SECRET_PATTERNS, card_numbers
from .decode import encoded_runs
from .diagrams import diagram_urls
from .hosts import is_ip_literal, registrable_domain, split_host
from .parse import UrlParts
from .shapes import camo_target, provider_params

if TYPE_CHECKING:
    from ..policy import Thresholds

__all__ = ["SECRET_NAMES", "SECRET_PATTERNS", "data_reasons", "nested_urls"]

_UNRESERVED_ESCAPE = re.compile(r"%(?:3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|2[DEde]|5[Ff]|7[Ee])")
_NESTED = re.compile(r"(?:https?:|ftp:)?[/\\]{2}[^/\\\s]|https?:[/\\]|www\.", re.IGNORECASE)
_NON_ASCII_LETTER = re.compile(r"[^\x00-\x7f]")
_SEPARATORS = re.compile(r"[-._~:/]")
# Variation selectors render as nothing after most characters: a run of them is bytes
# smuggled one selector each (one after an emoji is how emoji are written).
_VARIATION_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9]")


@dataclass(frozen=True, slots=True)
class _Pieces:
    """The parts of a URL that are judged, percent-decoded: the provider's own signed
    parameters and a proxy's encoded target left out."""

    pairs: list[tuple[str, str]]
    segments: list[str]
    fragment: str
    tail: str  # path, judged query and fragment, still percent-encoded
    length: int  # of the URL without what was left out


def data_reasons(parts: UrlParts, th: Thresholds) -> set[Reason]:
    """Return the reasons to believe `parts` carries data (empty: none)."""
    pieces = _pieces(parts, th)
    reasons = _always(parts, pieces, th)
    if sealed_parts(parts):
        return reasons  # a service whose URLs reach only itself: IDs and payloads expected
    if pieces.length > th.max_url_chars:
        return reasons | {Reason.LONG_URL}  # data already: its values are not decoded
    return reasons | _value_checks(parts, pieces, th)


def _pieces(parts: UrlParts, th: Thresholds) -> _Pieces:
    raw_items = [item for item in re.split(r"[&;]", parts.query.lstrip("?")) if item]
    pairs = [_pair(item) for item in raw_items]
    own = provider_params(parts.host, pairs, th)
    kept = [item for i, item in enumerate(raw_items) if i not in own]
    raw_segments = [s for s in parts.path.split("/") if s]
    if camo_target(parts) is not None:
        raw_segments = raw_segments[:1]  # the target is a nested URL, judged as one
    left_out = sum(len(raw_items[i]) for i in own) + len(parts.path) - len("/".join(raw_segments))
    # `+` is a space only in a query, but prose glued with `+` is prose anywhere.
    segments = [unquote(s.replace("+", "%20")) for s in raw_segments]
    query = "?" + "&".join(kept) if kept else ""
    return _Pieces(
        pairs=[pair for i, pair in enumerate(pairs) if i not in own],
        segments=segments,
        fragment=unquote_plus(parts.fragment.removeprefix("#")),
        tail="/" + "/".join(raw_segments) + query + parts.fragment,
        length=len(parts.href) - left_out,
    )


def _pair(item: str) -> tuple[str, str]:
    name, _sep, value = item.partition("=")
    return unquote_plus(name), unquote_plus(value)


def _always(parts: UrlParts, pieces: _Pieces, th: Thresholds) -> set[Reason]:
    """What no host class excuses: userinfo, credentials, hidden characters."""
    reasons: set[Reason] = set()
    if parts.username or parts.password:
        reasons.add(Reason.USERINFO)
    if _subdomain_carries_data(parts.host, th):
        reasons.add(Reason.SUBDOMAIN_DATA)
    once = unquote(pieces.tail)
    if SECRET_PATTERNS.search(once):
        reasons.add(Reason.SECRET_PATTERN)
    if any(value and SECRET_NAMES.fullmatch(name) for name, value in pieces.pairs):
        reasons.add(Reason.SECRET_PATTERN)
    if len(_VARIATION_SELECTORS.findall(once)) >= 2:
        reasons.add(Reason.INVISIBLE_CHARACTERS)
    return reasons


def _value_checks(parts: UrlParts, pieces: _Pieces, th: Thresholds) -> set[Reason]:
    """Encoded data, prose, random tokens and raw personal data in the values."""
    tail = pieces.tail
    # Escapes of plain letters and digits, also double-encoded (`%2568` is `%68`).
    escapes = len(_UNRESERVED_ESCAPE.findall(tail)) + len(_UNRESERVED_ESCAPE.findall(unquote(tail)))
    reasons = {Reason.PERCENT_ENCODED_RUN} if escapes >= th.percent_escapes else set()
    for name, value in pieces.pairs:
        reasons |= _value_reasons(value, th, query=True)
        reasons |= _value_reasons(name, th, query=True)
    for segment in pieces.segments:
        reasons |= _value_reasons(segment, th, query=False)
    if pieces.fragment:
        reasons |= _value_reasons(pieces.fragment, th, query=True)
        for _name, value in _query_pairs(pieces.fragment):
            reasons |= _value_reasons(value, th, query=True)
    reasons |= _split_reasons(pieces, th)
    if _personal_data(parts, pieces):
        reasons.add(Reason.SECRET_PATTERN)
    return reasons


def _personal_data(parts: UrlParts, pieces: _Pieces) -> bool:
    """An e-mail address (not the site's own, not a `mailto:` recipient) or a card number."""
    values = [*pieces.segments, *(v for pair in pieces.pairs for v in pair), pieces.fragment]
    text = "\n".join(values)
    if card_numbers(text, pieces.pairs):
        return True
    if "@" not in text or parts.href.startswith("mailto:"):
        return False
    own = registrable_domain(parts.host) if parts.host else ""
    for match in EMAIL.finditer(text):
        domain = registrable_domain(match.group(1).lower())
        if domain and domain != own:
            return True
    return False


def _split_reasons(pieces: _Pieces, th: Thresholds) -> set[Reason]:
    """Data split into short pieces (one per parameter or path segment) joined up again,
    also without an ordinary parameter or file name glued on at either end."""
    reasons: set[Reason] = set()
    for joined in _joined([value for _name, value in pieces.pairs]):
        reasons |= _joined_reasons(joined, th)
    # Segments joined with `/` kept, since it is also base64's (`encoded_runs` tries without),
    # then without the first (`/collect/<pieces>`) and without a file name at the end.
    segments = pieces.segments
    if len(segments) > 1:
        reasons |= _joined_reasons("/".join(segments), th)
    if len(segments) > 2:
        ends = [segments[1:]]
        if "." in segments[-1]:
            ends += [segments[:-1], segments[1:-1]]
        for joined in dict.fromkeys("".join(part) for part in ends if part):
            reasons |= _joined_reasons(_SEPARATORS.sub("", joined), th)
    return reasons


def _joined(pieces: list[str]) -> Iterator[str]:
    """`pieces` joined, then without the first, the last, or both (three pieces or more),
    run together."""
    if len(pieces) > 1:
        yield "".join(pieces)
    if len(pieces) > 2:
        yield from dict.fromkeys(
            _SEPARATORS.sub("", "".join(part)) for part in (pieces[1:], pieces[:-1], pieces[1:-1])
        )


def _joined_reasons(joined: str, th: Thresholds) -> set[Reason]:
    reasons = encoded_runs(joined, th)
    if len(_NON_ASCII_LETTER.findall(joined)) >= th.non_ascii_chars:
        reasons.add(Reason.URLENCODED_TEXT)
    return reasons


def nested_urls(parts: UrlParts) -> Iterator[str]:
    """Yield absolute URLs embedded in the path, query or fragment (open redirects,
    proxies), a proxy's encoded target and the links in a diagram's payload."""
    for value in _embedded_values(parts):
        match = _NESTED.search(value)
        if match:
            yield value[match.start() :]
    target = camo_target(parts)
    if target is not None:
        yield target
    yield from diagram_urls(parts)


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
        if item:
            yield _pair(item)


def _value_reasons(value: str, th: Thresholds, *, query: bool) -> set[Reason]:
    reasons: set[Reason] = set()
    if len(value) < min(th.min_encoded_chars, th.text_words, th.non_ascii_chars):
        return reasons  # too short to hold anything the detectors look for
    words = len(value.split())
    if words >= th.text_words or (len(value) >= th.text_chars and words >= 3):
        reasons.add(Reason.URLENCODED_TEXT)
    if not value.isascii() and len(_NON_ASCII_LETTER.findall(value)) >= th.non_ascii_chars:
        reasons.add(Reason.URLENCODED_TEXT)
    if query and len(value) >= th.entropy_chars and _random_token(value, th):
        reasons.add(Reason.HIGH_ENTROPY_TOKEN)
    return reasons | encoded_runs(value, th)


def _random_token(value: str, th: Thresholds) -> bool:
    """A token of letters and digits (a few `+/=-_` of base64 at most) that looks random;
    a path, a URL or a list of parameters is more than a token."""
    tokenish = len(_TOKEN_CHAR.findall(value)) >= 0.9 * len(value)
    return tokenish and _entropy(value) >= th.entropy_bits


def _entropy(text: str) -> float:
    counts = Counter(text)
    total = len(text)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _subdomain_carries_data(host: str, th: Thresholds) -> bool:
    """Labels that decode to text or look random; short labels joined back up."""
    shortest = _label_chars(th)
    # Below the registrable domain (two labels at least) too little room for data: this
    # spares the suffix-list lookup for nearly every host.
    if sum(map(len, host.split(".")[:-2])) < shortest or is_ip_literal(host):
        return False
    subdomain, domain, _suffix = split_host(host)
    # Under no known suffix, the last two labels stand for the registrable domain.
    labels = host.split(".")[:-2] if not domain else [x for x in subdomain.split(".") if x]
    joined = "".join(labels)
    candidates = [label for label in labels if len(label) >= shortest]
    if len(labels) > 1 and len(joined) >= shortest:
        candidates.append(joined)
    return any(_label_carries_data(label, th) for label in candidates)


def _label_chars(th: Thresholds) -> int:
    """The shortest label that can hold `min_decoded_bytes` in base32 (20 for 12 bytes)."""
    return min(th.subdomain_label_chars, -(-th.min_decoded_bytes * 8 // 5))


def _label_carries_data(label: str, th: Thresholds) -> bool:
    if re.fullmatch(r"[a-z]+(?:-[a-z]+)*", label):
        return False  # hyphenated words: a project or tenant name
    if encoded_runs(label, th):
        return True
    if len(label) < th.subdomain_label_chars:
        return False
    digits = sum(c.isdigit() for c in label)
    return digits / len(label) >= 0.15 and _entropy(label) >= 3.8
