"""`Carry`: what one unit leaves to the next, as one immutable value.

A pass reads the carry it was given and returns a `Delta`, what its text added;
`Carry.after` folds the delta in. Nothing else changes a carry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..urls import INVISIBLE, Verdict
from .agreement import AGREED, FenceAgreement, escaped_at
from .attributes import FENCE_OPENING
from .healing import NOTHING_OPEN, HealerState
from .tables import Overlay, Table, concatenated
from .triggers import may_set_attribute

__all__ = [
    "MAX_LABELS",
    "NO_CHANNELS",
    "Carry",
    "CutList",
    "Delta",
    "LenientDefinition",
    "parsed_references",
]

# Labels remembered across units: bounded, so a stream's memory is too. Past it,
# every new definition is judged as an image would use it (the stricter reading).
MAX_LABELS = 4096

_NO_REFERENCES: Table[dict[str, Any]] = Table()
_NO_DEFINITIONS: Table[bool] = Table()
_NO_LABELS: Table[bool] = Table()
NO_CHANNELS: Table[tuple[str, ...]] = Table(concatenated)


@dataclass(frozen=True, slots=True)
class LenientDefinition:
    """A reference definition as the lenient pass keeps it: where, its label keys,
    and why it would fail as an image or as a link (None: it would pass)."""

    pos: int
    keys: frozenset[str]
    image_bad: Verdict | None
    link_bad: Verdict | None

    def carried(self) -> LenientDefinition:
        """This definition as the units after it see it: before all of their text."""
        return replace(self, pos=-1)


_NO_LENIENT: Table[tuple[LenientDefinition, ...]] = Table(concatenated)


@dataclass(frozen=True, slots=True)
class CutList:
    """An attribute list's line a forced cut fell in, as the unit after the cut needs
    it to judge the `}` of its first line (`units.forced_cut`).

    While the line spans two units, `text` is all of it from its first list `{` ("":
    not known, the pass changed it): a stream may have seen it whole and sent it, so
    the judgement is exact. Once it runs through a whole unit (`long`), no stream saw
    it whole (it held the line from its `{`): `text` is its last `_TAIL` characters,
    and `risky` whether what came before may set a handler or a URL
    (`may_set_attribute`, read piece by piece: bounded memory, linear).
    """

    text: str
    long: bool = False
    risky: bool = False


@dataclass(frozen=True, slots=True)
class Delta:
    """What one pass over a unit adds to the carry."""

    # What markdown-it's reference table gained in the parse.
    references: dict[str, dict[str, Any]]
    # Labels the Markdown pass defined here, and whether each one was kept.
    definitions: dict[str, bool]
    # Definitions the lenient pass keeps here.
    lenient: tuple[LenientDefinition, ...]
    # Labels images used here, and not in the units before.
    image_labels: frozenset[str]
    # Images kept in the reply so far (the image cap's count).
    images_kept: int
    # The distinct images kept per channel so far (the beacons' count).
    image_channels: Table[tuple[str, ...]] = NO_CHANNELS
    # What a healing renderer holds open after the text.
    healer: HealerState = NOTHING_OPEN

    def with_labels(self, labels: frozenset[str]) -> Delta:
        """This delta, with `labels` also used by images (an earlier pass's)."""
        return (
            self
            if labels <= self.image_labels
            else replace(self, image_labels=self.image_labels | labels)
        )


@dataclass(frozen=True, slots=True)
class Carry:
    """What the units before a unit left behind."""

    # Each table is shared with the carries before it (see `Table`).
    references: Table[dict[str, Any]] = _NO_REFERENCES
    definitions: Table[bool] = _NO_DEFINITIONS
    # The lenient pass's definitions by label key, in order: a unit looks its uses
    # up here instead of indexing every definition before it again.
    lenient_by_key: Table[tuple[LenientDefinition, ...]] = _NO_LENIENT
    lenient_count: int = 0
    lenient_key_lengths: frozenset[int] = frozenset()  # the lengths of its keys
    image_labels: Table[bool] = _NO_LABELS
    labels_overflowed: bool = False
    images_kept: int = 0
    image_channels: Table[tuple[str, ...]] = NO_CHANNELS
    line: int = 0  # 0-based line of the next unit
    column: int = 0  # characters of its first line in earlier units (a forced cut)
    after_forced_cut: bool = False
    # What the unit before left open at a forced cut (`units.forced_cut`): "{" inside
    # an attribute list's line, whose `}` this unit's first line may hold ("{`": a
    # fence's opening line, read before escapes: a `\}` is a `}`); "!" when it
    # ended in an image's `!` no backslash escapes (a stream sent it, with no `[` after
    # it yet), which a `[` starting this unit would complete; or both.
    cut_tail: str = ""
    # With "{": that line as the unit after needs it (`CutList`).
    cut_list: CutList | None = None
    # The line the cut falls in, while all of it is a fence's run and blanks (its run
    # character, at most three of them, and a blank if one followed): a `{` that
    # starts the unit after opens the fence's attribute list (`units.forced_cut`).
    cut_fence: str = ""
    healer: HealerState = NOTHING_OPEN
    # How far renderers agree on the fences read so far (`engine.agreement`).
    fences: FenceAgreement = AGREED

    @property
    def in_list(self) -> bool:
        """Does the unit after start inside an attribute list a forced cut left open?"""
        return "{" in self.cut_tail

    def env(self) -> dict[str, Any]:
        """A fresh markdown-it `env` that resolves the references defined so far
        (what the parse defines goes to its `Overlay.added`)."""
        return {"references": Overlay(self.references)} if self.references else {}

    def is_defined(self, label: str) -> bool:
        """Was a reference with this (markdown-it) label kept in an earlier unit?"""
        return self.definitions.get(label) or False

    def after(self, delta: Delta, text: str, forced: bool, sent: str | None = None) -> Carry:
        """The carry for the unit after one whose original text is `text` (and whose
        output, where it differs, is `sent`)."""
        line, column = self._position_after(text)
        tail, cut_list = self._tail_after(text, sent) if forced else ("", None)
        cut_fence = self._fence_after(text) if forced else ""
        # Built field by field: `replace` costs more than the rest of a plain unit's fold.
        moved = Carry(
            references=self.references,
            definitions=self.definitions,
            lenient_by_key=self.lenient_by_key,
            lenient_count=self.lenient_count,
            lenient_key_lengths=self.lenient_key_lengths,
            image_labels=self.image_labels,
            labels_overflowed=self.labels_overflowed,
            images_kept=delta.images_kept,
            image_channels=delta.image_channels,
            line=line,
            column=column,
            after_forced_cut=forced,
            cut_tail=tail,
            cut_list=cut_list,
            cut_fence=cut_fence,
            healer=delta.healer,
            fences=self._fences_after(text, sent),
        )
        if not (delta.image_labels or delta.lenient or delta.references or delta.definitions):
            return moved  # nothing new about references (the usual unit)
        return moved._with_references(delta)

    def _tail_after(self, text: str, sent: str | None) -> tuple[str, CutList | None]:
        """What a forced cut after `text` (sent as `sent`, where that differs) leaves
        open (`cut_tail`), and the attribute list's line the cut falls in (`CutList`):
        python-markdown reads a list to its line's last `}`. A list longer than the
        hold limit is cut more than once: a line that runs through all of `text` stays
        open, in its long form."""
        bang = _bang_at_end(text)
        if "{" in self.cut_tail and "\n" not in text and "\r" not in text:
            return self.cut_tail.replace("!", "") + bang, self._longer(text, sent)
        listed = _list_at_end(text, self.cut_fence)
        if listed is None:
            return bang, None
        line, fence = listed
        if sent is not None and sent != text and not sent.endswith(line):
            line = ""  # the pass changed the list: a `}` it escaped ends nothing now
        return ("{`" if fence else "{") + bang, CutList(line)

    def _longer(self, text: str, sent: str | None) -> CutList:
        """The list's line, with all of `text` (a whole unit) in it too."""
        before = self.cut_list or CutList("")
        seen = before.text + text
        unknown = (not before.text and not before.long) or (sent is not None and sent != text)
        risky = unknown or before.risky or may_set_attribute(seen)
        return CutList(seen[-_TAIL:], long=True, risky=risky)

    def _fence_after(self, text: str) -> str:
        """`cut_fence` after a forced cut after `text`: its last line, with what the
        line held before `text` when `text` holds no line end, if all of it is a
        fence's run and blanks."""
        line = max(text.rfind("\n"), text.rfind("\r")) + 1
        so_far = text[line:] if line else self.cut_fence + text
        run = _FENCE_SO_FAR.fullmatch(so_far)
        if run is None:
            return ""
        return run.group(1)[:3] + (" " if run.end(1) < len(so_far) else "")

    def _fences_after(self, text: str, sent: str | None) -> FenceAgreement:
        """The fence agreement after a unit, as renderers read what was sent: a clean-up
        may leave a line that starts otherwise (`<svg></x` sent as `</x`, a tag marked
        reads on over blank lines); a disagreement in either reading holds."""
        read = self.fences.after(text)
        if sent is None or sent == text or read.broken:
            return read
        return self.fences.after(sent)

    def _with_references(self, delta: Delta) -> Carry:
        new_labels = {label: True for label in delta.image_labels if label not in self.image_labels}
        overflowed = self.labels_overflowed or len(self.image_labels) + len(new_labels) > MAX_LABELS
        room = max(0, MAX_LABELS - self.lenient_count)
        lenient = tuple(d.carried() for d in delta.lenient[:room])
        key_lengths = {len(key) for d in lenient for key in d.keys}
        return replace(
            self,
            references=self.references.grown(delta.references, limit=MAX_LABELS),
            definitions=self.definitions.grown(delta.definitions, limit=MAX_LABELS),
            lenient_by_key=self.lenient_by_key.grown(_by_key(lenient)),
            lenient_count=self.lenient_count + len(lenient),
            lenient_key_lengths=self.lenient_key_lengths.union(key_lengths),
            image_labels=_NO_LABELS if overflowed else self.image_labels.grown(new_labels),
            labels_overflowed=overflowed,
        )

    def _position_after(self, text: str) -> tuple[int, int]:
        last_break = max(text.rfind("\n"), text.rfind("\r"))
        line = self.line + text.count("\n") + text.count("\r") - text.count("\r\n")
        column = self.column + len(text) if last_break < 0 else len(text) - last_break - 1
        return line, column


def _list_at_end(text: str, fence_before: str = "") -> tuple[str, bool] | None:
    """The last line of `text` from its first attribute list's `{` (closed or not:
    the text after a cut may close it, or take it to a later `}`, as python-markdown
    reads a list to its line's last one), and whether that line opens a fence (whose
    list fenced_code reads before any escape; `fence_before`: the run a unit before
    left the line with, `cut_fence`); None when it holds no list."""
    line = max(text.rfind("\n"), text.rfind("\r")) + 1
    lead = "" if line else fence_before
    for brace in _OPEN_BRACE.finditer(text, line):
        if _opens_list(text, brace.start(), line):
            fence = FENCE_OPENING.fullmatch(lead + text[line : brace.start()]) is not None
            return text[brace.start() :], fence
    return None


def _bang_at_end(text: str) -> str:
    """`!` when `text` ends in one (invisibles after it aside) no backslash escapes."""
    end = len(text)
    while end > 0 and INVISIBLE.match(text, end - 1):
        end -= 1
    if end == 0 or text[end - 1] != "!":
        return ""
    before = end - 2
    while before >= 0 and text[before] == "\\":
        before -= 1
    return text[end - 1] if (end - 2 - before) % 2 == 0 else ""


_LIST_AFTER = frozenset(" \t`~)*_]>")
# What a long attribute list's line keeps of its end: a name or a `name=` the cut split
# is read whole with the next unit.
_TAIL = 64
_OPEN_BRACE = re.compile(r"\{")
_FENCE_SO_FAR = re.compile(r"[^\S\n\r]*(`+|~+)[^\S\n\r]*")  # a fence's line, maybe unfinished


def _opens_list(text: str, brace: int, line: int) -> bool:
    """Does python-markdown read an attribute list from the `{` at `brace` (its line
    starts at `line`)? After a space, a fence's run or an inline element's end,
    unescaped; not a TeX argument's `\\href{`."""
    after = text[brace - 1] if brace > line else " "
    return after in _LIST_AFTER and not escaped_at(text, brace)


def _by_key(added: tuple[LenientDefinition, ...]) -> dict[str, tuple[LenientDefinition, ...]]:
    """The definitions `added`, by label key, in order."""
    index: dict[str, tuple[LenientDefinition, ...]] = {}
    for definition in added:
        for key in definition.keys:
            index[key] = (*index.get(key, ()), definition)
    return index


def parsed_references(env: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What a parse given a carry's `env()` added to markdown-it's reference table."""
    table = env.get("references")
    if isinstance(table, Overlay):
        return table.added
    return table or {}
