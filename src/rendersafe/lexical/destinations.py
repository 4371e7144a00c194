"""python-markdown's reading of an inline destination, which may span lines.

`LinkInlineProcessor.getLink` scans from `(` to the `)` that balances it across the
newlines of one paragraph, reads a title from the first quote on, and closes at a
`)` right after a closing quote. It keeps the newlines, and the browser's URL parser
strips them: `![s](ht` NEWLINE `tps://e.example/x.png)` fetches. `PythonMarkdown`
indexes a text once, so each reading costs a few bisections however hostile the
text (python-markdown itself rescans the paragraph for every `(`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

__all__ = ["PythonMarkdown", "joined"]

# Escaped parens are placeholders by the time python-markdown pairs parens.
_PAREN = re.compile(r"\\.|[()]", re.DOTALL)
_QUOTE = re.compile(r"""["']""")
# Tabs are spaces to python-markdown (it expands them) and do not hide a quote.
_QUOTE_CLOSE = re.compile(r"""["'][ \t]*\)""")
_BLANK_LINE = re.compile(r"\n[ \t>]*+(?=\n|\Z)")
_OPEN = re.compile(r"\(\s*")
# `(<...> "title")`: python-markdown's `<[^<>]*>`, over the quote markers it removed.
_ANGLE = re.compile(
    r"""<((?:[^<>\n]|\n(?>(?:[ ]{0,3}>[ ]?)*))*+)>\s*(?:(?:'[^']*'|"[^"]*")\s*)?\)"""
)

# What python-markdown removed from a continuation line before it read the line:
# quote markers, and a list item's indentation.
_JOINS = (
    re.compile(r"\n(?>(?:[ ]{0,3}>[ ]?)*)"),
    re.compile(r"\n(?>(?:[ ]{0,3}>[ ]?)*)(?: {1,4}|\t)?"),
)


def joined(written: str) -> list[str]:
    """A URL written over several lines, as python-markdown may have joined them
    (the browser then strips the newlines it kept)."""
    if "\n" not in written:
        return [written.strip()]
    return list(dict.fromkeys(join.sub("\n", written).strip() for join in _JOINS))


@dataclass(frozen=True, slots=True)
class PythonMarkdown:
    """A text's parens, quotes and paragraph ends, found once.

    >>> PythonMarkdown.index("![s](ht\\ntps://e.example/x.png)").destination(5, 4096)
    ('ht\\ntps://e.example/x.png', 30)
    """

    text: str
    parens: list[int]
    # opens minus closes among parens[:i]
    depths: list[int]
    # each `(` and the `)` that balances it
    closes: dict[int, int]
    quotes: list[int]
    # a quote followed by spaces and `)`: where the quote is, and where the `)` is
    quote_closes: list[int]
    quote_parens: list[int]
    blank_lines: list[int]

    @classmethod
    def index(cls, text: str) -> PythonMarkdown:
        """Index `text` for `destination`."""
        parens = [m.start() for m in _PAREN.finditer(text) if m.end() - m.start() == 1]
        depths, closes, stack = [0], {}, []
        for pos in parens:
            opens = text[pos] == "("
            depths.append(depths[-1] + (1 if opens else -1))
            if opens:
                stack.append(pos)
            elif stack:
                closes[stack.pop()] = pos
        quote_closes = list(_QUOTE_CLOSE.finditer(text))
        return cls(
            text,
            parens,
            depths,
            closes,
            [m.start() for m in _QUOTE.finditer(text)],
            [m.start() for m in quote_closes],
            [m.end() - 1 for m in quote_closes],
            [m.start() for m in _BLANK_LINE.finditer(text)],
        )

    def destination(self, pos: int, limit: int) -> tuple[str, int] | None:
        """The destination python-markdown reads after the `(` at `pos - 1`, as
        written (newlines and quote markers kept), and where the construct ends.

        None when python-markdown reads no link. A destination is read up to
        `limit` at most (one that long is too long already).
        """
        found = self.span(pos, limit)
        return None if found is None else (self.text[found[0] : found[1]], found[2])

    def span(self, pos: int, limit: int) -> tuple[int, int, int] | None:
        """Where the destination `destination` reads starts and ends, and where the
        construct ends."""
        text = self.text
        blank = bisect_left(self.blank_lines, pos)
        end = self.blank_lines[blank] if blank < len(self.blank_lines) else len(text)
        start = _OPEN.match(text, pos - 1, end)
        if start is None:
            return None
        angle = _ANGLE.match(text, start.end(), min(end, limit))
        if angle is not None:
            return angle.start(1), angle.end(1), angle.end()
        found = self._scan(pos - 1, start.end(), end)
        if found is None:
            return None
        href_end, close = found
        return start.end(), max(start.end(), min(href_end, limit)), close

    def _scan(self, open_pos: int, start: int, end: int) -> tuple[int, int] | None:
        """Where the href ends and the construct closes, as getLink finds them."""
        quote = self._first(self.quotes, start, end)
        close = self.closes.get(open_pos, end)
        if close < end and (quote < 0 or close < quote):
            return close, close + 1
        return None if quote < 0 else self._title(open_pos, quote, end)

    def _title(self, open_pos: int, quote: int, end: int) -> tuple[int, int] | None:
        """From the first quote on, getLink closes at a `)` right after a quote
        that closes a title; failing that, at its backup `)`."""
        text = self.text
        alt = text.find("'" if text[quote] == '"' else '"', quote + 1, end)
        i = bisect_right(self.quote_closes, quote)
        while i < len(self.quote_closes) and self.quote_parens[i] < end:
            at = self.quote_closes[i]
            if text[at] == text[quote]:
                return quote, self.quote_parens[i] + 1
            if at > alt:  # a second quote of the other kind closes the title too
                return alt, self.quote_parens[i] + 1
            i += 1
        return self._backup(open_pos, quote, end)

    def _backup(self, open_pos: int, quote: int, end: int) -> tuple[int, int] | None:
        """getLink counts down the parens still open at the quote, over every paren
        after it; at the paren that reaches zero it ends (a `(` there leaves its
        backup end unset, and it reads to the end of the paragraph)."""
        first = bisect_left(self.parens, quote)
        opened = bisect_left(self.parens, open_pos) + 1
        still_open = self.depths[first] - self.depths[opened] + 1
        at = first + still_open - 1
        if at >= len(self.parens) or self.parens[at] >= end:
            return None
        paren = self.parens[at]
        if self.text[paren] == ")":
            return paren, paren + 1
        return end - 2, end

    @staticmethod
    def _first(offsets: list[int], start: int, end: int) -> int:
        i = bisect_left(offsets, start)
        return offsets[i] if i < len(offsets) and offsets[i] < end else -1
