"""What a healing renderer holds open after the text so far, and so whether it closes
a code span that a prefix of the reply stops inside (remend 1.4.0; its rules are
listed in `lexical.healers`).

remend closes the code span a prefix ends in, and the span is code again: unless its
link rule fired first (an open `[` anywhere before, as it counts brackets: no escapes,
code included, gets `](streamdown:incomplete-link)` and remend stops there), unless it
reads a fence as open (a ``` or ~~~ line after any spaces, quote and list markers,
closed only inside the same containers), or unless the prefix ends on a backtick run
as wide as the opener or wider inside the span. A renderer then reads the span's
inside as Markdown: such a span is not trusted as code.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from itertools import accumulate

__all__ = ["NOTHING_OPEN", "Fence", "HealerState", "HealerView"]

_BRACKET = re.compile(r"[\[\]]")
_LIST_MARKER = re.compile(r"(?:[-*+]|\d{1,9}[.)]) ")
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True, slots=True)
class Fence:
    """A fence remend reads as open: its marker and the containers it opened in."""

    marker: str
    list_indent: int
    quote_depth: int


@dataclass(frozen=True, slots=True)
class HealerState:
    """What remend holds open at a point of the reply."""

    brackets: int = 0  # `[`s its link rule would still close
    fence: Fence | None = None

    def after(self, text: str) -> HealerState:
        """The state after `text` follows."""
        brackets = self.brackets
        for bracket in _BRACKET.findall(text):  # as `_excess` counts, to the last
            brackets = brackets + 1 if bracket == "[" else max(brackets - 1, 0)
        fence = self.fence
        if fence is not None or "```" in text or "~~~" in text:  # else no line opens one
            fence = _fence_after(fence, text)
        if brackets == self.brackets and fence is self.fence:
            return self
        return replace(self, brackets=brackets, fence=fence)


def _fence_after(fence: Fence | None, text: str) -> Fence | None:
    """The fence remend reads as open after the lines of `text`, from `fence`. While
    none is open, only a line holding a fence marker can open one, and while one is
    open outside containers only a line holding its marker closes it: the others are
    skipped unread."""
    start, end = 0, len(text)
    while start <= end:
        if fence is None or not (fence.quote_depth or fence.list_indent):
            # Outside containers, only a line holding the opener's run can close it.
            if fence is None:
                marker = min(_find(text, "```", start), _find(text, "~~~", start))
            else:
                marker = _find(text, fence.marker, start)
            if marker > end:
                return fence
            start = max(start, text.rfind("\n", start, marker) + 1)
        line_end = text.find("\n", start)
        line_end = end if line_end < 0 else line_end
        fence = _next_fence(fence, text[start:line_end])
        start = line_end + 1
    return fence


def _find(text: str, marker: str, start: int) -> int:
    found = text.find(marker, start)
    return len(text) + 1 if found < 0 else found


# The state before a reply: nothing open.
NOTHING_OPEN = HealerState()


class HealerView:
    """A text as remend reads it from a state: which code spans it closes."""

    def __init__(self, text: str, state: HealerState) -> None:
        self._text = text
        self._state = state
        self._brackets: tuple[list[int], list[int]] | None = None
        self._lines: tuple[list[int], list[bool]] | None = None

    def closes(self, start: int, end: int) -> bool:
        """Does remend close the one-line code span text[start:end] at every prefix
        that stops inside it?"""
        runs = _BACKTICKS.findall(self._text, start, end)
        if any(len(run) >= len(runs[0]) for run in runs[1:-1]):
            return False
        if start > 0 and self._text[start - 1] == "\\":
            # remend takes a backtick after any `\` for escaped, an escaped backslash's
            # too (`\\` then a backtick opens a span to CommonMark): it closes none.
            return False
        return (
            self._brackets_at(start) == 0
            and not self._fence_open(start)
            and not (len(runs[0]) >= 3 and self._starts_line(start))
        )

    def _starts_line(self, pos: int) -> bool:
        """Does the content of `pos`'s line start at `pos`, where a renderer may not
        read a fence (a prefix stopping before the span's next backtick is one to
        remend, and remend closes no span inside a fence)?"""
        line_start = self._text.rfind("\n", 0, pos) + 1
        before = self._text[line_start:pos]
        return _containers(before)[0] == len(before) and not (
            len(before) <= 3 and not before.strip(" ")
        )

    def _brackets_at(self, pos: int) -> int:
        if self._brackets is None:
            found = [m.start() for m in _BRACKET.finditer(self._text)]
            self._brackets = (found, _excess(self._state.brackets, self._text, found))
        offsets, counts = self._brackets
        return counts[bisect.bisect_left(offsets, pos)]

    def _fence_open(self, pos: int) -> bool:
        if self._lines is None:
            starts = [0, *(m.end() for m in re.finditer("\n", self._text))]
            fence, open_at = self._state.fence, []
            for first, after in zip(starts, [*starts[1:], len(self._text) + 1], strict=True):
                line = self._text[first : after - 1]
                fence = _next_fence(fence, line)
                open_at.append(fence is not None)
            self._lines = (starts, open_at)
        starts, open_at = self._lines
        return open_at[bisect.bisect_right(starts, pos) - 1]


def _excess(start: int, text: str, found: list[int] | None = None) -> list[int]:
    """remend's open `[`s before each bracket of `text` and after the last: a `]`
    closes one, and none is ever owed."""
    signs = (1 if text[pos] == "[" else -1 for pos in found or _positions(text))
    return list(accumulate(signs, lambda open_, sign: max(open_ + sign, 0), initial=start))


def _positions(text: str) -> list[int]:
    return [m.start() for m in _BRACKET.finditer(text)]


def _containers(line: str) -> tuple[int, int, int]:
    """Where remend reads a line's content to start, its list indent and its quote depth."""
    pos, quotes, after_quote, listed = 0, 0, 0, False
    while True:
        while pos < len(line) and line[pos] == " ":
            pos += 1
        if line.startswith(">", pos):
            quotes += 1
            pos += 2 if line.startswith(" ", pos + 1) else 1
            after_quote, listed = pos, False
            continue
        marker = _LIST_MARKER.match(line, pos)
        if marker is None:
            return pos, pos - after_quote if listed else 0, quotes
        pos, listed = marker.end(), True


def _next_fence(fence: Fence | None, line: str) -> Fence | None:
    """The fence remend reads as open after `line`."""
    if fence is not None:
        inside = _inside(fence, line)
        if inside >= 0:
            closer = line[inside:].lstrip(" ")
            run = len(closer) - len(closer.lstrip(fence.marker[0]))
            closed = run >= len(fence.marker) and not closer[run:].strip(" \t\r")
            return None if closed else fence
    start, list_indent, quotes = _containers(line)
    opener = _FENCE.fullmatch(line.rstrip("\r"), start)
    if opener is None or (opener.group(1)[0] == "`" and "`" in opener.group(2)):
        return None
    return Fence(opener.group(1), list_indent, quotes)


def _inside(fence: Fence, line: str) -> int:
    """Where `line` goes on inside the fence's containers, or -1 when it leaves them."""
    pos = 0
    for _ in range(fence.quote_depth):
        while pos < len(line) and line[pos] == " ":
            pos += 1
        if not line.startswith(">", pos):
            return -1
        pos += 2 if line.startswith(" ", pos + 1) else 1
    if fence.list_indent == 0:
        return pos
    indent = len(line) - pos - len(line[pos:].lstrip(" "))
    blank = not line[pos:].strip(" \r")
    return pos if blank or indent >= fence.list_indent else -1
