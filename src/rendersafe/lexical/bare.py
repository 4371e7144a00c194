"""Bare URLs, as the most generous renderer reads them.

markdown-it-py links no bare URL at all; GFM renderers, marked and linkify-it link
them, each by its own rules. They are judged outside code and outside what was
decided before.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from ..engine.edits import Edit
from ..engine.regions import Regions
from ..engine.state import Pass
from ..findings import Action, Construct
from ..urls import Role
from ..urls.hosts import split_host
from .decide import WINDOW, judge_reading

__all__ = ["ANCHOR", "bare_readings", "bare_urls"]

# Bare URLs as the most generous renderer reads them: marked links `https://` even
# inside a word, remark links `www.` after any punctuation, linkify-it links a bare
# `domain.tld/path`. Each pattern runs from where its anchor says the URL starts.
_URL_TAIL = r"[^\s<>]*"
_SCHEME_URL = re.compile(r"(?:https?|ftp)://" + _URL_TAIL, re.IGNORECASE)
_WWW_URL = re.compile(r"www\." + _URL_TAIL, re.IGNORECASE)
_DOMAIN_URL = re.compile(
    r"(?:[^\W_](?:[\w-]{0,61}[^\W_])?\.)+[^\W\d_][\w-]{0,61}[^\W_](?=[/?#:])" + _URL_TAIL
)
_EMAIL = re.compile(
    r"[a-z0-9._+-]+@(?:[a-z0-9-]+\.)+[a-z]{2,24}\b(?:[/?#]" + _URL_TAIL + ")?", re.IGNORECASE
)
# `URLISH`, its matches the same (each alternative starts with its own character, and
# no other character folds to `w`), found twice as fast: the engine skips to a
# character of the leading class in C.
ANCHOR = re.compile(
    r"[:wW@.](?:(?<=:)//|(?<=[wW])[wW][wW]\.|(?<=@)|(?<=\.)[^\W\d_][\w-]{0,62}[/?#:])"
)
_SCHEME_BEFORE = re.compile(r"(?:https?|ftp)\Z", re.IGNORECASE)
# Where a URL inside a bare URL starts: a scheme.
_INNER = re.compile(r"(?:https?|ftp)://", re.IGNORECASE)
_LOCAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_+")
_TRAILING = ".,:;!?*_~'\""
_OPENING = {")": "(", "]": "["}


def bare_urls(ps: Pass, code: Regions) -> None:
    """Judge every bare URL outside `code` and what was decided."""

    def decided(at: int) -> int | None:
        if at in code or at in ps.claimed:
            # Decided already; a URL right after the code or construct is not.
            return max(code.end_of(at), ps.claimed.end_of(at))
        return None

    for start, url, whole in _found(ps.source.text, decided):
        _bare_url(ps, start, url, whole)


def bare_readings(text: str, *, any_code: bool = False) -> list[str]:
    """Every URL `bare_urls` may judge in `text` when none of it is decided, and none
    of it is code (`any_code`: whatever is code, every anchor's URL)."""
    readings: list[str] = []
    pos = 0
    for anchor in ANCHOR.finditer(text):
        if anchor.start() < pos:
            continue  # inside the previous URL (`_found`; never with `any_code`)
        match = _bare_match(text, anchor)
        if match is None:
            continue
        length, read = _read(match.group())
        if not any_code:
            pos = match.start() + max(length, 1)
        readings += read
    return readings


def _read(found: str) -> tuple[int, tuple[str, ...]]:
    """For a URL's match: the length of its URL up to `](` (`_found`), and the URLs
    `bare_readings` gives for it. A function of the match alone: kept for the next
    reply that has it (a few thousand at most)."""
    known = _READ.get(found)
    if known is None:
        whole = _trim(found)
        url = _trim(whole.split("](", 1)[0]) if "](" in whole else whole
        read = (
            ()
            if not url
            else (_absolute(url),)
            if whole == url
            else (_absolute(url), _absolute(whole))
        )
        if read:
            read = (*read, *_nested(whole))
        known = (len(url), read)
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        _READ[found] = known
    return known


_READ: dict[str, tuple[int, tuple[str, ...]]] = {}
_READ_MAX = 4096


def _found(text: str, decided: Callable[[int], int | None]) -> Iterator[tuple[int, str, str]]:
    """Each bare URL (where it starts, it up to `](`, it whole) not in what `decided`
    says was decided (it gives where that ends), asked again after each URL."""
    pos = 0
    for anchor in ANCHOR.finditer(text):
        if anchor.start() < pos:
            continue  # inside the previous URL
        match = _bare_match(text, anchor)
        if match is None:
            continue
        end = decided(match.start())
        if end is not None:
            pos = end
            continue
        if match.re is _DOMAIN_URL and not _linkable(match.group()):
            continue
        # We edit a bare URL up to `](` (what follows is a destination, judged on its
        # own), but judge it whole too: mistune links all of it, backticks included
        # (a URL with a scheme; linkify-it, which alone links a bare name, stops at `]`).
        whole = _trim(match.group())
        url = _trim(whole.split("](", 1)[0]) if "](" in whole else whole
        if (
            match.re is not _SCHEME_URL
            and match.re is not _WWW_URL
            and url.count("(") <= url.count(")")
        ):
            whole = url  # (linkify-it reads on past `]` only inside an open `(`)
        pos = match.start() + max(len(url), 1)
        if url:
            yield match.start(), url, whole


def _bare_match(text: str, anchor: re.Match[str]) -> re.Match[str] | None:
    """The bare URL around `anchor`, read from where that kind of URL starts."""
    mark, at, limit = anchor.group(), anchor.start(), anchor.end() + WINDOW
    if mark.endswith(":") and text.startswith("//", anchor.end()):
        # `world.https://`: a renderer links from the scheme, not from `world`.
        mark, at = "://", anchor.end() - 1
    if mark == "://":
        scheme = _SCHEME_BEFORE.search(text, max(at - 5, 0), at)
        return _SCHEME_URL.match(text, scheme.start(), limit) if scheme else None
    if mark.lower() == "www.":
        return _WWW_URL.match(text, at, limit)
    start = at
    if mark == "@":  # GFM: ASCII local parts only
        while start > 0 and text[start - 1] in _LOCAL_CHARS:
            start -= 1
    else:  # internationalised domains too
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in ".-"):
            start -= 1
    while start < at and text[start] in ".-":
        start += 1
    return (_EMAIL if mark == "@" else _DOMAIN_URL).match(text, start, limit)


# Names no renderer links bare, whatever follows them: the top-level names reserved
# for tests and private networks are read all the same (a client may resolve them).
_RESERVED_TOP = frozenset({"example", "test", "invalid", "localhost", "local", "internal", "lan"})
# linkify-it's own top-level names, which the public suffix list need not hold alone
# (`za`, `an`, `web`): its default list and its two-letter codes.
_LINKIFY_TOP = frozenset(
    [
        "biz",
        "com",
        "edu",
        "gov",
        "net",
        "org",
        "pro",
        "web",
        "xxx",
        "aero",
        "asia",
        "coop",
        "info",
        "museum",
        "name",
        "shop",
    ]
)
_LINKIFY_TWO = re.compile(
    "a[cdefgilmnoqrstuwxz]|b[abdefghijmnorstvwyz]|c[acdfghiklmnoruvwxyz]|d[ejkmoz]|e[cegrstu]"
    "|f[ijkmor]|g[abdefghilmnpqrstuwy]|h[kmnrtu]|i[delmnoqrst]|j[emop]|k[eghimnprwyz]"
    "|l[abcikrstuvy]|m[acdeghklmnopqrstuvwxyz]|n[acefgilopruz]|om|p[aefghklmnrstwy]|qa"
    "|r[eosuw]|s[abcdeghijklmnortuvxyz]|t[cdfghjklmnortvwz]|u[agksyz]|v[aceginu]|w[fs]"
    "|y[et]|z[amw]"
)


def _linkable(found: str) -> bool:
    """Is the bare name `found` starts with one a linkifier may link: under a top-level
    name the public suffix list knows (linkify-it links only those, and by default
    fewer), or a reserved one? `realip.go#L41`, `flags.ts#L12` and `index.tsx` name
    files, not hosts."""
    return _linkable_host(re.split(r"[/?#:]", found, maxsplit=1)[0].rstrip(".").lower())


@functools.lru_cache(maxsize=4096)
def _linkable_host(host: str) -> bool:
    top = host.rpartition(".")[2]
    if top in _RESERVED_TOP or top in _LINKIFY_TOP or _LINKIFY_TWO.fullmatch(top):
        return True
    return bool(split_host(host)[2]) or not top.isascii()


def _bare_url(ps: Pass, start: int, url: str, whole: str) -> None:
    verdict = judge_reading(ps, _absolute(url), Role.LINK)
    if verdict is None and whole != url:
        verdict = judge_reading(ps, _absolute(whole), Role.LINK)
    for inner in _nested(whole) if verdict is None else ():
        verdict = judge_reading(ps, inner, Role.LINK)
        if verdict is not None:
            break
    if verdict is not None:
        edit = Edit(start, start + len(url), ps.link_parts(None, verdict))
        reasons = verdict.reasons
        ps.change(
            edit, Construct.BARE_URL, Action.REMOVED, reasons, verdict=verdict, detector="lexical"
        )


def _nested(url: str) -> tuple[str, ...]:
    """The URLs a renderer may link from inside `url`: linkify-it ends a link where
    another starts (`https://en.wikipedia.org/wiki/F((https://evil.example/?d=...` is
    two), so each scheme after its start begins a reading of its own."""
    if "://" not in url[8:]:
        return ()
    return tuple(_absolute(_trim(url[match.start() :])) for match in _INNER.finditer(url, 1))


def _absolute(url: str) -> str:
    if "://" in url[:16]:
        return url
    if "@" in url and "/" not in url:
        return "mailto:" + url
    return "http://" + url


def _trim(url: str) -> str:
    """GFM's rule: trailing punctuation and unbalanced closing parens are not the URL."""
    while url:
        last = url[-1]
        unbalanced = _OPENING.get(last)
        if last in _TRAILING or (unbalanced and url.count(last) > url.count(unbalanced)):
            url = url[:-1]
        else:
            break
    return url
