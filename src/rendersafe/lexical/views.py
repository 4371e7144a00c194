"""The text as python-markdown and commonmark.py read it before they pair brackets.

markdown-it's trusted code is code to every renderer; a code span it does not trust
is code to some. python-markdown (3.11) pairs a backtick run with the next run of
its width or, failing one, with the longest run after it when that is shorter
(`` ``x` `` is the code `` `x ``); commonmark.py pairs runs of one width in order.
A `[`, `]` or `)` a renderer reads inside code is none to it: `![``[[]`](u)` is an
image of `u` to python-markdown, which reads a code span in a destination as its
text (`[](``javascript:``)`). Before any of that, python-markdown moves what
follows raw HTML on its line out of the way (`moved_after_raw_html`). A `View` is
one renderer's reading: the text with what it moved deleted, and its code spans.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

from ..engine.regions import Regions
from ..markdown.python_markdown import moved_after_raw_html

__all__ = ["Span", "View", "views", "without_definitions"]

_BACKTICKS = re.compile(r"`+")
# A line no code span reaches across: blank, or a heading or fence line of its own;
# to python-markdown, a reference definition too (it takes them out of the paragraph
# before it reads code spans).
_LINE = r"[ \t]*|[ ]{0,3}(?:#{1,6}(?:[ \t].*)?|`{3,}.*|~{3,}.*)"
_BOUNDARY = re.compile(rf"^(?:{_LINE})$", re.M)
_PYTHON_MARKDOWN_BOUNDARY = re.compile(rf"^(?:{_LINE}|[ ]{{0,3}}\[[^\[\]\n]*\]:.*)$", re.M)
_DEFINITION_LINE = re.compile(r"^[ ]{0,3}\[[^\[\]\n]*\]:.*\n?", re.M)
# A code span: where it starts and ends, and where its content does.
Span = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class View:
    """One renderer's reading of a text: what it reads, and its code spans.

    >>> view = views("<!---->![a]&x;(u)", Regions())[0]
    >>> view.text, view.source(11), view.source_end(14)
    ('<!---->![a](u)', 14, 17)
    """

    renderer: Literal["python-markdown", "commonmark.py"]
    text: str
    spans: tuple[Span, ...]
    # Where each piece of the source kept in `text` starts, in `text` and in the source.
    starts: tuple[int, ...]
    sources: tuple[int, ...]

    def source(self, pos: int) -> int:
        """The offset in the source of the character at `pos`."""
        i = bisect.bisect_right(self.starts, pos) - 1
        return self.sources[i] + pos - self.starts[i]

    def source_end(self, end: int) -> int:
        """The offset in the source where a range of the view ending at `end` ends."""
        return self.source(end - 1) + 1 if end > 0 else self.source(0)

    def code(self) -> Regions:
        """The code spans, as regions of `text`."""
        regions = Regions()
        for start, end, _content, _content_end in self.spans:
            regions.add(start, end)
        return regions

    def masked(self) -> str:
        """The text with its code spans blanked out: python-markdown pairs the parens
        and quotes of a destination outside them."""
        out, pos = [], 0
        for start, end, _content, _content_end in self.spans:
            out += [self.text[pos:start], "_" * (end - start)]
            pos = end
        return "".join([*out, self.text[pos:]])

    def read(self, start: int, end: int) -> str:
        """text[start:end] with each code span in it read as its text, as python-markdown
        reads a destination."""
        i = bisect.bisect_left(self.spans, (start,))
        out, pos = [], start
        while i < len(self.spans) and self.spans[i][1] <= end:
            span = self.spans[i]
            out += [self.text[pos : span[0]], self.text[span[2] : span[3]].strip()]
            pos, i = span[1], i + 1
        return "".join([*out, self.text[pos:end]])


def views(text: str, trusted: Regions) -> tuple[View, ...]:
    """python-markdown's and commonmark.py's views of `text`, where they read code
    other than `trusted` (markdown-it's trusted code) or python-markdown moves text."""
    found = []
    moved = moved_after_raw_html(text)
    # A definition splits a paragraph, but in a tight list item python-markdown
    # joins what was around it: read both.
    definitions = []
    if "]:" in text:  # every definition holds one: most texts are skipped in C
        definitions = [(m.start(), m.end()) for m in _DEFINITION_LINE.finditer(text)]
    for deleted in (moved, _union(moved, definitions)) if definitions else (moved,):
        seen, starts, sources = _deleted(text, deleted)
        pm = View("python-markdown", seen, (), starts, sources)
        pm = View(pm.renderer, seen, _spans(pm, trusted, python_markdown=True), starts, sources)
        if deleted or any(span[0] not in trusted for span in pm.spans):
            found.append(pm)
    if "`" in text:
        cm = View("commonmark.py", text, (), (0,), (0,))
        cm = View(cm.renderer, text, _spans(cm, trusted, python_markdown=False), (0,), (0,))
        if any(span[0] not in trusted for span in cm.spans):
            found.append(cm)
    return tuple(found)


def without_definitions(text: str) -> View | None:
    """`text` with the lines python-markdown reads as reference definitions taken out,
    and nothing else: what its extensions read where it does not set raw HTML aside (a
    definition list's `: ` holds blocks); None when there are none."""
    if "]:" not in text:
        return None
    definitions = [(m.start(), m.end()) for m in _DEFINITION_LINE.finditer(text)]
    if not definitions:
        return None
    seen, starts, sources = _deleted(text, definitions)
    return View("python-markdown", seen, (), starts, sources)


def _union(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ranges of `a` and `b` (each in order), merged where they overlap."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(a + b):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _deleted(
    text: str, moved: list[tuple[int, int]]
) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """`text` less the `moved` ranges, and where each piece left starts in it and in `text`."""
    pieces, pos = [], 0
    for start, end in moved:
        pieces.append((pos, start))
        pos = end
    pieces.append((pos, len(text)))
    starts, at = [], 0
    for start, end in pieces:
        starts.append(at)
        at += end - start
    seen = "".join(text[start:end] for start, end in pieces)
    return seen, tuple(starts), tuple(start for start, _end in pieces)


def _spans(view: View, trusted: Regions, *, python_markdown: bool) -> tuple[Span, ...]:
    """The code spans of the view, block by block, outside trusted code."""
    text, spans = view.text, []
    for start, end in _blocks(text, python_markdown=python_markdown):
        runs = [
            (m.start(), m.end())
            for m in _BACKTICKS.finditer(text, start, end)
            if view.source(m.start()) not in trusted
        ]
        if len(runs) > 1:
            spans += _pair(text, runs, python_markdown=python_markdown)
    return tuple(spans)


def _blocks(text: str, *, python_markdown: bool) -> list[tuple[int, int]]:
    """The stretches of text a code span may run across."""
    blocks, start = [], 0
    boundary = _PYTHON_MARKDOWN_BOUNDARY if python_markdown else _BOUNDARY
    for line in boundary.finditer(text):
        blocks += [(start, line.start()), (line.start(), line.end())]
        start = line.end()
    return [*blocks, (start, len(text))]


def _pair(text: str, runs: list[tuple[int, int]], *, python_markdown: bool) -> list[Span]:
    """Pair the backtick runs of one block, left to right. A run's closer is the next
    run of its width; to python-markdown, failing one, the first of the longest runs
    after it, if shorter. Each run's closer depends only on the runs after it, so one
    sweep from the right finds them all."""
    closer, widths = [-1] * len(runs), [0] * len(runs)
    nearest: dict[int, int] = {}
    longest = 0
    for i in range(len(runs) - 1, -1, -1):
        start, end = runs[i]
        widths[i] = width = end - start - _escaped(text, start)
        if width in nearest:
            closer[i] = nearest[width]
        elif python_markdown and 0 < longest < width:
            closer[i] = nearest[longest]
        nearest[end - start] = i
        longest = max(longest, end - start)
    spans, i = [], 0
    while i < len(runs):
        j = closer[i]
        if j < 0 or widths[i] == 0:
            i += 1
            continue
        opener = runs[i][1] - widths[i]
        close_width = runs[j][1] - runs[j][0]
        spans.append((opener, runs[j][1], opener + close_width, runs[j][0]))
        i = j + 1
    return spans


def _escaped(text: str, start: int) -> int:
    """1 when the run's first backtick is escaped (an odd run of backslashes before it)."""
    slashes = 0
    while start - slashes - 1 >= 0 and text[start - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2
