"""The URLs a style sheet fetches: `url()`, `@import`, `image-set()`.

Every one is fetched when the rule applies, no click needed, so each is judged as an
image. A reference into the same document (`url(#gradient)`) fetches nothing. CSS
escapes (`u\\72 l(`) are read as the browser reads them: the text is judged both as
written and unescaped, and a URL found only unescaped cannot be cut on its own
(`css_cuts` then empties the sheet).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..engine.edits import Edit
from ..findings import Reason
from ..urls import Verdict
from .fence import Cut

__all__ = ["Found", "css_cuts", "css_problem", "found"]

_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s"']*))\s*\)""", re.IGNORECASE)
_IMPORT = re.compile(
    r"""@import\s*(?:"([^"]*)"|'([^']*)'|url\(\s*["']?([^"')\s]*)["']?\s*\))[^;]*;?""",
    re.IGNORECASE,
)
_IMAGE_SET = re.compile(r"(?:-webkit-)?image-set\(([^)]*)\)", re.IGNORECASE)
_STRING = re.compile(r""""([^"]*)"|'([^']*)'""")
_COMMENT = re.compile(r"/\*.*?(?:\*/|\Z)", re.DOTALL)
_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\n\f]?|(.))", re.DOTALL)
# Where a `url(` written with escapes or a quoted `@import` may start.
_MAYBE = re.compile(r"url|@import|image-set|\\", re.IGNORECASE)

Check = Callable[[str], Verdict]
"""Judge one URL a style sheet fetches (an image's rules)."""


@dataclass(frozen=True, slots=True)
class Found:
    """A URL in a style sheet, and the construct that holds it: `text[start:end]`."""

    url: str
    start: int
    end: int
    statement: bool  # an `@import`: the whole statement goes


def found(css: str) -> Iterator[Found]:
    """Every URL `css` fetches, as written, and as read with its comments taken out
    (`@import /**/'https://...'`; each as blanks of its length, so the places hold; a
    `/*` inside a string is no comment, so both readings are taken)."""
    if _MAYBE.search(css) is None:
        return
    seen: set[tuple[int, int]] = set()
    for text in (css, _COMMENT.sub(_blank, css)) if "/*" in css else (css,):
        for item in _found(text):
            if (item.start, item.end) not in seen:
                seen.add((item.start, item.end))
                yield item


def _found(css: str) -> Iterator[Found]:
    for match in _URL.finditer(css):
        yield Found(_first(match), match.start(), match.end(), statement=False)
    for match in _IMPORT.finditer(css):
        yield Found(_first(match), match.start(), match.end(), statement=True)
    for match in _IMAGE_SET.finditer(css):
        for string in _STRING.finditer(match.group(1)):
            yield Found(_first(string), match.start(), match.end(), statement=False)


def _blank(comment: re.Match[str]) -> str:
    return " " * len(comment.group())


def unescaped(css: str) -> str:
    """`css` with its escapes read (`\\75 rl` is `url`)."""
    if "\\" not in css:
        return css
    return _ESCAPE.sub(_unescape, css)


def css_problem(css: str, check: Check) -> Verdict | None:
    """The first refusal of a URL `css` fetches, as written or unescaped (None: none)."""
    seen: set[str] = set()
    for item in (*found(css), *found(unescaped(css))):
        if item.url in seen or _local(item.url):
            continue
        seen.add(item.url)
        verdict = check(item.url)
        if verdict.action != "keep":
            return verdict
    return None


def css_cuts(css: str, check: Check, what: str) -> list[Cut]:
    """The cuts a style sheet needs: each refused `url()` and `image-set()` becomes
    `none`, each refused `@import` goes; the whole sheet when a refused URL is
    written with escapes. An image the policy would proxy is refused here (a style
    sheet's URLs are not rewritten)."""
    cuts, refused = [], set[str]()
    for item in found(css):
        if _local(item.url):
            continue
        verdict = check(item.url)
        if verdict.action == "keep":
            continue
        refused.add(item.url)
        replacement = () if item.statement else ("none",)
        cuts.append(_cut(item, replacement, what, verdict))
    written = {item.url for item in found(css)}
    for item in found(unescaped(css)):
        if item.url not in written and not _local(item.url):
            verdict = check(item.url)
            if verdict.action != "keep":
                return [Cut.remove(0, len(css), what, verdict.reasons or _HOST, verdict)]
    return _outermost(cuts)


_HOST = (Reason.IMAGE_HOST_NOT_ALLOWED,)


def _cut(item: Found, replacement: tuple[str, ...], what: str, verdict: Verdict) -> Cut:
    reasons = verdict.reasons or _HOST  # a style sheet's image is not proxied: it goes
    return Cut((Edit(item.start, item.end, replacement),), what, reasons, verdict)


def _outermost(cuts: list[Cut]) -> list[Cut]:
    """Cuts that no other cut holds (an `url()` inside a refused `@import`)."""
    kept: list[Cut] = []
    for cut in sorted(cuts, key=lambda c: (c.start, -c.end)):
        if kept and cut.start < kept[-1].end:
            continue
        kept.append(cut)
    return kept


def _local(url: str) -> bool:
    return url.strip().startswith("#")


def _first(match: re.Match[str]) -> str:
    return next((g for g in match.groups() if g is not None), "")


def _unescape(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        code = int(match.group(1), 16)
        return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    return match.group(2)
