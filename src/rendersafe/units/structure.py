"""A unit's output must end where its text ended: edits that move a boundary, undone.

Sanitising the output again cuts *it* into units. Where an edit changed what a line
opens or closes, that second run cuts elsewhere and reads differently: removing
`<n>` from `~<n>~~` leaves a fence open, removing `<svg>` from `<b =<svg>` leaves a
tag open over the blank line after it, an edit that leaves the unit starting with
a space joins it to the unit before, an escaped `<` that kept a raw block open lets
the unit fall apart into two. So a unit that changed is checked the way the next
run reads it: cut again (`split`; each piece is read on its own) and, where its
end no longer closes what its text closed, given back the boundary (`restore`) by
escaping the opener left open (`<` becomes `&lt;`, a fence's marker an entity) or
ending the last line as the text did. Nothing a stream sent (`keep` characters)
is touched.
"""

from __future__ import annotations

import re

from ..engine.rendered import NO_RENDERED_FENCES, RenderedFences
from ..markdown.python_markdown import next_raw_tag
from .blocks import OpenBlocks
from .segment import Segmenter

__all__ = ["restore", "split"]

_BLANK_START = (" ", "\t", "\r", "\n")
# The indentation of a text's first line that is not blank.
_INDENT = re.compile(r"(?:[ \t]*\r?\n)*([ \t]+)(?=\S)")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_FENCE_RUN = re.compile(r" {0,3}(`{3,}|~{3,})")
_ENTITIES = {"`": "&#96;", "~": "&#126;"}
_OPEN_TAG = re.compile(r"<[a-zA-Z][\w:-]*[\s/]+[^<>]*=[^<>]*$")
_LINE_START_TAG = re.compile(r" {0,3}<")


def split(text: str, limit: int, rendered: RenderedFences = NO_RENDERED_FENCES) -> list[str] | None:
    """`text` cut into units as a run over it would cut it (None: a forced cut);
    `rendered` as the run's segmenter has it (`Segmenter`)."""
    segmenter = Segmenter(limit, rendered)
    units = segmenter.push(text) + segmenter.finish()
    if any(unit.forced or unit.prefix for unit in units):
        return None
    return [unit.text for unit in units] or [text]


def restore(original: str, output: str, keep: int) -> str | None:
    """`output` with one boundary an edit moved given back, or unchanged when none
    moved; None when what moved lies in the first `keep` characters."""
    indent = _INDENT.match(output)
    if indent is not None and not original.startswith(_BLANK_START):
        # The unit would continue the block before it: blank lines may stay.
        return output[: indent.start(1)] + output[indent.end(1) :] if keep == 0 else None
    if not _End.of(original).at_cut:
        return output  # the last unit, or one cut mid-block: nothing follows it here
    return _restore_end(output, keep)


def _restore_end(output: str, keep: int) -> str | None:
    """`output`, which must end where a unit can start, with its last line ended or
    the opener still open at its end escaped."""
    after = _End.of(output)
    if after.at_cut:
        return output
    if not after.state.open:
        return output + ("\n" if output.endswith("\n") else "\n\n")
    pos = after.opener(keep)
    if pos is None:
        return None
    escaped = _ENTITIES.get(output[pos], "&lt;")
    return output[:pos] + escaped + output[pos + 1 :]


class _End:
    """What a text leaves open at its end, and the line from which it has been open."""

    def __init__(self, state: OpenBlocks, line: int, line_text: str) -> None:
        self.state = state
        self.line = line  # offset of the line that opened what is open
        self.line_text = line_text

    @classmethod
    def of(cls, text: str) -> _End:
        state, line, line_text = OpenBlocks(), 0, ""
        for match in _LINE.finditer(text):
            was_open = state.open
            state.track(match.group())
            if state.open and not was_open:
                line, line_text = match.start(), match.group()
        return cls(state, line, line_text)

    @property
    def at_cut(self) -> bool:
        """Could a unit start right after this text?"""
        return not self.state.open and (self.state.blank or self.state.closed_fence)

    def opener(self, keep: int) -> int | None:
        """Where the character to escape is: a fence's first marker from `keep` on,
        the `<` of an HTML block or raw block opening the line, else of a tag still
        open (None: none, or one before `keep`)."""
        pos = self._opener(keep)
        return pos if pos is not None and pos >= keep else None

    def _opener(self, keep: int) -> int | None:
        line = self.line_text.rstrip("\r\n")
        fence = _FENCE_RUN.match(line)
        if self.state.fence is not None and fence is not None:
            first = max(self.line + fence.start(1), keep)
            return first if first < self.line + fence.end(1) else None
        tag = _OPEN_TAG.search(line)
        if self.state.tag_open and tag is not None:
            return self.line + tag.start()
        start = _LINE_START_TAG.match(line)
        if start is not None:
            return self.line + start.end() - 1
        raw = next_raw_tag(line, 0, len(line))
        return self.line + raw.start() if raw is not None else None
