"""`Carry`: what one unit leaves to the next, as one immutable value.

A pass reads the carry it was given and returns a `Delta`, what its text added;
`Carry.after` folds the delta in. Nothing else changes a carry.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..urls import INVISIBLE, Verdict
from .agreement import AGREED, FenceAgreement, escaped_at
from .healing import NOTHING_OPEN, HealerState
from .tables import Overlay, Table, concatenated

__all__ = [
    "MAX_LABELS",
    "NO_CHANNELS",
    "Carry",
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
    # "!" when the unit before ended, at a forced cut, in an image's `!` no backslash
    # escapes (a stream sent it, with no `[` after it yet): a `[` starting this unit
    # would complete its opener (`units.forced_cut`).
    cut_tail: str = ""
    healer: HealerState = NOTHING_OPEN
    # How far renderers agree on the fences read so far (`engine.agreement`).
    fences: FenceAgreement = AGREED

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
            cut_tail=self._tail_after(text) if forced else "",
            healer=delta.healer,
            fences=self._fences_after(text, sent),
        )
        if not (delta.image_labels or delta.lenient or delta.references or delta.definitions):
            return moved  # nothing new about references (the usual unit)
        return moved._with_references(delta)

    def _tail_after(self, text: str) -> str:
        """What a forced cut after `text` leaves open (`_opener_at_end`); an attribute
        list still open when `text` is a piece of its line (a list longer than the
        hold limit is cut more than once; its `}` there were written out of reach, and
        python-markdown reads a list to its line's last one)."""
        if self.cut_tail == "{" and "\n" not in text:
            return "{"
        return _opener_at_end(text)

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


def _opener_at_end(text: str) -> str:
    """The `!` `text` ends in (invisibles after it aside) that no backslash escapes;
    else `{` where its last line holds an attribute list's `{` with no `}` after it
    (the text after the cut may close it); or ""."""
    line = text[text.rfind("\n") + 1 :]
    brace = line.rfind("{")
    # (where python-markdown reads an attribute list: after a space, a fence's run or
    # an inline element's end; not a TeX argument's `\href{`)
    after = line[brace - 1] if brace > 0 else " "
    if (
        brace >= 0
        and "}" not in line[brace:]
        and after in _LIST_AFTER
        and not escaped_at(line, brace)
    ):
        return "{"
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
