"""Bare URLs, as the most generous renderer reads them.

markdown-it-py links no bare URL at all; GFM renderers, marked and linkify-it link
them, each by its own rules. They are judged outside code and outside what was
decided before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ..engine.edits import Edit
from ..engine.regions import Regions
from ..engine.state import Pass
from ..engine.triggers import URLISH
from ..findings import Action, Construct
from ..urls import Role
from .decide import WINDOW, judge_reading

__all__ = ["bare_readings", "bare_urls"]

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
_SCHEME_BEFORE = re.compile(r"(?:https?|ftp)\Z", re.IGNORECASE)
_LOCAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_+")
_TRAILING = ".,:;!?*_~'\""


def bare_urls(ps: Pass, code: Regions) -> None:
    """Judge every bare URL outside `code` and what was decided."""

    def decided(at: int) -> int | None:
        if at in code or at in ps.claimed:
            # Decided already; a URL right after the code or construct is not.
            return max(code.end_of(at), ps.claimed.end_of(at))
        return None

    for start, url, whole in _found(ps.source.text, decided):
        _bare_url(ps, start, url, whole)


def bare_readings(text: str, *, any_code: bool = False) -> Iterator[str]:
    """Every URL `bare_urls` may judge in `text` when none of it is decided, and none
    of it is code (`any_code`: whatever is code, every anchor's URL)."""
    found = _every_anchor(text) if any_code else _found(text, lambda _at: None)
    for _start, url, whole in found:
        yield _absolute(url)
        if whole != url:
            yield _absolute(whole)


def _every_anchor(text: str) -> Iterator[tuple[int, str, str]]:
    """The bare URL of every anchor: code and decisions only skip some of them."""
    for anchor in URLISH.finditer(text):
        match = _bare_match(text, anchor)
        if match is not None:
            whole = _trim(match.group())
            url = _trim(whole.split("](", 1)[0]) if "](" in whole else whole
            if url:
                yield match.start(), url, whole


def _found(text: str, decided: Callable[[int], int | None]) -> Iterator[tuple[int, str, str]]:
    """Each bare URL (where it starts, it up to `](`, it whole) not in what `decided`
    says was decided (it gives where that ends), asked again after each URL."""
    pos = 0
    for anchor in URLISH.finditer(text):
        if anchor.start() < pos:
            continue  # inside the previous URL
        match = _bare_match(text, anchor)
        if match is None:
            continue
        end = decided(match.start())
        if end is not None:
            pos = end
            continue
        # We edit a bare URL up to `](` (what follows is a destination, judged on its
        # own), but judge it whole too: mistune links all of it, backticks included.
        whole = _trim(match.group())
        url = _trim(whole.split("](", 1)[0]) if "](" in whole else whole
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
    while start > 0 and _part_of_host(text[start - 1], email=mark == "@"):
        start -= 1
    while start < at and text[start] in ".-":
        start += 1
    return (_EMAIL if mark == "@" else _DOMAIN_URL).match(text, start, limit)


def _part_of_host(char: str, *, email: bool) -> bool:
    if email:
        return char in _LOCAL_CHARS  # GFM: ASCII local parts only
    return char.isalnum() or char in ".-"  # internationalised domains too


def _bare_url(ps: Pass, start: int, url: str, whole: str) -> None:
    verdict = judge_reading(ps, _absolute(url), Role.LINK)
    if verdict is None and whole != url:
        verdict = judge_reading(ps, _absolute(whole), Role.LINK)
    if verdict is not None:
        edit = Edit(start, start + len(url), ps.link_parts(None))
        reasons = verdict.reasons
        ps.change(
            edit, Construct.BARE_URL, Action.REMOVED, reasons, verdict=verdict, detector="lexical"
        )


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
        unbalanced = {")": "(", "]": "["}.get(last)
        if last in _TRAILING or (unbalanced and url.count(last) > url.count(unbalanced)):
            url = url[:-1]
        else:
            break
    return url
