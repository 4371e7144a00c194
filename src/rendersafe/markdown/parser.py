"""A markdown-it-py parser that remembers where each inline construct came from.

markdown-it gives inline tokens no positions. The inline rules that matter to us
are wrapped so the token they push records `meta["span"]` (offsets into the inline
token's `content`), and links and images also record their label and destination.
`OffsetMap` then maps those content offsets back to offsets in the source text,
line by line, so edits can be spliced into the original reply.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import isStrSpace
from markdown_it.helpers import parseLinkDestination
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from ..engine.source import SourceText

__all__ = ["OffsetMap", "advance", "build_parser", "destination", "parse"]

InlineRule = Callable[[StateInline, bool], bool]

# Rules whose tokens we edit or must leave alone (code spans).
TRACKED_RULES = ("backticks", "link", "image", "autolink", "html_inline")


def build_parser() -> MarkdownIt:
    """CommonMark + GFM tables and strikethrough, every link-like construct kept.

    `validateLink` accepts everything so that `javascript:` links and `data:` images
    become tokens the policy can judge (other renderers do render them).
    """
    md = _Parser("commonmark", {"inline_definitions": True, "store_labels": True}).enable(
        ["table", "strikethrough"]
    )
    for rule in md.inline.ruler.__rules__:
        if rule.name in TRACKED_RULES:
            md.inline.ruler.at(rule.name, _tracked(rule.fn, rule.name))
    return md


class _Parser(MarkdownIt):
    """Keeps every destination as written; the judge decides about all of them."""

    def validateLink(self, url: str) -> bool:  # noqa: N802  (markdown-it names it)
        return True

    # The judge parses each URL the WHATWG way, as the browser will; mdurl's
    # percent-encoding first would only cost time (about 7% of a sanitise).
    def normalizeLink(self, url: str) -> str:  # noqa: N802
        return url

    def normalizeLinkText(self, link: str) -> str:  # noqa: N802
        return link


def parse(md: MarkdownIt, text: str, env: dict[str, Any]) -> list[Token]:
    """Parse `text` (already `\\n`-normalised) into block tokens.

    `env["references"]` may hold the definitions of earlier units, so uses here
    resolve as they would in the whole reply; markdown-it adds this text's own.
    """
    return md.parse(text, env)


def _tracked(fn: InlineRule, name: str) -> InlineRule:
    def rule(state: StateInline, silent: bool) -> bool:
        if silent:
            return fn(state, silent)
        start = state.pos
        # push() flushes pending text into a token first; that token is not ours.
        first = len(state.tokens) + (1 if state.pending else 0)
        if not fn(state, silent):
            return False
        tokens = state.tokens[first:]
        for token in tokens:
            token.meta.setdefault("span", (start, state.pos))
        if name in ("link", "image") and tokens:
            _record_parts(state, tokens[0], start, image=name == "image")
        return True

    return rule


def _record_parts(state: StateInline, token: Token, start: int, *, image: bool) -> None:
    """Record the label span.

    With `store_labels`, markdown-it itself puts the resolved reference label in
    `meta["label"]`, which is how references are told from inline links.
    """
    meta = token.meta
    if "label_span" in meta:
        return
    label_start = start + (2 if image else 1)
    label_end = state.md.helpers.parseLinkLabel(state, label_start - 1, not image)
    if label_end >= 0:
        meta["label_span"] = (label_start, label_end)


def destination(content: str, label_end: int) -> tuple[int, int] | None:
    """The span of an inline link's destination in `content`, after its label ends.

    Computed on demand (only the image proxy needs it), not for every link.
    """
    pos, end = label_end + 1, len(content)
    if pos >= end or content[pos] != "(":
        return None
    pos += 1
    while pos < end and (isStrSpace(content[pos]) or content[pos] == "\n"):
        pos += 1
    result = parseLinkDestination(content, pos, end)
    return (pos, result.pos) if result.ok else None


class OffsetMap:
    """Maps offsets in an inline token's `content` to offsets in the source.

    Each content line is the tail of a source line (container markers and
    indentation stripped). Headings and table cells are found by search from a
    per-line cursor; table cells may also lose the backslash of `\\|`.
    """

    __slots__ = ("_bases", "_leads", "_maps", "_starts")

    def __init__(
        self, source: SourceText, content: str, first_line: int, cursors: dict[int, int] | None
    ) -> None:
        self._starts: list[int] = []
        self._bases: list[int | None] = []
        self._leads: list[int] = []
        self._maps: list[list[int] | None] = []
        offset = 0
        for i, line in enumerate(content.split("\n")):
            core = line.lstrip(" \t")
            base, cols = _align(source, first_line + i, core, cursors)
            self._starts.append(offset)
            self._bases.append(base)
            self._leads.append(len(line) - len(core))
            self._maps.append(cols)
            offset += len(line) + 1

    def to_source(self, offset: int) -> int | None:
        """Source offset of content `offset`, or None when the line could not be aligned."""
        i = bisect.bisect_right(self._starts, offset) - 1
        base = self._bases[i]
        if base is None:
            return None
        col = max(offset - self._starts[i] - self._leads[i], 0)
        cols = self._maps[i]
        if cols is not None:
            return base + cols[min(col, len(cols) - 1)]
        return base + col


def advance(source: SourceText, content: str, first_line: int, cursors: dict[int, int]) -> None:
    """Move the per-line search cursors past `content` without building a map (a table
    cell or heading with nothing to edit, so later cells on the line are found right)."""
    for i, line in enumerate(content.split("\n")):
        _align(source, first_line + i, line.lstrip(" \t"), cursors)


def _align(
    source: SourceText, line_no: int, core: str, cursors: dict[int, int] | None
) -> tuple[int | None, list[int] | None]:
    if line_no >= len(source.lines):
        return None, None
    line = source.lines[line_no]
    start = source.starts[line_no]
    if not core:
        return start + len(line), None
    if cursors is None:
        trimmed = line.rstrip()
        if trimmed.endswith(core):
            return start + len(trimmed) - len(core), None
        cursors = {}
    cursor = cursors.get(line_no, 0)
    col = line.find(core, cursor)
    if col >= 0:
        cursors[line_no] = col + len(core)
        return start + col, None
    if "|" in core:
        escaped = core.replace("|", "\\|")
        col = line.find(escaped, cursor)
        if col >= 0:
            cursors[line_no] = col + len(escaped)
            return start + col, _pipe_columns(core)
    return None, None


def _pipe_columns(core: str) -> list[int]:
    cols: list[int] = []
    shift = 0
    for char in core:
        cols.append(len(cols) + shift)
        if char == "|":
            shift += 1
    cols.append(len(core) + shift)
    return cols
