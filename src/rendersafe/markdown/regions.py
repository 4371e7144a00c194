"""Sweep 1 of the Markdown pass: where the code and the raw HTML are.

Marks what every renderer reads as code (the lexical pass leaves it alone), what
markdown-it reads as raw HTML (judged as HTML, not as prose), where markdown-it's
reference definitions start, and builds the offset maps sweep 2 needs for inline
tokens with something to judge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType

from markdown_it.token import Token

from ..engine.regions import Regions
from ..engine.source import SourceText
from ..engine.trust import CodeTrust
from .code import SpanJudge, trusted_block
from .parser import OffsetMap, advance
from .python_markdown import RAW_BLOCK_TAGS, add_raw_html_span, raw_block_end

__all__ = ["Maps", "Marks", "Where", "mark_regions"]

_FIND_MODE = frozenset({"th_open", "td_open", "heading_open"})
_CONTAINER_DEPTH = MappingProxyType(
    {"list_item_open": 1, "list_item_close": -1, "blockquote_open": 1, "blockquote_close": -1}
)
TAG_START = re.compile(r"</?[a-zA-Z]")
# mistune looks for the end of a comment or processing-instruction block after its
# opener, CommonMark anywhere on the opening line: `<!-->`, `<!--->` and `<?>` end where
# they start for CommonMark, and for mistune run on to the next `-->` or `?>`, or to the
# end of the text, code spans and all (in a list item or a quote too).
_LEFT_OPEN = re.compile(r" {0,3}(?:(?:>|[-*+]|\d{1,9}[.)])[ \t]*)*(<!--|<\?)")
_LEFT_OPEN_ENDS = MappingProxyType({"<!--": "-->", "<?": "?>"})
# marko reads `<!` and anything after it at a line's start (in any container) as a
# declaration's HTML block, to the first line holding a `>`; CommonMark needs a letter
# after `<!`, so markdown-it reads `<!->` or `<!1` as a paragraph with code spans.
_DECLARATION = re.compile(r" {0,3}(?:(?:>|[-*+]|\d{1,9}[.)])[ \t]*)*<!")
# mistune reads a line starting with `<pre`, `<script`, `<style` or `<textarea` and any
# character a tag's name does not hold (in any container) as raw HTML to the closing
# tag, over blank lines, or to the end of the text; CommonMark needs white space, `>` or
# the line's end after the name, so markdown-it reads `<pre'>` as a paragraph.
_RAW_TEXT = re.compile(
    r"^ {0,3}(?:(?:>|[-*+]|\d{1,9}[.)])[ \t]*)*<(pre|script|style|textarea)(?![a-zA-Z0-9-])",
    re.MULTILINE | re.IGNORECASE,
)
_RAW_TEXT_ENDS = MappingProxyType(
    {
        name: re.compile(f"</{name}>", re.IGNORECASE)
        for name in ("pre", "script", "style", "textarea")
    }
)
# A block tag python-markdown keeps raw: after up to three characters of any white
# space, the name, then white space, `/` or `>` (its HTML parser takes `<div/v>`).
_PYTHON_MARKDOWN_TAG = re.compile(
    r"[^\S\n]{0,3}<([a-zA-Z][^\t\n\r\f />\x00]*)(?=[\s/>]|$)", re.MULTILINE
)
_INTERESTING = frozenset({"link_open", "image", "code_inline", "html_inline"})


@dataclass(frozen=True, slots=True)
class Where:
    """Where an inline token's content sits in the source."""

    offsets: OffsetMap
    base: int
    lines: tuple[int, int]
    content: str

    def span(self, pair: tuple[int, int] | None) -> tuple[int, int] | None:
        """Source offsets of a content span, or None when it cannot be placed."""
        if pair is None:
            return None
        start = self.offsets.to_source(self.base + pair[0])
        end = self.offsets.to_source(self.base + pair[1])
        if start is None or end is None or end < start:
            return None
        return start, end

    def inside(self, pair: tuple[int, int]) -> Where:
        """The Where of an image's alt text, parsed on its own from `pair[0]`."""
        content = self.content[pair[0] : pair[1]]
        return Where(self.offsets, self.base + pair[0], self.lines, content)


Maps = dict[int, Where]


@dataclass(frozen=True, slots=True)
class Marks:
    """What sweep 1 found: trusted code, raw HTML, definitions, offset maps."""

    code: Regions
    html: Regions
    # Where the reference definitions markdown-it read start (at their `[`).
    definitions: frozenset[int]
    maps: Maps


@dataclass(slots=True)
class _Sweep:
    """What sweep 1 reads and what it marks on the way."""

    source: SourceText
    trust: CodeTrust
    spans: SpanJudge
    code: Regions = field(default_factory=Regions)
    html: Regions = field(default_factory=Regions)
    # Where python-markdown keeps raw HTML: no code in it is trusted.
    raw: Regions = field(default_factory=Regions)
    # Where mistune keeps a raw-text element's HTML (`_RAW_TEXT`): nor there.
    raw_text: Regions = field(default_factory=Regions)

    def raw_at(self, pos: int) -> bool:
        """Is `pos` in raw HTML some renderer keeps as it stands?"""
        return pos in self.raw or pos in self.raw_text


def mark_regions(source: SourceText, tokens: list[Token], trust: CodeTrust) -> Marks:
    """Sweep 1 over the block tokens of `source`."""
    sweep = _Sweep(source, trust, SpanJudge(source, trust.healer))
    _add_raw_text(source, sweep.raw_text)
    maps: Maps = {}
    cursors: dict[int, int] = {}
    definitions: set[int] = set()
    depth = 0
    previous: Token | None = None
    for token in tokens:
        depth += _CONTAINER_DEPTH.get(token.type, 0)
        if token.map is None:
            pass
        elif token.type == "inline":
            _mark_inline_token(sweep, token, previous, maps, cursors)
        elif token.type in ("fence", "code_block"):
            block = source.block_span(*token.map)
            if (
                trust.covers(block[1])
                and not sweep.raw_at(source.starts[token.map[0]])
                and trusted_block(source, token, nested=depth > 0, raw=sweep.raw, trust=trust)
            ):
                sweep.code.add(*block)
        elif token.type == "html_block":
            add_raw_html_span(source, token, sweep.raw)
            _add_left_open(source, token, sweep.raw)
            if TAG_START.match(token.content):
                sweep.html.add(*source.block_span(*token.map))
        elif token.type == "definition":
            definitions.add(definition_start(source, token.map[0]))
        elif token.type in ("paragraph_open", "table_open"):
            # (a table's header row may start with a block tag python-markdown keeps raw)
            _add_raw_lines(source, token, sweep.raw)
        previous = token
    return Marks(code=sweep.code, html=sweep.html, definitions=frozenset(definitions), maps=maps)


def _add_left_open(source: SourceText, block: Token, raw: Regions) -> None:
    """Mark the raw HTML of a comment or processing-instruction block as mistune reads
    it (`_LEFT_OPEN`): no code in it is trusted."""
    if block.map is None:
        return
    start = source.starts[block.map[0]]
    opener = _LEFT_OPEN.match(source.text, start)
    if opener is None:
        return
    end = source.text.find(_LEFT_OPEN_ENDS[opener.group(1)], opener.end())
    raw.add(start, len(source.text) if end < 0 else source.line_end(source.line_of(end)))


def _add_raw_text(source: SourceText, raw: Regions) -> None:
    """Mark what mistune reads as a raw-text element's HTML block (`_RAW_TEXT`), to its
    closing tag or the end of the text, as raw HTML: no code in it is trusted."""
    text = source.text
    end = -1  # where the block found last ends: an opener inside it is in it
    for opener in _RAW_TEXT.finditer(text) if "<" in text else ():
        if opener.start() < end:
            continue
        close = _raw_text_end(opener.group(1)).search(text, opener.end())
        end = len(text) if close is None else source.line_end(source.line_of(close.start()))
        raw.add(opener.start(), end)


def _add_raw_lines(source: SourceText, paragraph: Token, raw: Regions) -> None:
    """Mark the lines of a paragraph another renderer reads as raw HTML: marko's
    declarations, python-markdown's block tags after white space CommonMark takes
    for text (`\xa0<details>`) or with what CommonMark refuses after the name
    (`<div/v>`), each to the end tag that balances it."""
    _add_declarations(source, paragraph, raw)
    assert paragraph.map is not None
    text = source.text
    end = -1
    for line in range(*paragraph.map):
        start = source.starts[line]
        tag = _PYTHON_MARKDOWN_TAG.match(text, start)
        if start < end or tag is None or tag.group(1).lower() not in RAW_BLOCK_TAGS:
            continue
        end = raw_block_end(text, tag.start(1) - 1, tag.group(1))
        raw.add(start, end)


def _raw_text_end(name: str) -> re.Pattern[str]:
    """What ends the raw-text element `name` (as `_RAW_TEXT` matched it, case folded:
    a long s before `cript` is a `script` to a case-insensitive reader)."""
    for element, end in _RAW_TEXT_ENDS.items():
        if re.fullmatch(element, name, re.IGNORECASE):
            return end
    return _RAW_TEXT_ENDS["script"]  # (not reached: `_RAW_TEXT` matches only these)


def _add_declarations(source: SourceText, paragraph: Token, raw: Regions) -> None:
    """Mark the lines of a paragraph that marko reads as a declaration's HTML block
    (`_DECLARATION`, to the first `>`) as raw HTML: no code in them is trusted."""
    assert paragraph.map is not None
    text = source.text
    end = -1  # the next `>` found so far: each is looked for once, however many lines
    for line in range(*paragraph.map):
        opener = _DECLARATION.match(text, source.starts[line])
        if opener is None:
            continue
        if end < opener.end():
            end = text.find(">", opener.end())
            if end < 0:
                raw.add(source.starts[line], len(text))
                return
        raw.add(source.starts[line], source.line_end(source.line_of(end)))


def definition_start(source: SourceText, line: int) -> int:
    """Where a definition starting on `line` starts: at its `[`."""
    return source.starts[line] + max(source.lines[line].find("["), 0)


def _mark_inline_token(
    sweep: _Sweep, token: Token, previous: Token | None, maps: Maps, cursors: dict[int, int]
) -> None:
    if token.map is None:
        return
    kind = previous.type if previous is not None else ""
    find = kind in _FIND_MODE
    if any(child.type in _INTERESTING for child in token.children or []):
        first = _first_content_line(sweep.source, token.map, token.content)
        offsets = OffsetMap(sweep.source, token.content, first, cursors if find else None)
        where = Where(offsets, 0, (token.map[0], token.map[1]), token.content)
        maps[id(token)] = where
        _mark_inline(sweep, token.children or [], where, in_table=kind in ("th_open", "td_open"))
    elif find:
        advance(sweep.source, token.content, token.map[0], cursors)


def _first_content_line(source: SourceText, lines: list[int], content: str) -> int:
    """The source line an inline token's content starts on. markdown-it-py strips a
    paragraph with `str.strip`, which drops leading lines of Unicode white space only
    (`\xa0`, which CommonMark keeps as text): the content starts below them."""
    first, end = lines[0], lines[1]
    dropped = (end - first) - (content.count("\n") + 1)
    while dropped > 0 and first < len(source.lines) and not source.lines[first].strip():
        first, dropped = first + 1, dropped - 1
    return first


def _mark_inline(sweep: _Sweep, children: list[Token], where: Where, *, in_table: bool) -> None:
    for child in children:
        if child.type in ("code_inline", "html_inline"):
            span = where.span(child.meta.get("span"))
            if span is None:
                continue
            if child.type == "html_inline":
                # Comments, declarations and processing instructions are read as text
                # by some renderers: their insides stay visible to the lexical pass.
                if TAG_START.match(child.content):
                    sweep.html.add(*span)
            elif (
                sweep.trust.trusts("span")
                and sweep.trust.covers(span[1])
                and not sweep.raw_at(span[0])
                and sweep.spans.trusted(*span, in_table=in_table)
            ):
                sweep.code.add(*span)
        elif child.type == "image" and child.children and "label_span" in child.meta:
            inner = where.inside(child.meta["label_span"])
            _mark_inline(sweep, child.children, inner, in_table=in_table)
