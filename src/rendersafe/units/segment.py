"""Cut a reply into units that can be sanitised one after another.

A unit ends where nothing Markdown or HTML can reach across: before a line that
starts at column 0 after a blank line or after a closing fence; never inside an open
fence, an HTML block that spans blank lines (comments, `<script>`, `<pre>`, ...), a
raw block python-markdown keeps up to its end tag, a tag whose attributes are
still coming, or (with rendered fences) a fence a chat UI finds by pattern, from a
backtick run anywhere in a line to the next. Not at a fence that interrupts a
paragraph: python-markdown reads an unclosed fence as part of the paragraph, so
`![a` before it and `b](url)` after it are still one image there. Sanitising unit by
unit then equals sanitising the whole reply, and a stream can settle each unit as
soon as it ends.

A unit that grows past `limit` characters is cut anyway (a forced cut): at the last
line start in its second half, else the last space or tab there, else at `limit`.
Every cut depends only on the text, never on how it arrived, so one-shot and
streaming cut alike. A fence the policy renders (`hold`) makes its unit one to cut
too, so a stream holding it sends it as soon as it closes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from ..engine.rendered import NO_RENDERED_FENCES, RenderedFences
from ..engine.triggers import CHARACTER_OPENER, URLISH, attribute_opener, first_opener, list_opener
from .blocks import SPACE, OpenBlocks

__all__ = ["Segmenter", "Unit"]

# What ends a run of lines that can neither cut a unit nor open a block: a risky
# character or word, a line starting a fence or raw HTML, or a lone `\r` (a line end,
# after which one may start: `OpenBlocks.track`).
_QUIET_END: Final = re.compile(
    rf"^[ ]{{0,3}}[`~<]|\r(?!\n)|{CHARACTER_OPENER.pattern}|{URLISH.pattern}",
    re.MULTILINE | re.IGNORECASE,
)
# A line blank as `OpenBlocks` reads one (spaces, tabs and carriage returns: `\r \n` is two
# line ends around a space to markdown-it), one that may open a block, or one with a tag
# or a lone `\r`.
_NOT_PLAIN: Final = re.compile(r"^(?:[ \t\r]*$|[ ]{0,3}[`~<]|[^\n]*(?:<|\r(?!\n)))", re.MULTILINE)
# With rendered fences, a line holding a backtick run may open or close one for a UI
# that pairs runs by pattern (`OpenBlocks.pattern`), and a line `hold` finds makes the
# unit risky: neither is taken with others.
_NOT_PLAIN_RENDERED: Final = re.compile(
    r"^(?:[ \t\r]*$|[ ]{0,3}[`~<]|[^\n]*(?:<|\r(?!\n)|```))", re.MULTILINE
)


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit of text: `text` starts at offset `start` of the reply.

    `prefix` is context to parse in front of it and to leave out of the output: the
    opening line of a fence, or the tag of a raw block, that a forced cut split.
    """

    start: int
    text: str
    forced: bool = False
    prefix: str = ""


class Segmenter:
    """Finds unit boundaries in text fed piece by piece.

    segmenter = Segmenter(limit=8192)
    units = segmenter.push("Some text\\n\\nMore")   # the units this completed
    units += segmenter.finish()                      # and the last one

    `rendered`, the policy's rendered fences: its `hold` finds what else makes a unit
    one to cut (a rendered fence's opening line), and a fence a UI finds by pattern
    stays open from a backtick run to the next (`OpenBlocks.pattern`).
    """

    def __init__(self, limit: int, rendered: RenderedFences = NO_RENDERED_FENCES) -> None:
        self.limit = limit
        self._hold = hold = rendered.hold
        self._state = OpenBlocks(rendered=frozenset(rendered.kinds))
        self._quiet_end = _QUIET_END
        self._not_plain = _NOT_PLAIN
        if hold is not None:
            runs = "|```" if rendered.kinds else ""
            flags = re.MULTILINE | re.IGNORECASE
            self._quiet_end = re.compile(f"{_QUIET_END.pattern}|{hold.pattern}{runs}", flags)
            self._not_plain = _NOT_PLAIN_RENDERED if rendered.kinds else _NOT_PLAIN
        self._lines: list[str] = []  # the current unit's complete lines
        self._length = 0  # their total length
        self._line = ""  # the current incomplete line
        self._line_head = ""  # the start of it that a forced cut gave the last unit
        self._head_decided = False  # whether a cut before `_line` was decided
        self._risky = False  # the unit holds something a renderer could fetch or link
        # Where, in the current unit, the open fence or raw block changed: a forced cut
        # carries the context in force at the cut, not at the time of cutting.
        self._contexts: list[tuple[int, str]] = []
        self._start = 0  # offset of the current unit
        self._prefix = ""

    @property
    def pending(self) -> str:
        """The text of the current, unfinished unit."""
        return "".join(self._lines) + self._line

    @property
    def length(self) -> int:
        """The length of the current unit so far."""
        return self._length + len(self._line)

    @property
    def room(self) -> int:
        """How many characters holding no line end `push` would now only add to the
        current line, ending no unit: 0 at a line start, whose first character
        decides a cut, and never past the hold limit."""
        return self.limit - self._length - len(self._line) if self._head_decided else 0

    def may_cut(self, added: int, line_ends: int) -> bool:
        """Could pushing `added` more characters holding at most `line_ends` line ends
        complete a unit? A cut needs the hold limit passed, or a risky unit and a line
        start after a blank line or a closing fence: two line ends, or one after a blank
        line or inside a fence (which it may close), or none at such a line start."""
        if self._length + len(self._line) + added > self.limit or line_ends > 1:
            return True
        state = self._state
        if line_ends == 1 and (state.open or (self._risky and not self._line.strip(SPACE))):
            return True
        return not self._head_decided and self._risky and (state.blank or state.closed_fence)

    @property
    def context(self) -> str:
        """What is open after the complete lines so far, as a line to parse in front
        of what follows: a fence's opening line, a raw block's tag, or ""."""
        return self._context()

    def push(self, text: str) -> list[Unit]:
        """Take more text; return the units it completed."""
        if self._head_decided and "\n" not in text:  # the common case: mid-line
            self._line += text
            if self._length + len(self._line) > self.limit:
                return self._force_while_over()
            return []
        units: list[Unit] = []
        pos = 0
        while pos < len(text):
            skipped = self._skip_plain_lines(text, pos)
            if skipped > pos:
                pos = skipped
                units.extend(self._force_while_over())
                continue
            newline = text.find("\n", pos)
            end = len(text) if newline < 0 else newline + 1
            self._line += text[pos:end]
            pos = end
            if not self._head_decided:
                units.extend(self._decide_head())
            if newline >= 0:
                self._complete_line()
            if self._head_decided or not self._line:  # no cut decision is pending
                units.extend(self._force_while_over())
        return units

    def _skip_plain_lines(self, text: str, pos: int) -> int:
        """Take whole lines at once where nothing can happen, outside any open
        construct: before the unit holds anything risky, every line up to the first
        risky or block-starting one (no cut can come yet); after, every non-blank
        line up to the first that is blank or starts a block (no cut comes before a
        blank line). Returns where the lines taken end."""
        state = self._state
        if self._line:
            return pos
        if state.fence is not None and not self._line_head:
            return self._take_fenced(text, pos)
        if state.open or state.closed_fence:
            return pos
        if not self._risky:
            # (an attribute's opener is found apart: `first_opener`)
            found = self._quiet_end.search(text, pos)
            end = len(text) if found is None else found.start()
            attribute = attribute_opener(text, pos, end)
            end = end if attribute < 0 else attribute
            # (whole lines only: a line still arriving is read when it ends)
            whole = text.rfind("\n", pos, end) + 1
            listed = list_opener(text, pos, whole) if whole > pos else -1
            return self._take_lines(text, pos, end if listed < 0 else listed)
        if state.blank:
            return pos
        found = self._not_plain.search(text, pos)
        return self._take_lines(text, pos, len(text) if found is None else found.start())

    def _take_fenced(self, text: str, pos: int) -> int:
        """Take the lines inside an open fence up to the first that may close it:
        none of them can cut the unit, open anything or change the context."""
        end = self._state.inside_fence(text, pos)
        if end > pos:
            self._lines.append(text[pos:end])
            self._length += end - pos
            self._risky = self._risky or self._risky_in(text, pos, end)
        return end

    def _take_lines(self, text: str, pos: int, found: int) -> int:
        """Take the whole lines from `pos` before the one that holds `found`."""
        end = text.rfind("\n", pos, found) + 1
        if end <= pos:
            return pos
        self._lines.append(text[pos:end])
        self._length += end - pos
        self._state.skipped(text, pos, end)
        return end

    def finish(self) -> list[Unit]:
        """The last unit, whatever is left."""
        rest = self.pending
        self._lines, self._length, self._line = [], 0, ""
        return [Unit(self._start, rest, False, self._prefix)] if rest else []

    def _decide_head(self) -> list[Unit]:
        """Cut before the current line? Decided from its first character alone.

        Only a unit that holds something a renderer could fetch or link is cut: plain
        text joins the next unit (a stream has sent it already; fewer units are less
        work), so a cut falls at the first boundary after such a thing.
        """
        self._head_decided = True
        state = self._state
        if not self._risky or state.open or self._line[0] in " \t\r\n":
            return []
        if (state.blank or state.closed_fence) and self._lines:
            return [self._cut()]
        return []

    def _complete_line(self) -> None:
        line, self._line = self._line, ""
        self._head_decided = False
        self._lines.append(line)
        self._length += len(line)
        self._risky = self._risky or self._risky_in(line, 0, len(line))
        state = self._state
        # What `context()` is made of: only when it changed can the context have.
        opened = (state.fence, state.raw, state.raw_depth, state.pattern)
        before = self._context() if opened != (None, None, 0, None) else ""
        state.track(self._line_head + line)  # the whole line, even if a forced cut split it
        self._line_head = ""
        now = (state.fence, state.raw, state.raw_depth, state.pattern)
        if now != opened and self._context() != before:
            self._contexts.append((self._length, self._context()))

    def _force_while_over(self) -> list[Unit]:
        units = []
        while self._length + len(self._line) > self.limit:
            units.append(self._force())
        return units

    def _force(self) -> Unit:
        """Cut the current unit at `limit` characters or before."""
        text = self.pending
        line_start = len(text) - len(self._line)
        window = text[: self.limit]
        cut = _clean_cut(window, self.limit // 2, "\n") or _clean_cut(
            window, self.limit // 2, " \t"
        )
        half = self.limit // 2
        if cut <= 0:
            cut = max(window.rfind("\n", half), window.rfind("\r", half)) + 1
        if cut <= 0:
            cut = max(window.rfind(" ", half), window.rfind("\t", half)) + 1
        if cut <= 0:
            cut = self.limit
        cut = _before_run(text, self._before_block(text, cut))
        slashes = len(text[:cut]) - len(text[:cut].rstrip("\\"))
        cut -= slashes % 2  # never between a backslash and what it escapes
        unit = Unit(self._start, text[:cut], True, self._prefix)
        if cut > line_start:
            self._line_head += text[line_start:cut]
        self._prefix = self._context_at(cut)
        self._contexts = [(at - cut, context) for at, context in self._contexts if at > cut]
        self._start += cut
        # What follows the cut was already tracked line by line: keep it as it is.
        rest = text[cut:]
        tail = rest.rfind("\n") + 1
        self._lines = [rest[:tail]] if tail else []
        self._length, self._line = tail, rest[tail:]
        # A rest still over the limit is cut again at once (its flag is never read):
        # judging it each time rescanned the whole reply at every forced cut.
        self._risky = len(rest) > self.limit or self._risky_in(rest, 0, tail)
        return unit

    @property
    def prefix(self) -> str:
        """What the unit still arriving starts inside (`Unit.prefix`)."""
        return self._prefix

    def _before_block(self, text: str, cut: int) -> int:
        """`cut`, or the start of the opening line of the block (a fence, a raw block)
        open there, when this unit opened it after its start: cut before it, a block
        that fits the limit is read whole (a short rendered fence after long prose is
        rendered, not shown as code)."""
        context, opened = self._prefix, 0
        for at, changed in self._contexts:
            if at > cut:
                break
            if changed and not context:
                opened = at
            context = changed
        if not context or opened == 0:
            return cut
        line = text[:opened].rstrip("\r\n")
        start = max(line.rfind("\n"), line.rfind("\r")) + 1
        return start if start > 0 else cut

    def _context(self) -> str:
        return self._state.context()

    def _context_at(self, cut: int) -> str:
        context = self._prefix  # what held at the unit's start
        for at, changed in self._contexts:
            if at > cut:
                break
            context = changed
        return context

    def _risky_in(self, text: str, start: int, end: int) -> bool:
        """Could text[start:end] hold a construct a renderer fetches or links, or a
        fence the policy renders?"""
        if _risky(text, start, end):
            return True
        return self._hold is not None and self._hold.search(text, start, end) is not None

    def _cut(self) -> Unit:
        unit = Unit(self._start, "".join(self._lines), False, self._prefix)
        self._start += len(unit.text)
        self._lines, self._length, self._prefix, self._risky = [], 0, "", False
        self._contexts = []
        return unit


def _risky(text: str, start: int = 0, end: int | None = None) -> bool:
    """Could text[start:end] hold a construct a renderer fetches or links?"""
    stop = len(text) if end is None else end
    return first_opener(text, start, stop) >= 0 or URLISH.search(text, start, stop) is not None


def _before_run(text: str, cut: int) -> int:
    """`cut`, or the start of the backtick run it would split: a piece that ends in
    part of a run may close a code span the whole run does not (`` `<img ...` `` then
    `` `">``), and what the span hid is live HTML to every renderer."""
    if cut >= len(text) or text[cut] != "`" or text[cut - 1] != "`":
        return cut
    start = len(text[:cut].rstrip("`"))
    return start if start > 0 else cut


def _clean_cut(window: str, half: int, separators: str) -> int:
    """The last cut after one of `separators` in the second half of `window` that leaves
    nothing open a later text could complete, or 0: no `[` or `<` open since the line
    `half` is in began, no tail `units.forced_cut` escapes (`_open_tail`). A forced cut
    escapes what it leaves open, which a fence would show: a clean cut spares it. One
    scan forward, however many separators are rejected: white space between two
    separators is read once (a run of blank lines, of spaces), each word's tail once."""
    pattern = _SEPARATORS[separators]
    at = max(window.rfind("\n", 0, half), window.rfind("\r", 0, half)) + 1
    depth, angle, best = 0, False, 0
    last = len(window[:half].rstrip())  # where the text before the cut last is not space
    breaks, tail_open = _line_ends(window[last:half]), _open_tail(window, last)
    seen = half
    for found in pattern.finditer(window, half):
        piece = window[at : found.start()]
        depth = max(0, depth + piece.count("[") - piece.count("]"))
        if piece.rfind("<") > piece.rfind(">"):
            angle = True
        elif ">" in piece:
            angle = False
        at = found.start()
        gap = window[seen : found.end()]
        solid = len(gap.rstrip())
        if solid:
            last = seen + solid
            breaks, tail_open = _line_ends(gap[solid:]), _open_tail(window, last)
        else:
            breaks += _line_ends(gap)
        seen = found.end()
        # Two line ends with only white space between: a blank line ends whatever the
        # text before it left open (a paragraph's end).
        if depth == 0 and not angle and (breaks >= 2 or not tail_open):
            best = found.end()
    return best


_SEPARATORS: Final = {"\n": re.compile("[\n\r]"), " \t": re.compile("[ \t]")}


def _line_ends(space: str) -> int:
    """How many line ends `space` holds (CRLF one, a lone CR one)."""
    return space.count("\n") + space.count("\r") - space.count("\r\n")


def _open_tail(text: str, last: int) -> bool:
    """Does text[:last], which does not end in white space, end in a `]` or `<`, a
    definition's `]:` (its destination to come), or in a destination opened after a
    `]` (`](javas`), as `units.forced_cut` escapes at a forced cut?"""
    if last == 0:
        return False
    if text[last - 1] in "]<" or (last >= 2 and text[last - 2 : last] == "]:"):
        return True
    start = last
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "()":
        start -= 1
    if start == 0 or text[start - 1] != "(":
        return False
    start -= 1
    while start > 0 and text[start - 1].isspace():
        start -= 1
    return start > 0 and text[start - 1] == "]"
