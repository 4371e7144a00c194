"""python-markdown's raw HTML blocks, a reading no CommonMark renderer shares.

python-markdown keeps a block that starts with a block-level tag raw, blank lines
included, up to the end tag that balances it (nested tags counted), or to the end of
the text when none does; after raw HTML it reads the rest of the line as a new line,
so a block tag anywhere on it opens a raw block again (and moves the entities and
comments of that rest of the line to the end of the block). What such a block holds
is HTML to python-markdown and Markdown or code to everyone else.
"""

from __future__ import annotations

import functools
import re

from markdown_it.token import Token

from ..engine.regions import Regions
from ..engine.source import SourceText

__all__ = [
    "RAW_BLOCK_TAGS",
    "UNBALANCED",
    "add_raw_html_span",
    "follow_raw_block",
    "moved_after_raw_html",
    "next_raw_tag",
    "raw_block_end",
]

# python-markdown's block-level elements (markdown.util.BLOCK_LEVEL_ELEMENTS, less the
# void `hr`): a block starting with one stays raw HTML up to its end tag.
RAW_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "canvas", "center", "colgroup",
        "dd", "details", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer",
        "form", "group", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "html",
        "iframe", "legend", "li", "main", "map", "math", "menu", "nav", "noscript", "object",
        "ol", "option", "output", "p", "pre", "progress", "script", "section", "style",
        "summary", "table", "tbody", "td", "textarea", "tfoot", "th", "thead", "tr", "ul",
        "video",
    }
)  # fmt: skip
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|$)")
# A tag's name as python-markdown's HTML parser reads it (any character but white space,
# `/` and `>` after a letter), lowered with `str.lower()` (`bloc\u212aquote` is a
# `blockquote`: the Kelvin sign lowers to `k`).
_TAG_OR_COMMENT = re.compile(r"<!--[\s\S]*?(?:-->|$)|<([a-zA-Z][^\t\n\r\f />\x00]*)(?=[\s/>]|$)")
# The depth of a raw block whose start tag never ends: it never balances.
UNBALANCED = 1 << 30


def add_raw_html_span(source: SourceText, block: Token, spans: Regions) -> None:
    """Where python-markdown keeps raw HTML: from the first block tag in an HTML
    block (after a comment or a closed element it starts a new line, and a line of
    the block may start with one) to the end tag that balances it, nested tags
    counted, or to the end of the text when none does."""
    if block.map is None:
        return
    start = source.starts[block.map[0]]
    if start in spans:
        return
    last = min(block.map[1], len(source.lines)) - 1
    opening = next_raw_tag(source.text, start, source.line_end(max(last, block.map[0])))
    if opening is not None:
        spans.add(start, raw_block_end(source.text, opening.start(), opening.group(1)))


def raw_block_end(text: str, start: int, name: str) -> int:
    """Where python-markdown's raw block opened by tag `name` at `start` ends."""
    still_open, _depth, end = follow_raw_block(text, start, name)
    return len(text) if still_open is not None else end


def follow_raw_block(
    text: str, pos: int, name: str, depth: int = 0, stop: int | None = None
) -> tuple[str | None, int, int]:
    """Follow python-markdown's raw block of tag `name` through `text[pos:stop]`.

    Returns the tag still open at `stop` (None once its end tag balanced it and no
    block tag opens after it before a blank line), its nesting depth, and where the
    block ended. A start tag cut off before its `>` never balances.
    """
    stop = len(text) if stop is None else stop
    while True:
        close = _balancing_close(text, pos, stop, name, depth)
        if isinstance(close, tuple):
            return name, close[0], stop
        blank = _BLANK_LINE.search(text, close, stop)
        again = next_raw_tag(text, close, stop if blank is None else blank.start())
        if again is None:
            return None, 0, close
        name, depth, pos = again.group(1), 0, again.start()


def next_raw_tag(text: str, pos: int, stop: int) -> re.Match[str] | None:
    """The first block tag in text[pos:stop]: python-markdown reads the rest of a
    line after raw HTML as a new line (a tag may run on over the next), and a block
    tag anywhere in it as raw."""
    for tag in _TAG_OR_COMMENT.finditer(text, pos, stop):
        if tag.group(1) and tag.group(1).lower() in RAW_BLOCK_TAGS:
            return tag
    return None


def _balancing_close(text: str, pos: int, stop: int, name: str, depth: int) -> int | tuple[int]:
    """The end of the end tag that brings `depth` to 0, or `(depth,)` at `stop`."""
    pattern = _tag_of(name.lower())
    while (tag := pattern.search(text, pos, stop)) is not None:
        if tag.group(1) is None:  # a comment: what it holds is no tag
            pos = tag.end()
            continue
        end = text.find(">", tag.end(), stop)
        if end < 0:
            return (UNBALANCED,) if not tag.group(1) else (depth,)
        depth += -1 if tag.group(1) else 1
        if depth <= 0:
            return end + 1
        pos = end + 1  # what a start tag's attributes hold is no tag
    return (depth,)


@functools.lru_cache(maxsize=64)
def _tag_of(name: str) -> re.Pattern[str]:
    return re.compile(f"<!--[\\s\\S]*?(?:-->|$)|<(/?){re.escape(name)}(?=[\\s/>]|$)", re.IGNORECASE)


# Where python-markdown reads the rest of a line after raw HTML (a line that starts
# with a tag, a comment or a declaration, after its first `>`; after a comment,
# declaration or end tag closed on the line), and what it moves from there.
_TAIL = re.compile(r"^[ ]{0,3}<[^>\n]*>|-->|\]\]>|</[a-zA-Z][a-zA-Z0-9-]*\s*>", re.MULTILINE)
_MOVABLE = re.compile(
    r"\n|<!--|<!\[CDATA\[|<![^<>]*>|<\?[^<>]*>|<[a-zA-Z][^<>]*/>"
    r"|&#(?:[0-9]+|[xX][0-9a-fA-F]+);?|&[a-zA-Z][-.a-zA-Z0-9]*;"
)
_CLOSES = {"<!--": "-->", "<![CDATA[": "]]>"}


def moved_after_raw_html(text: str) -> list[tuple[int, int]]:
    """What python-markdown moves to the end of the block from the rest of a line
    after raw HTML: entities, comments, declarations, processing instructions and
    self-closing tags. What was around them is read joined: `<!---->![a]&x;(u)` is
    an image of `u` to it. Ranges in order, none overlapping."""
    moved: list[tuple[int, int]] = []
    unclosed: set[str] = set()  # openers with no close left in the text
    pos = 0
    while (tail := _TAIL.search(text, pos)) is not None:
        pos = tail.end()
        while (item := _MOVABLE.search(text, pos)) is not None and item.group() != "\n":
            pos = item.end()
            close = _CLOSES.get(item.group())
            if close is not None:
                end = -1 if close in unclosed else text.find(close, pos)
                if end < 0:
                    unclosed.add(close)
                    continue  # no comment: python-markdown reads it as text
                pos = end + len(close)
            moved.append((item.start(), pos))
        if item is None:
            break
        pos = item.end()
    return moved
