"""HTML-like spans interleaved with brackets: renderers that end them differently
pair the brackets differently.

A comment, processing instruction, declaration, CDATA section or tag hides the
brackets inside it from a CommonMark renderer, and not from python-markdown,
marked or mistune's link text. Where it ends is not agreed either: the 0.31 spec
(markdown-it JS, commonmark.js, micromark, mistune) ends `<!--]<!--->` at its
`-->`, markdown-it-py 4 and commonmark.py do not read it as a comment at all. So
in `![a<!--]<!--->](u)` one renderer sees an image of `u` that the other readings,
the ones judged, do not. The lexical pass pairs brackets with every span
transparent; when a span, read as long as any renderer reads it, holds a bracket
whose pair lies outside it, the readings disagree, and the span loses its `<`:
then every renderer pairs the brackets as the judged readings do. Brackets that
pair up inside a span (`<!-- [a](b) -->`, `<a title="[1]">`) change nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator

from markdown_it.common.html_re import open_tag

from ..engine.edits import Edit
from ..engine.regions import Regions
from ..engine.state import Pass
from ..findings import Action, Construct, Reason
from .brackets import BracketIndex
from .decide import WINDOW

__all__ = ["interleaved_spans"]

_OPENER = re.compile(r"<(?:!--|\?|!\[CDATA\[|![A-Za-z]|[A-Za-z])")
_OPEN_TAG = re.compile(open_tag)
# What ends each kind of span, searched from after its opener (the longest reading:
# `<!-->` and `<!--->` hold no bracket, so the 0.31 short forms can be left out).
_CLOSERS = {"<!--": "-->", "<?": "?>", "<![CDATA[": "]]>"}
_DECLARATION_END = ">"


def interleaved_spans(ps: Pass, code: Regions, index: BracketIndex) -> None:
    """Escape the `<` of every span outside `code` that holds a bracket paired outside it."""
    if not index.live or "<" not in ps.source.text:
        return
    depth = _Depths(index)
    for start, end in _spans(ps.source.text, index.live):
        if start in code or start in ps.claimed or not depth.straddled(start, end):
            continue
        ps.change(
            Edit(start, start + 1, ("&lt;",)),
            Construct.HTML,
            Action.NEUTRALISED,
            (Reason.MALFORMED_HTML,),
            detail="html span interleaved with brackets: renderers pair them differently",
            detector="lexical",
        )


def _spans(text: str, live: tuple[int, ...]) -> Iterator[tuple[int, int]]:
    """Each HTML-like span [start, end) with a live bracket inside, at its longest."""
    closes = {
        closer: [m.start() for m in re.finditer(f"(?={re.escape(closer)})", text)]
        for closer in {*_CLOSERS.values(), _DECLARATION_END}
    }
    for found in _OPENER.finditer(text):
        start, opener = found.start(), found.group()
        first = bisect_right(live, start)
        if first == len(live):
            return  # no bracket after this span's start, nor after any later one
        if opener[1:2].isalpha():
            tag = _OPEN_TAG.match(text, start, start + WINDOW)
            end = tag.end() if tag else -1
        else:
            closer = _CLOSERS.get(opener, _DECLARATION_END)
            at = closes[closer]
            i = bisect_left(at, found.end())
            end = at[i] + len(closer) if i < len(at) else -1
        if end > start and live[first] < end:
            yield start, end


class _Depths:
    """How many bracket pairs are open around each live bracket, with the nearest
    shallower bracket on each side: whether a span cuts a pair is then two lookups."""

    def __init__(self, index: BracketIndex) -> None:
        opens = {b.open for b in index.pairs}
        closes = {b.close for b in index.pairs}
        self.live = index.live
        depths, depth = [], 0
        for pos in index.live:
            depth += (pos in opens) - (pos in closes)
            depths.append(depth)
        self.depths = depths
        self.next_lower = _nearest_lower(depths, reversed(range(len(depths))), len(depths))
        self.prev_lower = _nearest_lower(depths, iter(range(len(depths))), -1)

    def straddled(self, start: int, end: int) -> bool:
        """Does a pair have one bracket inside (start, end) and the other outside?"""
        first, last = bisect_right(self.live, start), bisect_left(self.live, end) - 1
        if last < first:
            return False
        # A pair open at `start` closes inside: the depth drops below its level there.
        if first > 0 and self.next_lower[first - 1] <= last:
            return True
        # A pair opened inside is still open at `end`: the depth was lower before it.
        if first == 0:
            return self.depths[last] > 0 or self.prev_lower[last] >= 0
        return self.prev_lower[last] >= first - 1


def _nearest_lower(depths: list[int], order: Iterator[int], missing: int) -> list[int]:
    """For each index, the nearest index in the direction `order` runs from where
    the depth is lower (`missing` when there is none)."""
    found = [missing] * len(depths)
    stack: list[int] = []
    for i in order:
        while stack and depths[stack[-1]] >= depths[i]:
            stack.pop()
        found[i] = stack[-1] if stack else missing
        stack.append(i)
    return found
