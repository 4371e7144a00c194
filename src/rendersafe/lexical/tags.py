"""Tag-like text with URL attributes, as the most generous renderer reads it.

markdown-it-py escapes a malformed tag that python-markdown hands to the browser
(`<img src=x` cut off, `<img/src=u>`, a tag glued to `<` by entities after raw
HTML). Each one outside code, HTML markdown-it read and what was decided before
has its URL attributes judged; a tag that must go loses its `<`. A tag in the HTML
markdown-it read also has its URLs judged as a healing renderer leaves them
(`healers.tilde_reading`).
"""

from __future__ import annotations

import re

from ..engine.edits import Edit
from ..engine.regions import Regions
from ..engine.state import Pass
from ..findings import Action, Construct, Reason
from ..html.review import Element, elements
from ..urls import Role, Verdict
from .decide import judge_reading
from .healers import tilde_reading

__all__ = ["may_judge", "tags"]

_TAG_START = re.compile(r"<[a-zA-Z]")
# From the first `<` of a run only, and without backtracking: a run of `<` would
# otherwise be rescanned from each of its `<`.
_ENTITY_GLUED = re.compile(r"(?<!<)(<++)(?:&#?\w{1,32};)++(?=[a-zA-Z])")
TAG_WINDOW = 1024
# A tag as a browser tokenises it: its name runs to white space, `/` or `>`, an attribute
# name to those or `=` (quotes, `<` and `[` included); after a quoted value the next
# attribute needs no space (`<img t=""src=u>`).
_TAG = re.compile(
    r"""<[a-zA-Z][^\s/>]*(?:(?:[\s/]+|(?<=["'])(?!<))[^\s=>/]+(?:\s*=\s*(?:"[^"]*"?|'[^']*'?|[^\s>]*))?)*""",
)
_URL_ATTRIBUTE = re.compile(
    r"""(?<![\w-])(src|href|srcset|poster|background|action|formaction|data|lowsrc|dynsrc"""
    r"""|xlink:href|ping|cite|style)\s*=\s*("[^"]*"?|'[^']*'?|[^\s>]*)""",
    re.IGNORECASE,
)
_LINK_ATTRIBUTES = frozenset({"href", "action", "formaction", "ping", "cite", "xlink:href"})
# Tags whose `href` the browser fetches as it renders: SVG images and uses, styles, scripts.
_FETCHING_HREF = frozenset({"image", "use", "feimage", "link", "script"})
# An event handler: script that runs without a click (onerror, onload, onfocus...).
_HANDLER = re.compile(r"(?<![\w-])on[a-z]+\s*=", re.IGNORECASE)
_CSS_URL = re.compile(r"""url\(\s*["']?([^"')\s]*)|@import\s+["']([^"']*)""", re.IGNORECASE)


def may_judge(text: str) -> bool:
    """Could `tags` judge anything in `text`: does it name a URL attribute or an
    event handler anywhere? (False: every tag-like text in it passes.)"""
    return _URL_ATTRIBUTE.search(text) is not None or _HANDLER.search(text) is not None


def tags(ps: Pass, code: Regions, html: Regions) -> None:
    """Judge every tag-like text outside `code`, `html` and what was decided."""
    text = ps.source.text
    for start in _TAG_START.finditer(text):
        pos = start.start()
        if pos in code or pos in ps.claimed:
            continue
        window = text[pos : pos + TAG_WINDOW]
        if pos not in html:
            _judge_tag(ps, pos, window)
        elif "~" in window:
            _judge_tag(ps, pos, window, healed=True)
    # python-markdown moves the entities of a line after raw HTML to its end, so
    # `<&amp;img src=u>` there is a live `<img>`.
    for glued in _ENTITY_GLUED.finditer(text):
        pos = glued.start()
        if pos in code or pos in ps.claimed:
            continue
        window = "<" + text[glued.end() : glued.end() + TAG_WINDOW]
        _judge_tag(ps, pos, window, len(glued.group(1)))


def _judge_tag(ps: Pass, pos: int, window: str, openers: int = 1, *, healed: bool = False) -> None:
    """Judge the tag-like text `window` starts with (it sits at `pos`, after
    `openers` `<`s); `healed`: only its URLs as a healing renderer leaves them."""
    match = _TAG.match(window)
    tag = match.group() if match is not None else window[:2]
    verdict = _tag_verdict(ps, tag, healed=healed)
    if verdict is not None:
        reasons, detail = verdict.reasons, _tag_name(tag)
    elif not healed and _HANDLER.search(window) and _has_handler(window):
        reasons, detail = (Reason.HTML_ATTRIBUTE_NOT_ALLOWED,), f"{_tag_name(tag)}[on*]"
    else:
        return
    edit = Edit(pos, pos + openers, ("&lt;" * openers,))
    construct, action = Construct.HTML, Action.NEUTRALISED
    ps.change(edit, construct, action, reasons, verdict=verdict, detail=detail, detector="lexical")


def _has_handler(window: str) -> bool:
    """Does the tag `window` starts with carry an `on*` attribute, as a browser reads
    it (quoted values may hold `>`, attributes need no space between them)?"""
    first = next(iter(elements(window)), None)
    if not isinstance(first, Element):
        return True  # cut off before its `>`: a later chunk may close it; fail closed
    return any(name.startswith("on") for name in first.attributes)


def _tag_name(tag: str) -> str:
    """The tag's name only: the rest of it may hold the data (`<img/src=//e.io/pw=...>`)."""
    name = re.match(r"<([a-zA-Z][a-zA-Z0-9-]{0,30})", tag)
    return name.group(1).lower() if name else "tag"


def _tag_verdict(ps: Pass, tag: str, *, healed: bool = False) -> Verdict | None:
    fetching = _tag_name(tag) in _FETCHING_HREF
    for match in _URL_ATTRIBUTE.finditer(tag):
        name = match.group(1).lower()
        value = match.group(2).strip("\"'")
        role = Role.LINK if name in _LINK_ATTRIBUTES and not fetching else Role.IMAGE
        for url in _attribute_urls(name, value):
            reading = tilde_reading(url) if healed else url
            verdict = None if reading is None else judge_reading(ps, reading, role)
            if verdict is not None:
                return verdict
    return None


def _attribute_urls(name: str, value: str) -> list[str]:
    if name == "srcset":
        return [c.split()[0] for c in value.split(",") if c.strip()]
    if name == "style":
        return [a or b for a, b in _CSS_URL.findall(value)]
    return [value]
