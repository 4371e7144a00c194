"""Minimal edits spliced into the original text; nothing outside an edit changes.

An `Edit` replaces `text[start:end]` by its parts: literal strings and `Keep`
ranges copied from the original (with any edits nested inside them applied). An
image becomes `Keep(alt) + marker`; a link with data becomes `Keep(label)`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Edit", "Keep", "splice"]

# Edits nested deeper than this are merged into one: splicing recurses per level.
MAX_DEPTH = 64


@dataclass(frozen=True, slots=True)
class Keep:
    """Copy `text[start:end]` of the original, applying the edits nested inside it."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace `text[start:end]` with `parts`."""

    start: int
    end: int
    parts: tuple[str | Keep, ...]


def splice(text: str, edits: list[Edit], conflict: str) -> str:
    """Apply `edits` to `text`. Overlapping edits that do not nest are merged and
    replaced by `conflict`: when two changes disagree, neither survives.
    """
    ordered = _resolve(sorted(edits, key=lambda e: (e.start, -e.end)), conflict)
    splicer = _Splicer(text, ordered)
    splicer.emit(0, 0, len(text))
    return "".join(splicer.out)


def _resolve(edits: list[Edit], conflict: str) -> list[Edit]:
    while (clash := _find_clash(edits)) is not None:
        merged = Edit(min(e.start for e in clash), max(e.end for e in clash), (conflict,))
        kept = [e for e in edits if not (merged.start <= e.start and e.end <= merged.end)]
        edits = sorted([*kept, merged], key=lambda e: (e.start, -e.end))
    return edits


def _find_clash(edits: list[Edit]) -> tuple[Edit, Edit] | None:
    stack: list[Edit] = []
    for edit in edits:
        while stack and stack[-1].end <= edit.start:
            stack.pop()
        if len(stack) >= MAX_DEPTH:
            return stack[0], edit  # bounded recursion when splicing
        if stack and (edit.end > stack[-1].end or not _fits(stack[-1], edit)):
            return stack[-1], edit
        stack.append(edit)
    return None


def _fits(parent: Edit, child: Edit) -> bool:
    """A nested edit must lie inside one Keep range of its parent, or wholly outside all."""
    for part in parent.parts:
        if isinstance(part, Keep) and part.start < child.end and child.start < part.end:
            return part.start <= child.start and child.end <= part.end
    return True


class _Splicer:
    def __init__(self, text: str, edits: list[Edit]) -> None:
        self.text = text
        self.edits = edits
        self.out: list[str] = []

    def emit(self, i: int, lo: int, hi: int) -> int:
        """Write text[lo:hi] with the edits from index `i` on; return the next unused index."""
        edits, pos = self.edits, lo
        while i < len(edits) and edits[i].start < hi:
            edit = edits[i]
            i += 1
            if edit.start < pos:
                continue  # inside a range an earlier edit removed
            self.out.append(self.text[pos : edit.start])
            for part in edit.parts:
                if isinstance(part, str):
                    self.out.append(part)
                else:
                    i = self.emit(self.skip_before(i, part.start), part.start, part.end)
            pos = edit.end
            i = self.skip_before(i, edit.end)
        self.out.append(self.text[pos:hi])
        return i

    def skip_before(self, i: int, offset: int) -> int:
        """The first index from `i` whose edit starts at or after `offset`."""
        while i < len(self.edits) and self.edits[i].start < offset:
            i += 1
        return i
