"""A Mermaid diagram's source: what makes the diagram fetch, link or run.

Mermaid renders HTML in labels (an `<img>` loads even at its default, strict
security level), turns `click`, `link` and `links` statements into links and
`click ... call` into calls of the page's functions, fetches a node's `img:`,
and takes configuration from `%%{init: ...}%%` directives and front matter: CSS
(`themeCSS`, `fontFamily`, theme variables) that can fetch, and the security level
itself. So:

- a directive or front matter that names the security level, the sanitiser's
  configuration or raw CSS, or holds `url(`, `@import`, markup, an escape or a URL,
  goes whole (reason `renderer_directive`);
- a click that calls, a `callback`, and a `click`/`link`/`links` statement whose URL
  the link policy refuses go whole (to the end of their line);
- the markup in labels is judged as SVG's is (`markup`), the math (`$$...$$`) as
  TeX (`tex`);
- a node's image is judged as an image, any other URL as a link, and a refused one
  is cut out of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..engine.regions import Regions
from ..engine.state import Pass
from ..findings import Reason
from .fence import Cut
from .markup import markup_cuts
from .tex import tex_cuts

__all__ = ["mermaid_cuts"]

# `%%{init: ...}%%` to its end, or to the end of the text (Mermaid reads it so).
_DIRECTIVE = re.compile(r"%%\{.*?(?:\}%%|\Z)", re.DOTALL)
_FRONT_MATTER = re.compile(
    r"\A[ \t\r\n]*---[ \t]*\n.*?(?:\n[ \t]*---[ \t]*(?=\n|\Z)|\Z)", re.DOTALL
)
_RISKY_CONFIG = re.compile(
    r"securitylevel|secure|dompurify|themecss|\bcss\b|url\s*\(|@import|image-set|"
    r"expression\s*\(|\\|<|//|javascript:",
    re.IGNORECASE,
)
# A statement that links or calls, at a line start or after `;` (statements share
# lines), to the end of its line.
_STATEMENT = re.compile(
    r"(?:^|(?<=;))[ \t]*(click|callback|links?)\b[^\n]*", re.MULTILINE | re.IGNORECASE
)
_CLICK = re.compile(r"click\s+\S+\s+(?:(call)\b|href\b|([\"'])|(\S+))", re.IGNORECASE)
_QUOTED = re.compile(r"\"([^\"]*)\"|'([^']*)'")
_LINK_URL = re.compile(r"@\s*(\S+)")
# A URL some renderer would request, and a node's image.
_URL = re.compile(r"(?:https?:)?//[^\s\"'<>()\[\]{}|\\^`]+", re.IGNORECASE)
# Math in a label, which Mermaid renders with KaTeX.
_MATH = re.compile(r"\$\$(.*?)(?:\$\$|\Z)", re.DOTALL)
_IMAGE = re.compile(r"\bimg\s*:\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s,}]+))", re.IGNORECASE)


def mermaid_cuts(ps: Pass, text: str) -> list[Cut]:
    """What the Mermaid source `text` must lose."""
    cuts = [*_config_cuts(text), *_statement_cuts(ps, text)]
    cuts.extend(markup_cuts(ps, text))
    for math in _MATH.finditer(text):
        cuts.extend(cut.shifted(math.start(1)) for cut in tex_cuts(ps, math.group(1)))
    taken = Regions()
    for cut in cuts:
        taken.add(cut.start, cut.end)
    cuts.extend(_url_cuts(ps, text, taken))
    return cuts


def _config_cuts(text: str) -> Iterator[Cut]:
    blocks = list(_DIRECTIVE.finditer(text))
    front = _FRONT_MATTER.match(text)
    if front is not None:
        blocks.append(front)
    for block in blocks:
        if _RISKY_CONFIG.search(block.group()):
            yield Cut.remove(
                block.start(), block.end(), "configuration", (Reason.RENDERER_DIRECTIVE,)
            )


def _statement_cuts(ps: Pass, text: str) -> Iterator[Cut]:
    for statement in _STATEMENT.finditer(text):
        keyword = statement.group(1).lower()
        start = statement.start(1)
        body = text[start : statement.end()]
        if keyword == "callback" or (keyword == "click" and _calls(body)):
            what = "click callback" if keyword == "click" else keyword
            yield Cut.remove(start, statement.end(), what, (Reason.RENDERER_DIRECTIVE,))
            continue
        for url in _statement_urls(keyword, body):
            verdict = ps.judge_link(url)
            if verdict.action == "drop":
                yield Cut.remove(start, statement.end(), keyword, verdict.reasons, verdict)
                break


def _calls(body: str) -> bool:
    """Does a click statement call a function (`call f()`, or a bare function name)?"""
    found = _CLICK.match(body)
    return found is not None and (found.group(1) is not None or found.group(3) is not None)


def _statement_urls(keyword: str, body: str) -> Iterator[str]:
    """The URLs a click, link or links statement goes to."""
    if keyword == "link" and (after := _LINK_URL.search(body)) is not None:
        yield after.group(1)  # a sequence diagram's `link actor: label @ url`
    for quoted in _QUOTED.finditer(body):
        value = quoted.group(1) if quoted.group(1) is not None else quoted.group(2)
        if keyword != "click" or quoted.start() == _first_quote(body):
            yield value
        elif _URL.match(value):
            yield value  # a tooltip that is a URL is judged too
    yield from (m.group() for m in _URL.finditer(body))


def _first_quote(body: str) -> int:
    found = _QUOTED.search(body)
    return found.start() if found is not None else -1


def _url_cuts(ps: Pass, text: str, taken: Regions) -> Iterator[Cut]:
    """A node's image judged as an image, any other URL as a link, unless a cut
    above holds it already."""
    images = {}
    for match in _IMAGE.finditer(text):
        group = next(i for i in (1, 2, 3) if match.group(i) is not None)
        images[match.start(group)] = (match.end(group), match.group(group))
    for start, (end, url) in images.items():
        if not _inside(start, end, taken):
            verdict = ps.spend_image(url)
            if verdict.action != "keep":
                reasons = verdict.reasons or (Reason.IMAGE_HOST_NOT_ALLOWED,)
                yield Cut.remove(start, end, "node image", reasons, verdict)
    for match in _URL.finditer(text):
        if match.start() in images or _inside(match.start(), match.end(), taken):
            continue
        verdict = ps.judge_link(match.group())
        if verdict.action == "drop":
            yield Cut.remove(match.start(), match.end(), "URL", verdict.reasons, verdict)


def _inside(start: int, end: int, spans: Regions) -> bool:
    return start in spans and spans.end_of(start) >= end
