"""Brackets outside code: found once, paired as CommonMark and as mistune pair them,
and as python-markdown and commonmark.py pair them in their views of the text (their
code spans, what python-markdown moves); indexed by the labels images use; and what
a reference use may resolve to."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass

from ..engine.regions import Regions
from ..engine.source import SourceText
from ..markdown.labels import label_keys
from ..urls import INVISIBLE
from .views import View, views

__all__ = [
    "Bracket",
    "BracketIndex",
    "Pairing",
    "dangling_images",
    "first_closes",
    "index_brackets",
    "open_openers",
    "usage",
]

_BRACKET = re.compile(r"\\.|[\[\]]", re.DOTALL)
# What may stand between a reference's two labels: spaces and a line end, or (to
# python-markdown, `\s?`) one character of any white space (`\xa0`, `\x85`).
_BETWEEN_LABELS = re.compile(r"[^\S\n](?=\[)|[ \t]*\n?[ \t]*")
_TAG_NAME = re.compile(r"[a-zA-Z]")
_TAG_START = re.compile(r"<[a-zA-Z]")
# A tag's body as a browser reads it, up to its `>` or to where a quote is not closed.
_TAG_BODY = re.compile(r"""(?:[^>"']+|"[^"]*"|'[^']*')*""")
_MOST_QUOTED = 4
# After `(` and a destination (`<...>`, or a run up to white space), white space (one
# line break at most), an optional title, then `[`: commonmark.py's image of the
# reference that follows.
_OPEN_DESTINATION = re.compile(r"\([ \t]*\n?[ \t]*(<[^<>\n]*>)?")
# White space is taken whole (atomic): nothing after it starts with white space, and
# splitting a run of it two ways cost its length squared.
_GAP = r"(?>(?:[ \t]+\n?|\n)[ \t]*)"
_DANGLING = re.compile(rf"""(?:{_GAP}(?:(?:"[^"]*"|'[^']*'|\([^)]*\))(?:{_GAP})?)?)?\[""")
_WHITE = re.compile(r"\s")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True, slots=True)
class Bracket:
    """A `[...]` pair outside code; `bang` is the `!` of an image, else -1."""

    open: int
    close: int
    bang: int

    @property
    def anchor(self) -> int:
        """Where the construct starts."""
        return self.bang if self.bang >= 0 else self.open


@dataclass(frozen=True, slots=True)
class BracketIndex:
    """The brackets of a text outside code, found once for every step that reads them."""

    # Offsets of the `[` and `]` outside code and not escaped, in order.
    live: tuple[int, ...]
    # `[...]` pairs as CommonMark nests them, by opening offset.
    pairs: list[Bracket]
    # `[`s with no `]` by the end of the text.
    open_brackets: tuple[int, ...]
    # The first offset at which an image used each label (-1: an earlier unit).
    image_uses: ImageUses
    # The brackets as renderers that read other code pair them.
    pairings: tuple[Pairing, ...] = ()


class ImageUses(Mapping[str, int]):
    """Where images first use each label: -1 for the labels `carried` (used by
    images in earlier units), else the offset of this text's first use."""

    def __init__(self, carried: Collection[str], here: dict[str, int]) -> None:
        self.carried = carried
        # This text's labels that earlier units did not use.
        self.here = {key: at for key, at in here.items() if key not in carried}

    def __getitem__(self, key: str) -> int:
        return -1 if key in self.carried else self.here[key]

    def __contains__(self, key: object) -> bool:
        return key in self.here or key in self.carried

    def __iter__(self) -> Iterator[str]:
        yield from self.carried
        yield from self.here

    def __len__(self) -> int:
        return len(self.carried) + len(self.here)


@dataclass(frozen=True, slots=True)
class Pairing:
    """Brackets as one renderer pairs them in its view of the text (offsets the view's)."""

    view: View
    pairs: list[Bracket]
    # commonmark.py's images of the reference after an unclosed destination.
    dangling: list[Bracket]

    def in_source(self, bracket: Bracket) -> Bracket:
        """`bracket` at its offsets in the source."""
        source = self.view.source
        bang = source(bracket.bang) if bracket.bang >= 0 else -1
        return Bracket(source(bracket.open), source(bracket.close), bang)


def index_brackets(source: SourceText, code: Regions, carried: Collection[str]) -> BracketIndex:
    """Pair up the brackets outside `code`, and index the first image-style use of
    each label (the labels in `carried` were used by images in earlier units)."""
    text = source.text
    live = tuple(_live_brackets(text, code))
    pairs, stack = _pair(text, live)
    image_uses: dict[str, int] = {}
    for bracket in [*pairs, *dangling_images(text, pairs), *_first_closes(text, live, pairs)]:
        if bracket.bang >= 0:
            for key in usage(text, bracket, pairs)[0]:
                image_uses.setdefault(key, bracket.bang)
    pairings = tuple(_pairing(view, code) for view in views(text, code))
    for pairing in pairings:
        seen = pairing.view.text
        for bracket in [*pairing.pairs, *pairing.dangling]:
            if bracket.bang >= 0:
                at = pairing.view.source(bracket.bang)
                for key in usage(seen, bracket, pairing.pairs)[0]:
                    image_uses[key] = min(image_uses.get(key, at), at)
    return BracketIndex(live, pairs, tuple(stack), ImageUses(carried, image_uses), pairings)


def _pair(text: str, live: tuple[int, ...]) -> tuple[list[Bracket], list[int]]:
    """`[...]` pairs as CommonMark nests them, by opening offset, and the `[`s left open."""
    stack: list[int] = []
    pairs: list[Bracket] = []
    for pos in live:
        if text[pos] == "[":
            stack.append(pos)
        elif stack:
            start = stack.pop()
            pairs.append(Bracket(start, pos, _bang(text, start)))
    pairs.sort(key=lambda b: b.open)
    return pairs, stack


def _split(offsets: tuple[int, ...], ends: list[int]) -> list[tuple[int, ...]]:
    """`offsets` (in order) in runs, a new run after each of `ends`."""
    runs: list[list[int]] = [[]]
    i = 0
    for pos in offsets:
        if i < len(ends) and ends[i] < pos:
            i = bisect.bisect_left(ends, pos)
            runs.append([])
        runs[-1].append(pos)
    return [tuple(run) for run in runs]


def _pairing(view: View, trusted: Regions) -> Pairing:
    """The brackets of `view` outside its code and the trusted code."""
    in_trusted = _cursor(trusted)
    live = tuple(
        p for p in _live_brackets(view.text, view.code()) if not in_trusted(view.source(p))
    )
    # No renderer pairs brackets across a blank line: pair each paragraph's on its own.
    ends = [m.start() for m in _BLANK_LINE.finditer(view.text)]
    pairs = []
    for paragraph in _split(live, ends):
        pairs += _pair(view.text, paragraph)[0]
    pairs.sort(key=lambda b: b.open)
    dangling = dangling_images(view.text, pairs) if view.renderer == "commonmark.py" else []
    return Pairing(view, pairs, dangling)


def dangling_images(text: str, pairs: list[Bracket]) -> list[Bracket]:
    """commonmark.py reads `![a](d [r]`, a destination never closed, as the image of
    reference `r`: each such image, as a bracket from its `!` over the label."""
    found = []
    white: list[int] | None = None  # where the white space and blank lines are, on first need
    blank: list[int] = []
    for bracket in pairs:
        if bracket.bang < 0 or not text.startswith("(", bracket.close + 1):
            continue
        if white is None:
            white = [m.start() for m in _WHITE.finditer(text)]
            blank = [m.start() for m in _BLANK_LINE.finditer(text)]
        i = bisect.bisect_left(blank, bracket.open)
        if i < len(blank) and blank[i] < bracket.close:
            continue  # no paragraph of commonmark.py's holds both brackets
        end = _destination_end(text, bracket.close + 1, white)
        gap = _DANGLING.match(text, end) if end >= 0 else None
        label = _pair_at(pairs, gap.end() - 1) if gap else None
        if label is not None:
            found.append(Bracket(label.open, label.close, bracket.bang))
    return found


def _destination_end(text: str, paren: int, white: list[int]) -> int:
    """Where commonmark.py's destination after the `(` at `paren` ends, or -1 when it
    reads none or closes the construct. A destination not in `<>` runs to white space;
    parens nest in it, unbalanced ones too, and a `)` no `(` opened ends it (read
    leniently: a run whose first `)` follows a `(` may be one)."""
    opened = _OPEN_DESTINATION.match(text, paren)
    if opened is None:
        return -1
    if opened.group(1) is not None:
        return opened.end()
    start = opened.end()
    i = bisect.bisect_left(white, start)
    end = white[i] if i < len(white) else len(text)
    close = text.find(")", start, end)
    if end == start or text[start] == "<" or (close >= 0 and text.find("(", start, close) < 0):
        return -1
    return end


def first_closes(text: str, index: BracketIndex) -> list[Bracket]:
    """Openers paired with the first `]` after them, where that is not their nested
    pair: mistune reads `![a [](u)` as an image of `u` with alt `a [`, and (when a URL
    in it swallows the `[`) `![http://a[][r]` as an image of reference `r`."""
    return _first_closes(text, index.live, index.pairs)


def _first_closes(text: str, live: tuple[int, ...], pairs: list[Bracket]) -> list[Bracket]:
    nested = {bracket.open: bracket.close for bracket in pairs}
    waiting: list[int] = []
    found: list[Bracket] = []
    for pos in live:
        if text[pos] == "[":
            waiting.append(pos)
        else:
            found.extend(Bracket(o, pos, _bang(text, o)) for o in waiting if nested.get(o) != pos)
            waiting = []
    return found


def _live_brackets(text: str, code: Regions) -> Iterator[int]:
    """Where the `[` and `]` outside code and not escaped are."""
    inside_code = _cursor(code)
    for match in _BRACKET.finditer(text):
        if match.end() - match.start() == 1 and not inside_code(match.start()):
            yield match.start()


def open_openers(text: str, code: Regions, index: BracketIndex) -> list[tuple[int, str]]:
    """Openers still waiting for their close at the end of the text: `[`s without `]`,
    and a tag whose `>` has not come."""
    found = [(pos, "[") for pos in index.open_brackets]
    return found + [(pos, "<") for pos in _open_tags(text, code)]


def _open_tags(text: str, code: Regions) -> list[int]:
    """The tags open at the end of the text, in every reading: the last one opened,
    and each before it that escaping it leaves open (`<a x="<b`: all in one reading,
    where one tag a reading would take as many readings as there are tags); and as a
    browser reads quotes (`<img alt=">"` is open until a `>` outside them)."""
    found: list[int] = []
    floor, end = text.rfind(">") + 1, len(text)
    while (at := text.rfind("<", floor, end)) >= 0 and _TAG_NAME.match(text, at + 1):
        if at in code:
            break
        found.append(at)
        end = at
    return sorted({*found, *_open_quoted(text, code)})


def _open_quoted(text: str, code: Regions) -> list[int]:
    """The tag a browser reads as still open at the end of the text (quoted values
    hide a `>`), and each inside it that escaping its `<` leaves open; past a few, every
    tag start inside the first (they are all inside it: a flood)."""
    found: list[int] = []
    at = _open_tag_from(text, code, 0)
    while at >= 0:
        found.append(at)
        if len(found) == _MOST_QUOTED:
            rest = (m.start() for m in _TAG_START.finditer(text, at + 1))
            return found + [pos for pos in rest if pos not in code]
        at = _open_tag_from(text, code, at + 1)
    return found


def _open_tag_from(text: str, code: Regions, pos: int) -> int:
    """Where the tag starts that is open at the end of text[pos:], tags read one after
    another as a browser reads them (-1: none)."""
    while (start := _TAG_START.search(text, pos)) is not None:
        if start.start() in code:
            pos = start.start() + 1
            continue
        body = _TAG_BODY.match(text, start.end())
        end = body.end() if body is not None else start.end()  # it always matches
        if end >= len(text) or text[end] != ">":
            return start.start()
        pos = end + 1
    return -1


def _cursor(regions: Regions) -> Callable[[int], bool]:
    """Membership for offsets asked in increasing order, in amortised O(1)."""
    spans = sorted(regions)
    state = [0]

    def inside(pos: int) -> bool:
        i = state[0]
        while i < len(spans) and spans[i][1] <= pos:
            i += 1
        state[0] = i
        return i < len(spans) and spans[i][0] <= pos

    return inside


def _bang(text: str, open_pos: int) -> int:
    pos = open_pos - 1
    while pos >= 0 and INVISIBLE.match(text, pos):
        pos -= 1
    if pos < 0 or text[pos] != "!":
        return -1
    slashes = 0
    while pos - slashes - 1 >= 0 and text[pos - slashes - 1] == "\\":
        slashes += 1
    return pos if slashes % 2 == 0 else -1


def usage(text: str, bracket: Bracket, pairs: list[Bracket]) -> tuple[frozenset[str], int]:
    """The labels a reference use `[a]`, `[a][]` or `[a][b]` may resolve to, and its end.

    python-markdown allows a space or a newline between the two labels, and falls
    back to the first label when the second is undefined: both are candidates.
    """
    keys = label_keys(text[bracket.open + 1 : bracket.close])
    end = bracket.close + 1
    gap = _BETWEEN_LABELS.match(text, end)
    after = gap.end() if gap else end
    if text.startswith("[", after):
        second = _pair_at(pairs, after)
        if second is not None:
            keys |= label_keys(text[after + 1 : second.close])
            end = second.close + 1
    return keys, end


def _pair_at(pairs: list[Bracket], open_pos: int) -> Bracket | None:
    lo, hi = 0, len(pairs)
    while lo < hi:
        mid = (lo + hi) // 2
        if pairs[mid].open < open_pos:
            lo = mid + 1
        else:
            hi = mid
    return pairs[lo] if lo < len(pairs) and pairs[lo].open == open_pos else None
