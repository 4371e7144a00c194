"""Which code is code for *every* renderer, and so may be left alone.

markdown-it-py's reading of code is not shared by all renderers. python-markdown's
`fenced_code` accepts only a fence at column 0, a plain info string and a closing
fence identical to the opening one; CommonMark continues a paragraph (a definition,
a footnote) into an indented line; renderers disagree about indentation inside
lists and quotes, about tabs, about how backtick runs pair, and python-markdown
keeps a whole `<div>` block raw, blank lines included. Code that any renderer could
read as Markdown or HTML is not trusted: the lexical pass judges it like prose.
"""

from __future__ import annotations

import functools
import re

from markdown_it.token import Token

from .context import Regions
from .spans import Source

__all__ = ["SpanJudge", "add_raw_html_span", "trusted_block"]

# python-markdown's fenced_code: `lang`, `.lang` or `{attributes}` after the fence.
_INFO = re.compile(r"\.?[\w#.+-]*|\{[^\n}]*\}")
_BACKTICKS = re.compile(r"`+")
# A line that can be continued by an indented one: list item, quote, footnote,
# definition, definition-list entry, or anything indented itself.
_CONTINUABLE = re.compile(r"\s|[-*+]\s|\d{1,9}[.)]\s|>|:|\[[^\]]*\]:")
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
_BLOCK_TAG = re.compile(r"<([a-zA-Z][a-zA-Z0-9-]*)(?=[\s/>]|$)")


def trusted_block(source: Source, token: Token, *, nested: bool, raw: Regions) -> bool:
    """Is this fence or indented code block code in every renderer?"""
    if token.map is None or nested or source.starts[token.map[0]] in raw:
        return False
    first, end = token.map[0], min(token.map[1], len(source.lines))
    if token.type == "fence":
        return _canonical_fence(source.lines[first:end], token.markup, token.info)
    if token.type == "code_block":
        lines = source.lines[first:end]
        tabs = any("\t" in line[: len(line) - len(line.lstrip())] for line in lines)
        return not tabs and _stands_alone(source, first)
    return False


def _canonical_fence(lines: tuple[str, ...], markup: str, info: str) -> bool:
    return (
        len(lines) >= 2
        and lines[0].startswith(markup)
        and _INFO.fullmatch(info.strip()) is not None
        and lines[-1].rstrip() == markup
    )


def _stands_alone(source: Source, first: int) -> bool:
    """An indented block after a blank line, and after nothing that could continue."""
    if first > 0 and source.lines[first - 1].strip():
        return False
    previous = first - 1
    while previous >= 0 and not source.lines[previous].strip():
        previous -= 1
    return previous < 0 or _CONTINUABLE.match(source.lines[previous]) is None


class SpanJudge:
    """Decides whether code spans are code for every renderer, caching per text block."""

    def __init__(self, source: Source) -> None:
        self._source = source
        self._pairs: dict[int, frozenset[tuple[int, int]] | None] = {}
        self._blocks: dict[int, tuple[int, int]] = {}

    def trusted(self, start: int, end: int, *, in_table: bool) -> bool:
        """A one-line span outside a table, whose backtick runs are still a pair when
        the runs of the whole text block are paired in order. Another renderer may
        end the paragraph elsewhere (pairing across a line markdown-it made code or a
        heading), pair across table cells, or pair an unmatched run differently."""
        if in_table or "\n" in self._source.text[start:end]:
            return False
        line = self._source.line_of(start)
        if line not in self._blocks:
            self._blocks[line] = self._block(line)
        first, last = self._blocks[line]
        if first not in self._pairs:
            self._pairs[first] = _pairs(self._source, first, last)
        pairs = self._pairs[first]
        return pairs is not None and (start, end) in pairs

    def _block(self, line: int) -> tuple[int, int]:
        """The lines around `line` up to the nearest blank lines: any renderer's paragraph."""
        lines = self._source.lines
        first = last = line
        while first > 0 and lines[first - 1].strip():
            first -= 1
        while last + 1 < len(lines) and lines[last + 1].strip():
            last += 1
        return first, last


def _pairs(source: Source, first: int, last: int) -> frozenset[tuple[int, int]] | None:
    """Code spans as CommonMark pairs backtick runs, reading lines first..last as one;
    None when a run is left unpaired (python-markdown then splits it and pairs anew)."""
    runs = list(_BACKTICKS.finditer(source.text, source.starts[first], source.line_end(last)))
    pairs, i = set(), 0
    while i < len(runs):
        width = len(runs[i].group())
        closer = next((j for j in range(i + 1, len(runs)) if len(runs[j].group()) == width), None)
        if closer is None:
            return None
        pairs.add((runs[i].start(), runs[closer].end()))
        i = closer + 1
    return frozenset(pairs)


def add_raw_html_span(source: Source, block: Token, spans: Regions) -> None:
    """Where python-markdown keeps raw HTML: from a block tag at column 0 to its end tag."""
    if block.map is None:
        return
    start = source.starts[block.map[0]]
    opening = _BLOCK_TAG.match(source.text, start)
    if opening is not None and opening.group(1).lower() in RAW_BLOCK_TAGS:
        close = _end_tag(opening.group(1).lower()).search(source.text, start)
        if close is not None:
            spans.add(start, close.start())


@functools.lru_cache(maxsize=64)
def _end_tag(name: str) -> re.Pattern[str]:
    return re.compile(f"</{re.escape(name)}", re.IGNORECASE)
