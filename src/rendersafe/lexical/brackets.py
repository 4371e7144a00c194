"""Brackets outside code: found once, paired as CommonMark and as mistune pair them,
indexed by the labels images use; and what a reference use may resolve to."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..engine.regions import Regions
from ..engine.source import SourceText
from ..markdown.labels import label_keys
from ..urls import INVISIBLE

__all__ = [
    "Bracket",
    "BracketIndex",
    "dangling_images",
    "first_closes",
    "index_brackets",
    "open_openers",
    "usage",
]

_BRACKET = re.compile(r"\\.|[\[\]]", re.DOTALL)
_BETWEEN_LABELS = re.compile(r"[ \t]*\n?[ \t]*")
_OPEN_TAG = re.compile(r"<[a-zA-Z][^<>]*\Z")
# `(`, a destination (`<...>`, or any run not starting with `<`), white space (one line
# break at most), an optional title, then `[`: commonmark.py's image of the reference
# that follows. White space is taken whole (atomic): what follows it never starts
# with white space, and splitting a run of it two ways cost its length squared. A
# title in parentheses is matched up to its `(` only (see `_label_at`).
_DESTINATION = r"(?:<[^<>\n]*>|[^\s()<][^\s()]*+)"
_GAP = r"(?>(?:[ \t]+\n?|\n)[ \t]*)"
_DANGLING = re.compile(
    rf"""\((?>[ \t]*\n?[ \t]*){_DESTINATION}{_GAP}((?:"[^"]*"|'[^']*'){_GAP})?(?=[\[(])"""
)
_AFTER_TITLE = re.compile(rf"{_GAP}\[")
_CLOSE_PAREN = re.compile(r"\)")


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
    image_uses: dict[str, int]


def index_brackets(source: SourceText, code: Regions, carried: frozenset[str]) -> BracketIndex:
    """Pair up the brackets outside `code`, and index the first image-style use of
    each label (the labels in `carried` were used by images in earlier units)."""
    text = source.text
    live = tuple(_live_brackets(text, code))
    stack: list[int] = []
    pairs: list[Bracket] = []
    for pos in live:
        if text[pos] == "[":
            stack.append(pos)
        elif stack:
            start = stack.pop()
            pairs.append(Bracket(start, pos, _bang(text, start)))
    pairs.sort(key=lambda b: b.open)
    image_uses = dict.fromkeys(carried, -1) if carried else {}
    for bracket in [*pairs, *dangling_images(text, pairs)]:
        if bracket.bang >= 0:
            for key in usage(text, bracket, pairs)[0]:
                image_uses.setdefault(key, bracket.bang)
    return BracketIndex(live=live, pairs=pairs, open_brackets=tuple(stack), image_uses=image_uses)


def dangling_images(text: str, pairs: list[Bracket]) -> list[Bracket]:
    """commonmark.py reads `![a](d [r]`, a destination never closed, as the image of
    reference `r`: each such image, as a bracket from its `!` over the label."""
    found = []
    closes: list[int] = []  # where the text's `)` are, found on first need
    for bracket in pairs:
        if bracket.bang < 0 or not text.startswith("(", bracket.close + 1):
            continue
        at = _label_at(text, bracket.close + 1, closes)
        label = _pair_at(pairs, at) if at >= 0 else None
        if label is not None:
            found.append(Bracket(label.open, label.close, bracket.bang))
    return found


def _label_at(text: str, pos: int, closes: list[int]) -> int:
    """Where the label of a dangling image starts, after the `(` at `pos`; or -1.

    A title in parentheses runs to the first `)` after it, looked up in `closes`: a
    regex would scan for it from every such title, and many can share one `)`."""
    head = _DANGLING.match(text, pos)
    if head is None:
        return -1
    at = head.end()
    if text[at] == "[":
        return at
    if head.group(1) is not None:  # a quoted title, then `(`
        return -1
    if not closes:
        closes.extend(m.start() for m in _CLOSE_PAREN.finditer(text))
        closes.append(len(text))
    close = closes[bisect.bisect_right(closes, at)]
    gap = _AFTER_TITLE.match(text, close + 1)
    return gap.end() - 1 if gap else -1


def first_closes(text: str, index: BracketIndex) -> list[Bracket]:
    """Openers paired with the first `]` after them, where that is not their nested
    pair: mistune reads `![a [](u)` as an image of `u` with alt `a [`."""
    nested = {bracket.open: bracket.close for bracket in index.pairs}
    waiting: list[int] = []
    found: list[Bracket] = []
    for pos in index.live:
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
    tag = _OPEN_TAG.search(text)
    if tag is not None and tag.start() not in code:
        found.append((tag.start(), "<"))
    return found


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
