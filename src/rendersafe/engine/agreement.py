"""Where renderers stop agreeing on which lines are fences: no code is trusted after.

    agreed = FenceAgreement()
    agreed.disagreement("<x>\\n```\\n<img src=x>\\n```\\n")   # 4: the fence after `<x>`
    agreed = agreed.after(text)                              # what the next text starts from

A fence is code for every renderer only where they all pair its lines alike, and they
pair them differently enough that a model of each (`markdown.code`) kept missing a
case. python-markdown's `fenced_code` pairs fence lines by one pattern over the whole
text before it reads lists or HTML (an opener at column 0 with a plain info string,
the identical run as its closer, spaces after it); CommonMark renderers pair them
inside the blocks they read (none inside an HTML block, a closer of any longer run,
a tab after it kept or not). While every fence line is canonical (both read it the
same way, `markdown.code._canonical_fence`'s form) and none stands where a renderer
may read HTML instead (inside a comment or raw-text element, or in a paragraph whose
earlier line may open an HTML block), they agree. The first line that breaks that
may shift every pairing after it, in one renderer or another: from that line on, no
code is trusted (`CodeTrust.untrusted_from`), and everything after it is judged as
prose. Honest replies rarely hold such a line; it costs them nothing unless code
after it holds what the second line escapes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from .attributes import attribute_names

__all__ = ["AGREED", "HTML_BLOCKS", "FenceAgreement", "escaped_at"]

# A line any renderer may read as a fence line: a run of three backticks or tildes
# after any white space and container markers (a quote's `>`, a list item's marker).
_FENCE_LIKE: Final = re.compile(r"[^\S\n]*(?:(?:>|[-*+]|\d{1,9}[.)])[^\S\n]*)*(`{3,}|~{3,})")
# An opening line both read alike: at column 0, python-markdown's plain info string
# (`lang`, `.lang` or `{attributes}`), spaces only around it; no backtick after a
# backtick fence (CommonMark's rule), and no `|` (markdown-it reads tables first: a
# line with one, above a delimiter row, is a table's header).
_OPENER: Final = re.compile(r"(`{3,}|~{3,})(?:[ ]*\.?[\w#.+-]*[ ]*|[ ]*\{[^\n`}|]*\})")
# A line that may open an HTML block in some renderer: a tag, a comment, a declaration
# or a processing instruction, after up to three spaces or a container's markers.
# (Anything but white space after the `<`: commonmark.py and marko fold a Kelvin sign
# to a `k`, a long s to an `s`.)
_TAG_START: Final = re.compile(r"[^\S\n]*(?:(?:>|[-*+]|\d{1,9}[.)])[^\S\n]*)*<[^\s<>]")
# A reference definition still waiting for its destination, which mistune and marko take
# from the next line, a fence line included (marko too after a destination a backslash
# ends). Read loosely: its label may hold escaped brackets, start on an earlier line, or
# sit in a quote or a list item.
_BARE_LABEL: Final = re.compile(r"[^\n]*\]:(?:[^\S\n]*|[^\n]*\\)")
# CommonMark's HTML blocks that blank lines do not end: how each starts and what ends
# it. A raw-text element's start as mistune reads it: its name and anything a name does
# not hold (CommonMark needs white space, `>` or the end of the line). `units.blocks`
# reads the same table.
HTML_BLOCKS: Final = (
    (
        re.compile(r" {0,3}<(?:script|pre|style|textarea)(?![a-zA-Z0-9-])", re.I),
        re.compile(r"</(?:script|pre|style|textarea)>", re.I),
    ),
    (re.compile(r" {0,3}<!--"), re.compile(r"-->")),
    (re.compile(r" {0,3}<\?"), re.compile(r"\?>")),
    (re.compile(r" {0,3}<!\[CDATA\["), re.compile(r"\]\]>")),
    (re.compile(r" {0,3}<![A-Za-z]"), re.compile(r">")),
)
_BREAK: Final = re.compile(r"\r\n|\r|\n")  # what ends a line for every renderer
_LONE_CR: Final = re.compile(r"\r(?!\n)")
# How much of a line a forced cut left unfinished is kept to read with its rest.
_PENDING_CHARS: Final = 256


@dataclass(frozen=True, slots=True)
class FenceAgreement:
    """How far the fence lines read so far agree, and what is open after them."""

    broken: bool = False  # a line broke the agreement: nothing after is trusted
    fence: str | None = None  # the run of the canonical fence open now
    raw: int = -1  # the comment or raw-text block open now (`HTML_BLOCKS`), or -1
    raw_name: str = ""  # the raw-text element's name, as it opened (lower case)
    tag_line: bool = False  # a line since the last blank one may open an HTML block
    tag_open: int = 0  # ... and left its tag unfinished (1; 2: a blank line since)
    label: bool = False  # the last line was a definition's label with no destination
    waiting: str = ""  # what a definition left open (`_State.waiting`)
    pending: str = ""  # the start of a line the text ended inside
    long: bool = False  # ... and more of it than that start

    def disagreement(self, text: str) -> int | None:
        """The offset in `text` of the line (read after what this state has read)
        from which nothing is agreed, or None where everything in it is."""
        return _scanned(self, text)[0]

    def after(self, text: str) -> FenceAgreement:
        """This state after reading `text` too."""
        return _scanned(self, text)[1]

    def _scan(self, text: str) -> tuple[int | None, FenceAgreement]:
        if self.broken:
            return 0, self
        if self is AGREED and not any(mark in text for mark in _MARKS):
            return None, _resting(text)  # the usual unit: nothing to read
        state = _State(
            self.fence,
            (self.raw, self.raw_name),
            (self.tag_line, self.tag_open),
            self.label,
            self.waiting,
        )
        head, pos = self.pending, 0
        if head:  # the line a forced cut split: read whole, with its start
            first = _BREAK.search(text)
            if first is not None:
                pos = first.end()
                # A line longer than what was kept of it is read by that start alone: its
                # middle is unknown (the start and the rest may spell what it does not).
                waiting = state.label
                # (with a mark no pattern takes where the rest of it is not blank)
                tail = "\x00" if text[:pos].strip(" \t\r\n") else ""
                if not state.read(head + tail + "\n" if self.long else head + text[:pos]):
                    return 0, FenceAgreement(broken=True)
                if self.long and text[:pos].rstrip("\r\n").endswith("\\"):
                    # (its end is known: a label's destination a backslash runs on)
                    state.label = waiting or "]:" in head or state.label
                head = ""
        broken = state.read_lines(text, pos)
        if broken is not None:
            return broken, FenceAgreement(broken=True)
        pos = max(pos, text.rfind("\n", pos) + 1, text.rfind("\r", pos) + 1)
        rest = head + text[pos:]
        if rest and _FENCE_LIKE.match(rest) and len(rest) > _PENDING_CHARS:
            return (0 if head else pos), FenceAgreement(broken=True)
        return None, FenceAgreement(
            fence=state.fence,
            raw=state.raw,
            raw_name=state.raw_name,
            tag_line=state.tag_line,
            tag_open=state.tag_line_open,
            label=state.label,
            waiting=state.waiting,
            pending=rest[:_PENDING_CHARS],
            long=len(rest) > _PENDING_CHARS or (self.long and bool(head)),
        )


AGREED: Final = FenceAgreement()
# What a text holds wherever it may change the agreement (`_lines`).
_MARKS: Final = ("<", "```", "~~~", "]:", "[")


def _resting(text: str) -> FenceAgreement:
    """The state after a text with none of `_MARKS`, read from `AGREED`: nothing open,
    but the line it ends inside."""
    last = max(text.rfind("\n"), text.rfind("\r")) + 1
    rest = text[last:]
    if not rest:
        return AGREED
    return FenceAgreement(pending=rest[:_PENDING_CHARS], long=len(rest) > _PENDING_CHARS)


# A unit's text is scanned twice, its pass asking where agreement ends and its carry
# what follows: once is enough.
@functools.lru_cache(maxsize=64)
def _scanned(state: FenceAgreement, text: str) -> tuple[int | None, FenceAgreement]:
    return state._scan(text)


def _lines(text: str, pos: int) -> Iterator[tuple[int, int]]:
    """The whole lines of `text` from `pos` on that may change or break the agreement:
    every one where a lone `\r` ends lines (rare), else those holding a fence's run, a
    `<` or `>`, a `]:`, a `[` at its start, a backslash at its end, or nothing (a plain
    line only ends a bare label's wait; `_State._skipped` reads the plain lines while a
    definition's label or title is open)."""
    if "\r" in text and _LONE_CR.search(text):
        last = pos
        for found in _BREAK.finditer(text, pos):
            yield last, found.end()
            last = found.end()
        return
    end = text.find("\n", pos)
    while end >= 0:
        line = text[pos:end]
        if (
            "<" in line
            or ">" in line
            or "```" in line
            or "~~~" in line
            or "]:" in line
            or ("[" in line and _LABEL_START.match(line) is not None)
            or line.rstrip("\r").endswith("\\")
            or not line.strip(" \t\r")
        ):
            yield pos, end + 1
        pos = end + 1
        end = text.find("\n", pos)


class _State:
    """The mutable state of one scan."""

    __slots__ = ("fence", "label", "raw", "raw_name", "tag_line", "tag_line_open", "waiting")

    def __init__(
        self,
        fence: str | None,
        raw: tuple[int, str],
        tags: tuple[bool, int],
        label: bool,
        waiting: str = "",
    ) -> None:
        self.fence = fence
        self.raw, self.raw_name = raw
        self.tag_line, self.tag_line_open = tags
        self.label = label
        # What a reference definition left open: a label (`]`, `[a` NEWLINE ...) or a
        # title (its closer: `"`, `'`, `)`), which some renderer reads on over lines,
        # blank ones too, a fence line in it; or `t`: the last line was a whole
        # definition, after which a title may open.
        self.waiting = waiting

    def read_lines(self, text: str, pos: int) -> int | None:
        """Read the whole lines of `text` from `pos` on (those `_lines` finds); where
        the first that breaks the agreement starts, or None."""
        read_to = pos
        for start, end in _lines(text, pos):
            if start != read_to and not self._skipped(text, read_to, start):
                return None  # (never: a plain line breaks nothing)
            read_to = end
            if not self.read(text[start:end]):
                return start
        last = max(text.rfind("\n", pos), text.rfind("\r", pos)) + 1
        if last > read_to:
            self._skipped(text, read_to, last)
        return None

    def _skipped(self, text: str, start: int, end: int) -> bool:
        """The plain lines from `start` to `end` (no mark `_lines` looks for) came
        between: each is read while a definition waits (a bare label's destination, a
        title that may open or close, a label that may close), the rest change nothing."""
        pos = start
        while (self.label or self.waiting) and pos < end:
            found = _BREAK.search(text, pos, end)
            stop = end if found is None else found.end()
            self.read(text[pos:stop])
            pos = stop
        return True

    def read(self, line: str) -> bool:
        """Read one whole line; False when it breaks the agreement."""
        body = line.rstrip("\r\n")
        fence_like = ("```" in body or "~~~" in body) and _FENCE_LIKE.match(body) is not None
        if self.fence is not None:
            return self._in_fence(body, fence_like)
        if self.raw >= 0:
            return self._in_raw(body) and not fence_like  # python-markdown reads a fence
        after_label, self.label = self.label, False
        waiting, self.waiting = self.waiting, ""
        if waiting in _OPEN:
            if fence_like:
                return False  # a fence line inside a label or a title, to some reader
            if not _closes(body, waiting):
                self.waiting = waiting
        if fence_like:
            opener = _OPENER.fullmatch(body)
            agreed = opener is not None and not self.tag_line and not after_label
            agreed = agreed and _inert_attributes(body)
            self.fence = opener.group(1) if opener is not None and agreed else None
            return agreed
        # (a destination a backslash ends runs on to the next line, for marko)
        bare = after_label and body.endswith("\\")
        self.label = bare or ("]:" in body and _BARE_LABEL.fullmatch(body) is not None)
        if not self.waiting:
            # (after a bare label, this line holds its destination, and maybe a title)
            self.waiting = _opened(body, after_definition=waiting == "t", destination=after_label)
        return self._outside(body)

    def _in_fence(self, body: str, fence_like: bool) -> bool:
        if body.rstrip(" ") == self.fence:
            self.fence = None
            return True
        return not fence_like  # a line some reader may close the fence at

    def _in_raw(self, body: str) -> bool:
        """A line inside a comment or a raw-text element; False where readers part."""
        end = HTML_BLOCKS[self.raw][1].search(body)
        if end is None:
            return True
        # CommonMark ends a raw-text element at any of the four end tags; mistune only
        # at its own, in lower case (not `</PRE>`, not `</script>` after `<pre>`): there
        # they part, one reading on to the end of the text.
        parted = self.raw == 0 and end.group() != f"</{self.raw_name}>"
        self.raw, self.raw_name = -1, ""
        return not parted

    def _outside(self, body: str) -> bool:
        """A line outside any fence or raw block, not a fence line itself; False when
        it breaks the agreement."""
        blank = not body.strip(" \t")
        if not self._tag_goes_on(body, blank):
            return False
        if blank or "<" not in body:
            return True
        markers = _CONTAINER.match(body)
        inner = body[markers.end() :] if markers is not None else body
        if inner[:1] == "<":  # (in a list item or a quote too: mistune reads it there)
            parted = self._raw_opened(inner)
            if parted is not None:
                return not parted
        found = _TAG_START.match(body)
        if found is not None:
            self.tag_line = True
            self.tag_line_open = 0 if ">" in body[found.end() :] else 1
        return True

    def _tag_goes_on(self, body: str, blank: bool) -> bool:
        """A tag a line leaves unfinished (`</x` with no `>`) is one tag to marked,
        blank lines and all (`</x` NEWLINE NEWLINE `>`), and its HTML block starts where
        it ends: where a blank line came between, others read a paragraph there, its
        code spans included (False)."""
        if self.tag_line and self.tag_line_open:
            if blank:
                self.tag_line_open = 2
            elif ">" in body:
                if self.tag_line_open == 2:
                    return False
                self.tag_line_open = 0
        elif blank:
            self.tag_line = False
        return True

    def _raw_opened(self, body: str) -> bool | None:
        """Read a line starting with `<` for a comment or raw-text element it leaves
        open: False when it does, True where readers part on it (`<pre></PRE>`: closed
        on its line to CommonMark, open to mistune), None when it opens none."""
        for index, (start, end) in enumerate(HTML_BLOCKS):
            opened = start.match(body)
            if opened is None:
                continue
            name = opened.group().lstrip(" <").lower() if index == 0 else ""
            closed = end.search(body, opened.end())
            if closed is None:
                self.raw, self.raw_name = index, name
                return False
            if index == 0 and closed.group() != f"</{name}>":
                return True
        return None


# A line's container markers (a quote's `>`, a list item's) and the white space around them.
_CONTAINER: Final = re.compile(r"[^\S\n]*(?:(?:>|[-*+]|\d{1,9}[.)])[^\S\n]*)*")
# What a definition may leave open over lines: its label, or its title (by its closer).
_OPEN: Final = frozenset({"]", '"', "'", ")"})
_TITLE_CLOSERS: Final = {'"': '"', "'": "'", "(": ")"}
# A line that may open a definition's label: a `[` at its start, after white space and
# container markers.
_LABEL_START: Final = re.compile(r"[^\S\n]*(?:(?:>|[-*+]|\d{1,9}[.)])[^\S\n]*)*\[")


# The attributes a fence's `{attributes}` may set (python-markdown (+extra) copies each
# onto the `<code>`): only these are inert there.
_INERT_NAMES: Final = frozenset({"hl_lines", "linenums", "title", "lang", "id", "class"})


def _inert_attributes(body: str) -> bool:
    """Does a fence opener's `{attributes}` (if it has one) set only inert attributes: no
    event handler, no `style`, no URL (`{onfocus=... autofocus=autofocus}` runs with no
    click)?"""
    brace = body.find("{")
    if brace < 0:
        return True
    names = (n.lower() for n in attribute_names(body[brace + 1 : body.rfind("}")]))
    return all(n in _INERT_NAMES or n.startswith("data-") for n in names)


def _opened(body: str, *, after_definition: bool, destination: bool = False) -> str:
    """What `body` leaves open that a later line may close (`_State.waiting`); with
    `destination`, `body` is a definition's destination line."""
    label = _LABEL_START.match(body)
    if label is not None and not _closes(body[label.end() :], "]"):
        return "]"
    at = _definition_colon(body)
    if at >= 0 or destination:
        rest = body[at + 2 :].lstrip(" \t") if at >= 0 else body.lstrip(" \t")
        if not rest:
            return ""  # a bare label: `label`'s wait
        if rest[0] == "<":
            end = rest.find(">")
            after = rest[end + 1 :] if end >= 0 else ""
        else:
            after = rest.split(None, 1)[1] if len(rest.split(None, 1)) > 1 else ""
        return _title_opened(after) if after.strip() else "t"
    return _title_opened(body) if after_definition else ""


def _definition_colon(body: str) -> int:
    """Where the first `]:` whose `]` no backslash escapes starts in `body`, or -1
    (`[a\\]:b]: /u` ends its label at the second)."""
    at = body.find("]:")
    while at > 0 and escaped_at(body, at):
        at = body.find("]:", at + 1)
    return at


def escaped_at(text: str, at: int) -> bool:
    """Is the character at `at` escaped (an odd run of backslashes before it)?"""
    before = at
    while before > 0 and text[before - 1] == "\\":
        before -= 1  # (each backslash read once: the runs lie between what is looked for)
    return (at - before) % 2 == 1


def _title_opened(text: str) -> str:
    """The closer of a title `text` opens and does not close, or ""."""
    text = text.lstrip(" \t")
    closer = _TITLE_CLOSERS.get(text[:1], "")
    return closer if closer and not _closes(text[1:], closer) else ""


def _closes(text: str, closer: str) -> bool:
    """Does `text` hold `closer`, not escaped by a backslash?"""
    at = text.find(closer)
    while at >= 0 and escaped_at(text, at):
        at = text.find(closer, at + 1)
    return at >= 0
