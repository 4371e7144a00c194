"""What a text leaves open, line by line: a fence, an HTML block, a raw block, a tag.

The segmenter may cut a unit only where nothing is open, and a unit cut while
something is open is parsed behind `context()`, a line that opens it again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from ..engine.agreement import HTML_BLOCKS
from ..engine.rendered import info_language
from ..markdown.python_markdown import follow_raw_block, next_raw_tag

__all__ = ["MAX_RAW_DEPTH", "SPACE", "OpenBlocks"]

_FENCE: Final = re.compile(r" {0,3}(`{3,}|~{3,})")
# A line that may close a fence: every other line inside one is the fence's text.
_FENCE_LINE: Final = re.compile(r"(?:^|(?<=\r)) {0,3}(?:`{3,}|~{3,})", re.MULTILINE)
# A carriage return not before a line feed ends a line for every renderer (CommonMark,
# mistune), so a block may open or close after it in the middle of what `\n` cuts.
_LONE_CR: Final = re.compile(r"\r(?!\n)")
# A blank line as CommonMark reads one: spaces and tabs only (`\xa0` and `\u3000` are
# text to every renderer, and a cut after such a line would split a paragraph).
_BLANK_LINE: Final = re.compile(r"^[ \t\r]*$", re.MULTILINE)
SPACE: Final = " \t\r\n"  # what a blank line may hold
# An opening fence as CommonMark reads it: a backtick fence's info has no backtick.
_OPENING_FENCE: Final = re.compile(r" {0,3}(?:`{3,}[^`\n]*|~{3,}.*)$")
_HTML_BLOCKS: Final = HTML_BLOCKS  # (`engine.agreement`: what blank lines do not end)
_BLOCK_STARTS: Final = frozenset("`~<")
# Deeper nesting than this in a context line is not spelled out (bounded work).
MAX_RAW_DEPTH: Final = 64
# python-markdown reads a tag after up to three characters of any white space.
_LINE_TAG: Final = re.compile(r"[^\S\n]{0,3}<")
# A tag whose attributes have started: its name and the white space or `/` after it.
_TAG_OPEN: Final = re.compile(r"<[a-zA-Z][\w:-]*[\s/]")


@dataclass
class OpenBlocks:
    """What is open after the lines tracked so far."""

    fence: str | None = None  # the opening line of an open fence
    html: re.Pattern[str] | None = None  # what ends an open HTML block
    raw: str | None = None  # the tag of an open raw block
    raw_depth: int = 0  # how deep its tag is nested
    raw_closed: bool = False  # a raw block closed in this paragraph
    tag_open: bool = False
    blank: bool = True  # the previous line was blank (the start counts as one)
    closed_fence: bool = False  # the previous line closed a fence
    # The languages a chat UI renders (`engine.rendered`): a UI that finds fences by
    # pattern reads from any backtick run, anywhere in a line, to the next one.
    rendered: frozenset[str] = field(default_factory=frozenset)
    pattern: str | None = None  # the rendered language of the last run, if any

    @property
    def open(self) -> bool:
        """Is anything open that a cut must not split?"""
        return bool(self.fence or self.html or self.raw or self.tag_open or self.pattern)

    def context(self) -> str:
        """What to parse in front of a unit starting now: an open fence or raw block,
        then a run that a pattern-reading UI pairs with the unit's text."""
        return self._block_context() + (_pattern_line(self.pattern) if self.pattern else "")

    def _block_context(self) -> str:
        if self.fence is not None:
            return _inert_fence(self.fence) + "\n"
        if self.raw is not None:
            # As deep as it is nested, so the end tags after the cut balance alike.
            return f"<{self.raw}>" * min(self.raw_depth, MAX_RAW_DEPTH) + "\n"
        return ""

    def inside_fence(self, text: str, pos: int) -> int:
        """Where the lines of `text` from the line start `pos` stop being the open
        fence's text (only a fence line may close it, and nothing else opens inside
        one): the start of the first fence line, or of a line holding a backtick run
        when fences are rendered, or of the incomplete last line.
        They are tracked as `track` would track them one by one. `pos` when no fence
        is open, or a raw block or HTML block is open too."""
        if self.fence is None or self.raw is not None or self.html is not None:
            return pos
        closer = _FENCE_LINE.search(text, pos)
        stop = len(text) if closer is None else closer.start()
        if self.rendered:  # a line holding a run is tracked alone (`pattern`)
            run = text.find("```", pos, stop)
            stop = stop if run < 0 else run
        end = text.rfind("\n", pos, stop) + 1
        if end <= pos:
            return pos
        self.closed_fence = False
        if self.raw_closed and _BLANK_LINE.search(text, pos, end - 1):
            self.raw_closed = False
        self.skipped(text, pos, end)
        return end

    def skipped(self, text: str, pos: int, end: int) -> None:
        """The whole lines text[pos:end], which open and close nothing, were taken at once."""
        last = max(pos, text.rfind("\n", pos, end - 1) + 1)
        self.blank = not text[last:end].strip(SPACE)

    def track(self, line: str) -> None:
        """Update what is open with one complete line (the lines a lone `\r` ends in
        it, each in turn)."""
        if "\r" in line and _LONE_CR.search(line):
            for part in _LONE_CR.split(line):
                self._track(part + "\n")
            return
        self._track(line)

    def _track(self, line: str) -> None:
        self.closed_fence = False
        was_raw, chained = self.raw, self.raw_closed
        if self.fence is not None:
            if _closes(self.fence, line):
                self.fence, self.closed_fence = None, True
        elif self.html is not None:
            if self.html.search(line):
                self.html = None
        else:
            self._open(line)
        if was_raw is not None:
            self.raw, self.raw_depth, _end = follow_raw_block(line, 0, was_raw, self.raw_depth)
            self.raw_closed = self.raw is None
        elif chained and self.raw is None and self.fence is None:
            # After raw HTML closed, python-markdown opens it again at a block tag
            # anywhere up to the next blank line.
            self._open_raw(line, next_raw_tag(line, 0, len(line)))
        if self.fence is None and self.html is None and (self.tag_open or "<" in line):
            self.tag_open = _tag_open(self.tag_open, line)
        if self.rendered and "```" in line:
            self.pattern = _last_run_language(line, self.rendered)
        self.blank = not line.strip(SPACE)
        self.raw_closed = self.raw_closed and not self.blank

    def _open(self, line: str) -> None:
        head = line[:4].lstrip()[:1]  # (python-markdown: any white space before a tag)
        if head not in _BLOCK_STARTS:
            return  # the usual line: prose, a list item, a quote
        if _OPENING_FENCE.match(line.rstrip("\r\n")):
            self.fence = line.rstrip("\r\n")
            return
        for opener, end in _HTML_BLOCKS:
            found = opener.match(line)
            if found:
                self.html = None if end.search(line, found.end()) else end
                break
        # python-markdown keeps a block tag at the start of any line raw, blank line
        # before it or not, until the end tag that balances it.
        if _LINE_TAG.match(line) and self.raw is None:
            self._open_raw(line, next_raw_tag(line, 0, len(line)))

    def _open_raw(self, line: str, tag: re.Match[str] | None) -> None:
        if tag is not None:
            self.raw, self.raw_depth, _end = follow_raw_block(line, tag.start(), tag.group(1))
            self.raw_closed = self.raw is None


def _inert_fence(line: str) -> str:
    """A fence's opening line, with nothing in its info string left to pair with text
    after it: the line was judged in its own unit, and `[` or `<` still open there
    were escaped at the cut. (`?` keeps a plain info string plain, and others not.)"""
    run = _FENCE.match(line)
    end = run.end() if run is not None else 0
    return line[:end] + line[end:].replace("[", "?").replace("<", "?")


def _last_run_language(line: str, rendered: frozenset[str]) -> str | None:
    """The rendered language the last backtick run of a complete line opens, if any:
    every run opens a fence to the next one for a UI that pairs them by pattern."""
    end = line.rfind("```") + 3  # the run's end: `rfind` finds its last three
    language = info_language(line[end:].rstrip("\r\n"))
    return language if language in rendered else None


def _pattern_line(language: str) -> str:
    """A line a pattern-reading UI opens a `language` fence at, which Markdown reads
    as a paragraph (not at a line start: no fence) ended by a blank line (so that its
    backticks pair with nothing after)."""
    return f"x ```{language}\n\n"


def _closes(opening: str, line: str) -> bool:
    opener, closer = _FENCE.match(opening), _FENCE.match(line)
    if opener is None or closer is None:
        return False
    mark, close = opener.group(1), closer.group(1)
    return close[0] == mark[0] and len(close) >= len(mark) and not line[closer.end() :].strip(SPACE)


def _tag_open(was_open: bool, line: str) -> bool:
    if was_open:
        if ">" not in line:
            return True
        line = line[line.index(">") + 1 :]
    # Still open: the last `<` starts a tag, an `=` follows it and no `>` does. Read
    # with `find`, not one regex: `[^<>]*=[^<>]*$` backtracked over every `=` of a line.
    line = line.rstrip("\r\n")
    start = line.rfind("<")
    tag = _TAG_OPEN.match(line, start) if start >= 0 else None
    return tag is not None and ">" not in line[start:] and "=" in line[tag.end() :]
