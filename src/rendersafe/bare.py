"""Tag-like text with URL attributes, and bare URLs, as the most generous renderer reads them.

markdown-it-py escapes a malformed tag that python-markdown hands to the browser,
and links no bare URL at all; GFM renderers, marked and linkify-it link them, each
by its own rules. Both are judged outside code and outside what was decided before.
"""

from __future__ import annotations

import re

from .brackets import judge_reading
from .context import Pass
from .edits import Edit
from .findings import Action, Construct
from .urls import Role, Verdict

__all__ = ["URLISH", "bare_urls", "tags"]

# Far enough for any real URL; bounds the work per candidate.
WINDOW = 4096
_TAG_START = re.compile(r"<[a-zA-Z]")
_ENTITY_GLUED = re.compile(r"(<+)(?:&#?\w{1,32};)+(?=[a-zA-Z])")
TAG_WINDOW = 1024
_TAG = re.compile(
    r"""<[a-zA-Z][\w:-]*(?:[\s/]+[^\s=>/"']+(?:\s*=\s*(?:"[^"]*"?|'[^']*'?|[^\s>]*))?)*""",
)
_URL_ATTRIBUTE = re.compile(
    r"""(?<![\w-])(src|href|srcset|poster|background|action|formaction|data|lowsrc|dynsrc"""
    r"""|xlink:href|ping|cite|style)\s*=\s*("[^"]*"?|'[^']*'?|[^\s>]*)""",
    re.IGNORECASE,
)
_LINK_ATTRIBUTES = frozenset({"href", "action", "formaction", "ping", "cite", "xlink:href"})
_CSS_URL = re.compile(r"""url\(\s*["']?([^"')\s]*)|@import\s+["']([^"']*)""", re.IGNORECASE)
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
_BARE_ANCHOR = re.compile(r"://|www\.|@|\.[^\W\d_][\w-]{0,62}[/?#:]", re.IGNORECASE)
# Public: a word matching this may be (part of) a URL some renderer links.
URLISH = _BARE_ANCHOR
_LOCAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_+")
_TRAILING = ".,:;!?*_~'\""


def tags(ps: Pass) -> None:
    text = ps.source.text
    for start in _TAG_START.finditer(text):
        pos = start.start()
        if pos in ps.code or pos in ps.html or pos in ps.claimed:
            continue
        match = _TAG.match(text, pos, pos + TAG_WINDOW)
        if match is not None:
            _judge_tag(ps, pos, match.group())
    # python-markdown moves the entities of a line after raw HTML to its end, so
    # `<&amp;img src=u>` there is a live `<img>`.
    for glued in _ENTITY_GLUED.finditer(text):
        pos = glued.start()
        if pos in ps.code or pos in ps.claimed:
            continue
        match = _TAG.match("<" + text[glued.end() : glued.end() + TAG_WINDOW])
        if match is not None:
            _judge_tag(ps, pos, match.group(), len(glued.group(1)))


def _judge_tag(ps: Pass, pos: int, tag: str, openers: int = 1) -> None:
    verdict = _tag_verdict(ps, tag)
    if verdict is not None:
        edit = Edit(pos, pos + openers, ("&lt;" * openers,))
        ps.change(edit, Construct.HTML, Action.NEUTRALISED, verdict.reasons,
                  verdict=verdict, detail=_tag_name(tag), detector="lexical")  # fmt: skip


def _tag_name(tag: str) -> str:
    """The tag's name only: the rest of it may hold the data (`<img/src=//e.io/pw=...>`)."""
    name = re.match(r"<([a-zA-Z][a-zA-Z0-9-]{0,30})", tag)
    return name.group(1).lower() if name else "tag"


def _tag_verdict(ps: Pass, tag: str) -> Verdict | None:
    for match in _URL_ATTRIBUTE.finditer(tag):
        name = match.group(1).lower()
        value = match.group(2).strip("\"'")
        role = Role.LINK if name in _LINK_ATTRIBUTES else Role.IMAGE
        for url in _attribute_urls(name, value):
            verdict = judge_reading(ps, url, role)
            if verdict is not None:
                return verdict
    return None


def _attribute_urls(name: str, value: str) -> list[str]:
    if name == "srcset":
        return [c.split()[0] for c in value.split(",") if c.strip()]
    if name == "style":
        return [a or b for a, b in _CSS_URL.findall(value)]
    return [value]


def bare_urls(ps: Pass) -> None:
    text = ps.source.text
    pos = 0
    for anchor in _BARE_ANCHOR.finditer(text):
        if anchor.start() < pos:
            continue  # inside the previous URL
        match = _bare_match(text, anchor)
        if match is None:
            continue
        if match.start() in ps.code or match.start() in ps.claimed:
            # Decided already; a URL right after the code or construct is not.
            pos = max(ps.code.end_of(match.start()), ps.claimed.end_of(match.start()))
            continue
        # We edit a bare URL up to `](` (what follows is a destination, judged on its
        # own), but judge it whole too: mistune links all of it, backticks included.
        whole = _trim(match.group())
        url = _trim(whole.split("](", 1)[0])
        pos = match.start() + max(len(url), 1)
        if url:
            _bare_url(ps, match.start(), url, whole)


def _bare_match(text: str, anchor: re.Match[str]) -> re.Match[str] | None:
    """The bare URL around `anchor`, read from where that kind of URL starts."""
    mark, at, limit = anchor.group(), anchor.start(), anchor.end() + WINDOW
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
        ps.change(edit, Construct.BARE_URL, Action.REMOVED, verdict.reasons,
                  verdict=verdict, detector="lexical")  # fmt: skip


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
