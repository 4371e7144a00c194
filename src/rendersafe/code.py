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

__all__ = ["raw_html_spans", "trusted_block", "trusted_span"]

# python-markdown's fenced_code: `lang`, `.lang` or `{attributes}` after the fence.
_INFO = re.compile(r"\.?[\w#.+-]*|\{[^\n}]*\}")
_BACKTICKS = re.compile(r"`+")
# A line that can be continued by an indented one: list item, quote, footnote,
# definition, definition-list entry, or anything indented itself.
_CONTINUABLE = re.compile(r"\s|[-*+]\s|\d{1,9}[.)]\s|>|:|\[[^\]]*\]:")
_BLOCK_TAG = re.compile(r"<([a-zA-Z][a-zA-Z0-9-]*)(?=[\s/>])")


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


def trusted_span(source: Source, start: int, end: int, *, in_table: bool) -> bool:
    """Is this code span code in every renderer?

    Only a one-line span outside a table, on a line whose backtick runs all pair up
    (python-markdown pairs an unmatched run differently, a renderer without tables
    pairs across cells).
    """
    if in_table or "\n" in source.text[start:end]:
        return False
    line = source.lines[source.line_of(start)]
    runs = [len(run) for run in _BACKTICKS.findall(line)]
    while runs:
        opener = runs.pop(0)
        if opener not in runs:
            return False
        runs = runs[runs.index(opener) + 1 :]
    return True


def raw_html_spans(source: Source, tokens: list[Token]) -> Regions:
    """Where python-markdown keeps raw HTML: from a block tag at column 0 to its end tag."""
    spans = Regions()
    for token in tokens:
        if token.type != "html_block" or token.map is None:
            continue
        start = source.starts[token.map[0]]
        opening = _BLOCK_TAG.match(source.text, start)
        if opening is None:
            continue
        close = _end_tag(opening.group(1).lower()).search(source.text, start)
        if close is not None:
            spans.add(start, close.start())
    return spans


@functools.lru_cache(maxsize=64)
def _end_tag(name: str) -> re.Pattern[str]:
    return re.compile(f"</{re.escape(name)}", re.IGNORECASE)
