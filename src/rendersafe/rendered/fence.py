"""A rendered fence, what a judge cuts from it, and how the cuts become edits.

A `Fence` is the text a renderer receives (a fence's content, math in prose) and
where it stands in the pass's source. A judge returns `Cut`s in the fence's own
offsets; `record` moves them into the source (through `to_source` where container
markers were stripped) and records each with its finding: construct
`rendered_fence`, detail `<language>: <what>`. A cut that cannot be placed empties
the fence instead (failing closed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..engine.edits import Edit, Keep
from ..engine.rendered import INFO_WORD, info_language
from ..engine.state import Detector, Pass
from ..findings import Action, Construct, Reason
from ..urls import Verdict

__all__ = ["Cut", "Fence", "escaped_openers", "record", "relabel", "show_as_code"]


@dataclass(frozen=True, slots=True)
class Fence:
    """What a renderer receives: `text`, which starts at `start` in the source.

    `to_source` maps an offset in `text` to one in the source, where the text is not
    a verbatim slice of it (a fence in a list or quote); None: it is."""

    language: str
    kind: str
    text: str
    start: int
    to_source: Callable[[int], int | None] | None = None
    detector: Detector = "markdown"

    def source(self, offset: int) -> int | None:
        """The source offset of `offset` in the fence's text (None: not placed)."""
        if self.to_source is None:
            return self.start + offset
        return self.to_source(offset)

    @property
    def end(self) -> int:
        """Where the text ends in the source, without its last line end (its start
        when it cannot be placed)."""
        end = self.source(len(self.text.rstrip("\n")))
        return self.start if end is None else end


@dataclass(frozen=True, slots=True)
class Cut:
    """Edits to a fence's text (its offsets) and why: one finding."""

    edits: tuple[Edit, ...]
    what: str
    reasons: tuple[Reason, ...]
    verdict: Verdict | None = None
    action: Action = Action.REMOVED

    @classmethod
    def remove(
        cls,
        start: int,
        end: int,
        what: str,
        reasons: tuple[Reason, ...],
        verdict: Verdict | None = None,
    ) -> Cut:
        """Take `text[start:end]` out."""
        return cls((Edit(start, end, ()),), what, reasons, verdict)

    def shifted(self, offset: int) -> Cut:
        """This cut in the offsets of a larger text, where its own text starts at `offset`."""
        edits = tuple(
            Edit(
                e.start + offset,
                e.end + offset,
                tuple(
                    Keep(p.start + offset, p.end + offset) if isinstance(p, Keep) else p
                    for p in e.parts
                ),
            )
            for e in self.edits
        )
        return replace(self, edits=edits)

    @property
    def start(self) -> int:
        return self.edits[0].start

    @property
    def end(self) -> int:
        return self.edits[-1].end


def escaped_openers(text: str, what: str) -> Cut:
    """Every `<` of `text` shown as text (`&lt;`): markup no reading agrees on."""
    edits = tuple(Edit(i, i + 1, ("&lt;",)) for i, c in enumerate(text) if c == "<")
    return Cut(edits, what, (Reason.MALFORMED_HTML,), action=Action.NEUTRALISED)


def record(ps: Pass, fence: Fence, cuts: list[Cut]) -> None:
    """Record `cuts` as edits of the source, each with its finding."""
    placed = [_placed(fence, cut) for cut in cuts]
    if any(edits is None for edits in placed):
        reasons = tuple(sorted({r for cut in cuts for r in cut.reasons}))
        edit = Edit(fence.start, fence.end, ())
        detail = f"{fence.language}: {', '.join(sorted({c.what for c in cuts}))} (unplaced)"
        ps.change(edit, Construct.RENDERED_FENCE, Action.REMOVED, reasons, detail=detail)
        return
    for cut, edits in zip(cuts, placed, strict=True):
        ps.change_all(
            list(edits or ()),
            Construct.RENDERED_FENCE,
            cut.action,
            cut.reasons,
            verdict=cut.verdict,
            detail=f"{fence.language}: {cut.what}",
            detector=fence.detector,
        )


def _placed(fence: Fence, cut: Cut) -> tuple[Edit, ...] | None:
    edits = []
    for edit in cut.edits:
        start, end = fence.source(edit.start), fence.source(edit.end)
        if start is None or end is None or end < start:
            return None
        parts: list[str | Keep] = []
        for part in edit.parts:
            if isinstance(part, Keep):
                kept = fence.source(part.start), fence.source(part.end)
                if kept[0] is None or kept[1] is None:
                    return None
                parts.append(Keep(kept[0], kept[1]))
            else:
                parts.append(part)
        edits.append(Edit(start, end, tuple(parts)))
    return tuple(edits)


def relabel(ps: Pass, since: int, fence: Fence) -> None:
    """The findings recorded since note `since` (by the raw-HTML judge) as the
    fence's: construct `rendered_fence`, the language in the detail."""
    for i in range(since, len(ps.notes)):
        note = ps.notes[i]
        detail = f"{fence.language}: {note.detail}" if note.detail else fence.language
        ps.notes[i] = replace(
            note, construct=Construct.RENDERED_FENCE, detail=detail, detector=fence.detector
        )


def show_as_code(
    ps: Pass, run: int, info: int, line_end: int, detector: Detector = "markdown"
) -> bool:
    """Show the rendered fence whose opening run starts at `run` as code, in a unit a
    forced cut ended: the first word of its info string (text[info:line_end]; the
    language however spelt, `CSS`, `{.css}`, `&#99;ss`) becomes `text`. No piece of a
    fence past the hold limit can be judged as what the whole becomes (a construct the
    cut splits, `@import` | `'https://...'`, is in neither piece), so no UI may render
    it. False when the run is not this unit's or names no language."""
    word = INFO_WORD.match(ps.source.text, info, line_end)
    if word is None or not word.group(1) or run < (ps.cut_at or 0):
        return False
    ps.demoted.add(run)
    edit = Edit(word.start(1), word.end(1), ("text",))
    detail = f"{info_language(word.group(1))}: past the hold limit, shown as code"
    reasons = (Reason.HOLD_LIMIT,)
    ps.change(
        edit,
        Construct.RENDERED_FENCE,
        Action.NEUTRALISED,
        reasons,
        detail=detail,
        detector=detector,
    )
    return True
