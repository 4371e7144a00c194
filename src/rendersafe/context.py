"""`Pass`: the one object a sanitising pass threads through every rule.

It carries the compiled policy, the source being read, the regions already
decided (code, HTML, text an edit removed), and collects edits and findings.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from .edits import Edit, Keep
from .findings import Action, Construct, Reason
from .policy import Policy
from .spans import Source
from .urls import Role, UrlJudge, Verdict

__all__ = ["LenientDefinition", "Markers", "Note", "Pass", "Regions"]

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def escape_markdown(text: str) -> str:
    """Backslash-escape every ASCII punctuation character: inert in every renderer."""
    return _PUNCTUATION.sub(r"\\\1", text)


@dataclass(frozen=True, slots=True)
class Markers:
    """The replacement texts a policy asks for, escaped once."""

    image: str
    link: str
    conflict: str

    @classmethod
    def of(cls, policy: Policy) -> Markers:
        """Escape the policy's markers for use inside Markdown."""
        return cls(
            escape_markdown(policy.image_marker),
            escape_markdown(policy.link_marker),
            escape_markdown("[content removed]"),
        )


class Regions:
    """A set of half-open [start, end) ranges, queried by offset."""

    __slots__ = ("_ends", "_sorted", "_starts")

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._sorted = True

    def __iter__(self) -> Iterator[tuple[int, int]]:
        if not self._sorted:
            self._sort()
        return iter(zip(self._starts, self._ends, strict=True))

    def add(self, start: int, end: int) -> None:
        """Add [start, end); empty ranges are ignored."""
        if end <= start:
            return
        if self._starts and start < self._starts[-1]:
            self._sorted = False
        self._starts.append(start)
        self._ends.append(end)

    def __contains__(self, offset: object) -> bool:
        if not isinstance(offset, int) or not self._starts:
            return False
        if not self._sorted:
            self._sort()
        i = bisect.bisect_right(self._starts, offset) - 1
        return i >= 0 and offset < self._ends[i]

    def end_of(self, offset: int) -> int:
        """The end of the range holding `offset`, or `offset` when none does."""
        if not self._starts:
            return offset
        if not self._sorted:
            self._sort()
        i = bisect.bisect_right(self._starts, offset) - 1
        return self._ends[i] if i >= 0 and offset < self._ends[i] else offset

    def _sort(self) -> None:
        pairs = sorted(zip(self._starts, self._ends, strict=True))
        self._starts = [start for start, _end in pairs]
        # A later-starting range can end before an earlier one: keep the running maximum.
        self._ends, reach = [], -1
        for _start, end in pairs:
            reach = max(reach, end)
            self._ends.append(reach)
        self._sorted = True


@dataclass(frozen=True, slots=True)
class LenientDefinition:
    """A reference definition as the lenient pass keeps it: where, its label keys,
    and why it would fail as an image or as a link (None: it would pass)."""

    pos: int
    keys: frozenset[str]
    image_bad: Verdict | None
    link_bad: Verdict | None


@dataclass(frozen=True, slots=True)
class Note:
    """A finding before it is placed: offsets are into the pass's source text."""

    construct: Construct
    action: Action
    reasons: tuple[Reason, ...]
    start: int
    end: int
    host: str | None
    url: Verdict | None
    detail: str | None
    detector: Literal["markdown", "lexical"]


@dataclass(slots=True)
class Pass:
    """State for one sanitising pass over one text."""

    policy: Policy
    judge: UrlJudge
    markers: Markers
    source: Source
    code: Regions = field(default_factory=Regions)
    html: Regions = field(default_factory=Regions)
    claimed: Regions = field(default_factory=Regions)
    edits: list[Edit] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    images_kept: int = 0
    # Normalised labels of reference definitions, in the order they were decided.
    definitions: dict[str, bool] = field(default_factory=dict)
    # Offsets of the first image-style use of each label, from the lexical index.
    image_uses: dict[str, int] = field(default_factory=dict)
    # Where the definitions markdown-it recognised start (the lexical pass skips them).
    ast_definitions: set[int] = field(default_factory=set)
    # Definitions the lenient pass keeps, this text's and earlier units'.
    lenient: list[LenientDefinition] = field(default_factory=list)
    # This text follows a forced cut: no code span, nor indented code at its start,
    # is trusted (either may continue before the cut).
    after_forced_cut: bool = False
    # No code in this text is trusted: it was read without the context it sits in.
    trust_code: bool = True
    # This text may continue a block before it: indented code at its start is not
    # trusted.
    continues_block: bool = False
    # Too many labels were seen to remember: judge every definition as an image's.
    labels_overflowed: bool = False
    # `[`s with no `]` by the end of the text (outside code).
    open_brackets: list[int] = field(default_factory=list)

    def change(
        self,
        edit: Edit,
        construct: Construct,
        action: Action,
        reasons: Iterable[Reason],
        *,
        verdict: Verdict | None = None,
        detail: str | None = None,
        detector: Literal["markdown", "lexical"] = "markdown",
    ) -> None:
        """Record an edit and the finding that explains it."""
        self.edits.append(edit)
        for start, end in _removed_ranges(edit):
            self.claimed.add(start, end)
        host = verdict.host if verdict is not None else None
        self.notes.append(
            Note(
                construct,
                action,
                tuple(sorted(set(reasons))),
                edit.start,
                edit.end,
                host,
                verdict,
                detail,
                detector,
            )
        )

    @property
    def link_schemes(self) -> frozenset[str]:
        """Schemes a kept URL can have under this policy."""
        extra = {"data"} if self.policy.allow_data_images else set()
        return frozenset(self.policy.allowed_link_schemes) | extra

    def judge_image(self, raw: str, *, decode_entities: bool = False) -> Verdict:
        """Judge an image URL, counting it against the per-reply image cap when kept."""
        verdict = self.judge.judge(raw, Role.IMAGE, decode_entities=decode_entities)
        if verdict.action == "drop":
            return verdict
        cap = self.policy.max_images
        if cap is not None and self.images_kept >= cap:
            return Verdict("drop", (Reason.IMAGE_CAP_EXCEEDED,), verdict.url)
        self.images_kept += 1
        return verdict

    def judge_link(self, raw: str, *, decode_entities: bool = False) -> Verdict:
        """Judge a link URL."""
        return self.judge.judge(raw, Role.LINK, decode_entities=decode_entities)

    def image_parts(self, alt: Keep | None) -> tuple[str | Keep, ...]:
        """What replaces a removed image whose alt text is `alt`."""
        mode = self.policy.removed_image
        has_alt = alt is not None and alt.end > alt.start
        if mode == "nothing" or (mode == "alt" and not has_alt):
            return ()
        if alt is None or not has_alt or mode == "marker":
            return (self.markers.image,)
        return (alt,) if mode == "alt" else (alt, " " + self.markers.image)

    def link_parts(self, text: Keep | None) -> tuple[str | Keep, ...]:
        """What replaces a link that carries data; `text` None when the text is the URL."""
        mode = self.policy.data_link
        if mode == "nothing":
            return ()
        if text is None or text.end <= text.start:
            return (self.markers.link,)
        return (text,) if mode == "text" else (text, " " + self.markers.link)


def _removed_ranges(edit: Edit) -> Iterable[tuple[int, int]]:
    pos = edit.start
    for part in edit.parts:
        if isinstance(part, Keep):
            yield pos, part.start
            pos = part.end
    yield pos, edit.end
