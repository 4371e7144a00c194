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

import bisect
import re

from markdown_it.token import Token

from ..engine.healing import NOTHING_OPEN, HealerState, HealerView
from ..engine.regions import Regions
from ..engine.source import SourceText
from ..engine.trust import CodeTrust

__all__ = ["SpanJudge", "trusted_block"]

# python-markdown's fenced_code: `lang`, `.lang` or `{attributes}` after the fence.
_INFO = re.compile(r"\.?[\w#.+-]*|\{[^\n}]*\}")
_BACKTICKS = re.compile(r"`+")
# A line python-markdown takes out of a paragraph as a reference definition (an empty
# label too) before it reads code spans.
_PYTHON_MARKDOWN_DEFINITION = re.compile(r"[ ]{0,3}\[[^\[\]\n]*\]:")
# More backtick widths than this on one line: too many pairings to try, not trusted.
MAX_RUN_WIDTHS = 8
# More backtick runs than this in one block: too many readings to pair, not trusted.
_MOST_RUNS = 128
# A line of prose no renderer continues into an indented block after an empty line.
_PROSE_LINE = re.compile(r"[A-Za-z][^<>|`\n]*")
# A line that starts like a tag, in any container (mistune reads `- <div'>` as raw HTML).
# (Case-insensitive, as commonmark.py and marko read a tag's name: `<\u212a>`, a Kelvin
# sign, is a `<k>` to them.)
# Any indentation: mistune reads an indented tag line inside an empty list item as its
# HTML block, and takes the unindented line after it in too.
_TAG_LINE = re.compile(r"[^\S\n]*(?:(?:>|[-*+]|\d{1,9}[.)])[^\S\n]*)*</?[a-zA-Z]", re.IGNORECASE)
# What every renderer reads as white space, in Python's `\s` and JavaScript's alike (a
# URL runs on past `\x85` or `\x1c` in marked, past `\ufeff` in Python readers).
_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_BLANK = " \t"  # a blank line holds only these in every renderer
# What may swallow a backtick run, read before it: a URL as the most generous
# renderer reads it (linkify-it takes `<` and backticks inside brackets), a
# destination as python-markdown reads it (on to `)`, code spans included), a tag
# or declaration on to its `>` (python-markdown's `<!\n`>` after raw HTML), and
# mistune's strikethrough to whichever `~~` it ends at. Each is read on its own: a
# destination's `](https://a.b)` holds a URL that a GFM autolink reads on past the `)`.
_SWALLOWERS = (
    re.compile(rf"[a-z][\w+.-]*://[^{_SPACE}]*|www\.[^{_SPACE}]*", re.IGNORECASE),
    re.compile(r"\]\([^)\n]*"),
    re.compile(r"<[!?/a-zA-Z][^>]*>"),
    re.compile(r"~~(?=\S)[\s\S]*\S~~"),
)


def trusted_block(
    source: SourceText, token: Token, *, nested: bool, raw: Regions, trust: CodeTrust
) -> bool:
    """Is this fence or indented code block code in every renderer, and may the
    pass trust it? (An indented block with nothing before it in the text may
    continue something before the text, unless `trust` says nothing is there.)"""
    if not trust.trusts("block") or token.map is None or nested:
        return False
    if source.starts[token.map[0]] in raw:
        return False
    first, end = token.map[0], min(token.map[1], len(source.lines))
    if token.type == "fence":
        return _canonical_fence(source.lines[first:end], token.markup)
    if token.type == "code_block":
        lines = source.lines[first:end]
        # A tab, or any white space but a space, in the indentation: renderers measure
        # it apart (marko takes `\x0c` for white space and the line out of the block).
        odd = any(line[: len(line) - len(line.lstrip())].strip(" ") for line in lines)
        return not odd and _stands_alone(source, first, trust)
    return False


def _canonical_fence(lines: tuple[str, ...], markup: str) -> bool:
    """A fence python-markdown reads too: its info after spaces only, its closing line
    the opening's markup and spaces (python-markdown takes no other white space); and
    no line inside it that a reader stripping any white space would close it at
    (marko closes at ```` ``` ```` and `\xa0`)."""
    return (
        len(lines) >= 2
        and lines[0].startswith(markup)
        and _INFO.fullmatch(lines[0][len(markup) :].strip(" ")) is not None
        and lines[-1].rstrip(" ") == markup
        and not any(_may_close(line, markup) for line in lines[1:-1])
    )


def _may_close(line: str, markup: str) -> bool:
    """Could `line` close a fence of `markup` for a reader that strips any white space?"""
    run = line.strip()
    return len(run) >= len(markup) and run == markup[0] * len(run)


def _stands_alone(source: SourceText, first: int, trust: CodeTrust) -> bool:
    """An indented block after an empty line, and after a block of plain prose lines
    only. python-markdown, mistune and marko join an indented block to what stands
    before it in more ways than a model of them kept up with: a list item, a
    definition, an abbreviation, a footnote, a table, a line after a comment, a
    "blank" line of five spaces (mistune). Prose (a letter first; no tag, pipe or
    backtick) is the one block they all end at an empty line."""
    lines = source.lines
    if first > 0 and lines[first - 1].rstrip("\r\n"):
        return False
    previous = first - 1
    while previous >= 0 and not lines[previous].rstrip("\r\n"):
        previous -= 1
    if previous < 0:
        return trust.trusts("opening_block")
    while previous >= 0 and lines[previous].rstrip("\r\n"):
        if _PROSE_LINE.fullmatch(lines[previous].rstrip("\r\n")) is None:
            return False
        previous -= 1
    # A block running to the text's start may have begun before it (a forced cut in a
    # list item's line or its lazy lines): only where nothing can be there.
    return previous >= 0 or trust.trusts("opening_block")


class SpanJudge:
    """Decides whether code spans are code for every renderer, caching per text block."""

    def __init__(self, source: SourceText, healer: HealerState = NOTHING_OPEN) -> None:
        self._source = source
        self._healed = HealerView(source.text, healer)
        self._pairs: dict[int, frozenset[tuple[int, int]] | None] = {}
        self._blocks: dict[int, tuple[int, int]] = {}

    def trusted(self, start: int, end: int, *, in_table: bool) -> bool:
        """A one-line span outside a table, whose backtick runs are still a pair when
        the runs of the whole text block are paired in order. Another renderer may
        end the paragraph elsewhere (pairing across a line markdown-it made code or a
        heading), pair across table cells, or pair an unmatched run differently.

        Nor in a block with a line that starts like a tag (mistune reads `<div'>` as
        raw HTML, code spans and all), nor where a URL or strikethrough read first
        would pair the runs otherwise (see `_pairs`); nor one a healing renderer
        may leave open at a prefix (`HealerView.closes`)."""
        if in_table or "\n" in self._source.text[start:end]:
            return False
        line = self._source.line_of(start)
        if line not in self._blocks:
            self._blocks[line] = self._block(line)
        first, last = self._blocks[line]
        if first not in self._pairs:
            self._pairs[first] = _pairs(self._source, first, last)
        pairs = self._pairs[first]
        return pairs is not None and (start, end) in pairs and self._healed.closes(start, end)

    def _block(self, line: int) -> tuple[int, int]:
        """The lines around `line` up to the nearest blank lines: any renderer's paragraph."""
        lines = self._source.lines
        first = last = line
        while first > 0 and lines[first - 1].strip(_BLANK):
            first -= 1
        while last + 1 < len(lines) and lines[last + 1].strip(_BLANK):
            last += 1
        return first, last


def _pairs(source: SourceText, first: int, last: int) -> frozenset[tuple[int, int]] | None:
    """The code spans of lines first..last, read as one, if every renderer pairs them.

    CommonMark pairs backtick runs in order; python-markdown pairs the first
    backticks of a longer run too (the spans both agree on are kept). marked and
    mistune read left to right, and a URL, a tag or a `~~` that starts outside code
    swallows the runs inside it, up to an end each renderer puts elsewhere: None
    when a run may be swallowed, when a run is left unpaired (python-markdown then
    splits it and pairs anew), or when a line starts like a tag.
    """
    if any(_TAG_LINE.match(source.lines[i]) for i in range(first, last + 1)):
        return None
    start, end = source.starts[first], source.line_end(last)
    runs = list(_BACKTICKS.finditer(source.text, start, end))
    swallowers = sorted(
        (m.start(), m.end())
        for pattern in _SWALLOWERS
        for m in pattern.finditer(source.text, start, end)
    )
    if any(run.start() > 0 and source.text[run.start() - 1] == "\\" for run in runs):
        # An escaped backtick opens nothing, but python-markdown closes a span with it,
        # and pairs the runs after it otherwise (over a line a list marker starts).
        return None
    pairs = _pair_runs(runs)
    if pairs is None or _swallowed(runs, pairs, swallowers):
        return None
    agreed = _python_markdown_pairs(runs, source.text)
    return None if agreed is None else pairs & agreed


def _python_markdown_pairs(
    runs: list[re.Match[str]], text: str
) -> frozenset[tuple[int, int]] | None:
    """Code spans as python-markdown's regex finds them: the opener is the first k
    backticks of a run, k as large as can close, the closer the next run of exactly k.
    Its pattern reads across the lines of a paragraph, and this block's lines may not
    all be one (an indented code line or a heading before it is not in it), and it
    takes the lines it reads as reference definitions out first (`[]:``` ` too): a
    span is kept only where every reading agrees, one line at a time, and from each
    line before it that may start the paragraph, with and without its definition
    lines. None when there are too many widths or runs to try."""
    agreed = _by_line(runs, text)
    if agreed is None or len(runs) > _MOST_RUNS:
        return None
    kept = [run for run in runs if not _on_definition_line(text, run.start())]
    for reading in (runs, kept) if len(kept) != len(runs) else (runs,):
        starts = _from_each_line(reading, text)
        if starts is None:
            return None
        agreed = {
            pair
            for pair in agreed
            if all(pair in pairs for start, pairs in starts if start <= pair[0])
        }
    return frozenset(agreed)


def _from_each_line(
    runs: list[re.Match[str]], text: str
) -> list[tuple[int, set[tuple[int, int]]]] | None:
    """The pairs of `runs` read from each line that holds one on (where the line's
    first run starts, and its pairs); None when a reading has too many widths."""
    found = []
    for i, run in enumerate(runs):
        if i and "\n" not in text[runs[i - 1].end() : run.start()]:
            continue
        pairs: set[tuple[int, int]] = set()
        if not _pair_line(runs[i:], pairs):
            return None
        found.append((run.start(), pairs))
    return found


def _by_line(runs: list[re.Match[str]], text: str) -> set[tuple[int, int]] | None:
    """The pairs of each line's runs, paired within the line."""
    pairs: set[tuple[int, int]] = set()
    line: list[re.Match[str]] = []
    for run in runs:
        if line and "\n" in text[line[-1].end() : run.start()]:
            if not _pair_line(line, pairs):
                return None
            line = []
        line.append(run)
    return pairs if _pair_line(line, pairs) else None


def _on_definition_line(text: str, pos: int) -> bool:
    """Is `pos` on a line python-markdown reads as a reference definition?"""
    return _PYTHON_MARKDOWN_DEFINITION.match(text, text.rfind("\n", 0, pos) + 1) is not None


def _pair_line(line: list[re.Match[str]], pairs: set[tuple[int, int]]) -> bool:
    at: dict[int, list[int]] = {}
    for index, run in enumerate(line):
        at.setdefault(len(run.group()), []).append(index)
    if len(at) > MAX_RUN_WIDTHS:
        return False
    widths = sorted(at, reverse=True)
    i = 0
    while i < len(line):
        width, closer = len(line[i].group()), -1
        for k in widths:
            later = bisect.bisect_right(at[k], i)
            if k <= width and later < len(at[k]):
                closer = at[k][later]
                break
        if closer >= 0:
            pairs.add((line[i].start(), line[closer].end()))
            i = closer + 1
        else:
            i += 1
    return True


def _pair_runs(runs: list[re.Match[str]]) -> frozenset[tuple[int, int]] | None:
    """Pair runs of equal width in order; None if a run is left unpaired."""
    pairs: set[tuple[int, int]] = set()
    i = 0
    while i < len(runs):
        width = len(runs[i].group())
        closer = next((j for j in range(i + 1, len(runs)) if len(runs[j].group()) == width), -1)
        if closer < 0:
            return None
        pairs.add((runs[i].start(), runs[closer].end()))
        i = closer + 1
    return frozenset(pairs)


def _swallowed(
    runs: list[re.Match[str]], pairs: frozenset[tuple[int, int]], swallowers: list[tuple[int, int]]
) -> bool:
    """Does a swallower that starts outside every code span hold a backtick run?

    Swallowers may overlap, and which one a renderer reads first differs: each is
    taken on its own."""
    spans = sorted(pairs)
    span_starts = [span[0] for span in spans]
    run_starts = [run.start() for run in runs]
    for start, end in swallowers:
        i = bisect.bisect_right(span_starts, start) - 1
        if i >= 0 and start < spans[i][1]:
            continue  # inside code: markdown reads the code span first
        k = bisect.bisect_right(run_starts, start)
        if k < len(run_starts) and run_starts[k] < end:
            return True
    return False
