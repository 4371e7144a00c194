"""How many bits the model chose in a URL: what an observer of it can learn from it.

    free_text(parse_url("https://docs.example.dev/guide/install?v=2"), "example.dev")
    # "docs/guide/install?v=2"
    price("guide/install?v=2")     # ~ 25 bits: two common words, a digit, separators

The free part of a URL is everything the model could vary without changing who reads
the request: the host's labels below its observer, user info, a port, the path, the
query and the fragment, percent-escapes decoded. It is priced word by word:

    a word URLs are made of (data/url_words.txt)   -log2 of its frequency there
    an English word (data/english_words.txt)       `WORD_BITS`, whatever its length
    anything else                                  its length x log2 of its alphabet
                                                   (digits 3.3, letters 4.7, mixed 5.7)
    a separator or other ASCII character           1 bit; any other character 8 bits

This does not recognise data: it bounds what any encoding can carry. An English slug
costs about what its words could carry; a key, reversed, shifted or XORed, costs its
length in random characters; an acrostic costs a word per letter it carries.
Words the observer's own texts hold (`known`: it wrote them) cost only the choice
among those words.
"""

from __future__ import annotations

import functools
import math
import re
from urllib.parse import unquote

from ..urls.datafiles import entries, words
from ..urls.observers import CODE_HOSTS
from ..urls.parse import ParsedUrl

__all__ = ["WORD_BITS", "free_text", "is_word", "price", "tokens"]

WORD_BITS = 12.0
_SEPARATOR_BITS = 1.0
_OTHER_BITS = 8.0
_DIGIT_BITS = math.log2(10)
_LETTER_BITS = math.log2(26)
_MIXED_BITS = math.log2(62)
# Words of a URL: a run of letters (a capital starting a camelCase word with it), of
# capitals, or of digits; anything else is one character.
_RUN = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]+")
_TOKEN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+|.", re.DOTALL)


@functools.cache
def _url_words() -> dict[str, float]:
    counted = [(word, int(count)) for word, count in entries("url_words.txt")]
    total = sum(count for _, count in counted) or 1
    return {word: min(WORD_BITS, max(1.0, math.log2(total / count))) for word, count in counted}


@functools.cache
def _english() -> frozenset[str]:
    return words("english_words.txt")


def is_word(token: str) -> bool:
    """Is `token` (lower case) a word URLs are made of or an English word?"""
    return token in _url_words() or (len(token) >= 3 and token in _english())


def free_text(url: ParsedUrl, observer: str, *, host_given: bool = False) -> str:
    """The parts of `url` the model chose beyond its `observer` (the name that says who
    reads it: a registrable domain, a code host's `github.com/<owner>`), decoded; with
    `host_given`, beyond its host too (the conversation gave the host whole)."""
    parts = url.parts
    if parts is None:
        return url.raw
    if url.scheme == "mailto":
        return unquote(parts.query, errors="replace")  # the recipients are the observer
    site, _, owner = observer.partition(":")[0].partition("/")
    host = url.host
    below = host[: -len(site)].rstrip(".") if host.endswith(site) else host
    if owner:
        below = ""  # the account's host (github.com, raw.githubusercontent.com) is its site
    if below == "www" or host_given:
        below = ""
    user = f"{parts.username}:{parts.password}@" if parts.username or parts.password else ""
    port = f":{parts.port}" if parts.port else ""
    path = parts.path
    if owner:  # the account that reads it, where its service puts it: not a choice
        path = _below_owner(path, owner)
    rest = path + parts.query + parts.fragment
    if owner and site in CODE_HOSTS:
        # A repository's owner is shown which of its pages were opened (GitHub's popular
        # paths), never a query or a fragment (which no server is even sent).
        rest = path
    return unquote(f"{below}{user}{port}{rest}", errors="replace")


def _below_owner(path: str, owner: str) -> str:
    """`path` after the segment naming `owner` (`/<owner>/x`, a console's
    `/s3/buckets/<owner>?tab=x`), or all of it where no segment does."""
    segment = f"/{owner}"
    at = path.lower().find(segment)
    end = at + len(segment)
    if at < 0 or (end < len(path) and path[end] not in "/;"):
        return path
    return path[end:]


def tokens(text: str) -> list[tuple[int, int]]:
    """The spans of the words and single characters of `text`."""
    return [match.span() for match in _TOKEN.finditer(text)]


def price(text: str, known: frozenset[str] = frozenset()) -> float:
    """The bits `text` carries, each run of letters and digits in `known` (lower case,
    whole or word by word) a choice among those: log2 of their number, plus one."""
    if not known:
        return _price(text)
    choice = math.log2(len(known) + 1)
    total = 0.0
    for match in _RUN.finditer(text):
        run = match.group()
        if run.isalnum() and run.lower() in known:
            total += min(choice, _price(run))
            continue
        for start, end in tokens(run):
            token = run[start:end]
            known_token = token.isalnum() and token.lower() in known
            total += min(choice, _token(token)) if known_token else _token(token)
    return total


@functools.lru_cache(maxsize=8192)
def _price(text: str) -> float:
    return sum(_token(text[start:end]) for start, end in tokens(text))


@functools.lru_cache(maxsize=16384)
def _token(token: str) -> float:
    if not token.isalnum() or not token.isascii():
        return _characters(token)
    lower = token.lower()
    capital = 1.0 if token[0].isupper() else 0.0
    if token.isupper() and len(token) > 1:
        capital = 1.0  # one choice: the whole word in capitals
    spelt = _characters(token)
    known = _url_words().get(lower)
    if known is not None:
        return min(spelt, known + capital)
    if len(lower) >= 3 and lower in _english():
        return min(spelt, WORD_BITS + capital)
    return spelt


def _characters(text: str) -> float:
    if not text:
        return 0.0
    if text.isascii() and text.isalnum():
        if text.isdigit():
            return len(text) * _DIGIT_BITS
        if text.isalpha() and (text.islower() or text.isupper()):
            return len(text) * _LETTER_BITS
        return len(text) * _MIXED_BITS
    return sum(_SEPARATOR_BITS if c.isascii() else _OTHER_BITS for c in text) + sum(
        _MIXED_BITS - _SEPARATOR_BITS for c in text if c.isascii() and c.isalnum()
    )
