"""The text a pass reads: normalised as markdown-it sees it, and indexed by line.

`Normalised` turns `\\r\\n` and `\\r` into `\\n` (and NUL into U+FFFD) and maps offsets
and edits back into the original; `SourceText` indexes the normalised text by line.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from .edits import Edit, Keep

__all__ = ["Normalised", "SourceText"]

_NEWLINE = re.compile("\n")


@dataclass(frozen=True, slots=True)
class SourceText:
    """The text markdown-it parses (line endings normalised), split into lines."""

    text: str
    lines: tuple[str, ...]
    starts: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> SourceText:
        """Index `text`, which must already use `\\n` line endings."""
        lines = tuple(text.split("\n"))
        starts = (0, *(m.end() for m in _NEWLINE.finditer(text)))
        return cls(text, lines, starts)

    def line_of(self, offset: int) -> int:
        """0-based line number holding `offset`."""
        return bisect.bisect_right(self.starts, offset) - 1

    def line_end(self, line: int) -> int:
        """Offset just past the last character of `line` (before its newline)."""
        return self.starts[line] + len(self.lines[line])

    def block_span(self, first: int, end: int) -> tuple[int, int]:
        """Offsets of lines first..end-1 (a token's `map`), without the last newline."""
        last = min(end, len(self.lines)) - 1
        return self.starts[first], self.line_end(max(last, first))


class Normalised:
    """The text markdown-it sees (`\\r\\n` and `\\r` as `\\n`, NUL as U+FFFD), and the
    way back to offsets in the original."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("\0", "\ufffd") if "\0" in text else text
        self._removed: list[int] = []
        if "\r" in text:
            self._removed = _crlf_positions(self.text)
            self.text = self.text.replace("\r\n", "\n").replace("\r", "\n")

    def offset(self, pos: int) -> int:
        """The original offset of normalised offset `pos`."""
        return pos + bisect.bisect_left(self._removed, pos) if self._removed else pos

    def edit(self, edit: Edit) -> Edit:
        """`edit` with its offsets moved into the original text."""
        if not self._removed:
            return edit
        parts = tuple(
            Keep(self.offset(p.start), self.offset(p.end)) if isinstance(p, Keep) else p
            for p in edit.parts
        )
        return Edit(self.offset(edit.start), self.offset(edit.end), parts)


def _crlf_positions(text: str) -> list[int]:
    """Normalised offsets of the `\\n` of each `\\r\\n` (where a `\\r` was dropped)."""
    positions, removed, start = [], 0, 0
    while (i := text.find("\r\n", start)) >= 0:
        positions.append(i - removed)
        removed += 1
        start = i + 2
    return positions
