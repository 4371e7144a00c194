"""`Carry`: what one unit leaves to the next, as one immutable value.

A pass reads the carry it was given and returns a `Delta`, what its text added;
`Carry.after` folds the delta in. Nothing else changes a carry.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from ..urls import Verdict
from .healing import NOTHING_OPEN, HealerState

__all__ = ["MAX_LABELS", "Carry", "Delta", "LenientDefinition"]

# Labels remembered across units: bounded, so a stream's memory is too. Past it,
# every new definition is judged as an image would use it (the stricter reading).
MAX_LABELS = 4096

_NO_REFERENCES: MappingProxyType[str, Any] = MappingProxyType({})
_NO_DEFINITIONS: MappingProxyType[str, bool] = MappingProxyType({})


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


_NO_LENIENT: MappingProxyType[str, tuple[LenientDefinition, ...]] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Delta:
    """What one pass over a unit adds to the carry."""

    # markdown-it's reference table after the parse (the carried entries included).
    references: dict[str, dict[str, Any]]
    # Labels the Markdown pass defined here, and whether each one was kept.
    definitions: dict[str, bool]
    # Definitions the lenient pass keeps here.
    lenient: tuple[LenientDefinition, ...]
    # Labels images used here.
    image_labels: frozenset[str]
    # Images kept in the reply so far (the image cap's count).
    images_kept: int
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

    references: MappingProxyType[str, Any] = field(default_factory=lambda: _NO_REFERENCES)
    definitions: MappingProxyType[str, bool] = field(default_factory=lambda: _NO_DEFINITIONS)
    lenient: tuple[LenientDefinition, ...] = ()
    # The same definitions by label key, in order: a unit looks its uses up here
    # instead of indexing every definition before it again.
    lenient_by_key: MappingProxyType[str, tuple[LenientDefinition, ...]] = field(
        default_factory=lambda: _NO_LENIENT
    )
    image_labels: frozenset[str] = frozenset()
    labels_overflowed: bool = False
    images_kept: int = 0
    line: int = 0  # 0-based line of the next unit
    column: int = 0  # characters of its first line in earlier units (a forced cut)
    after_forced_cut: bool = False
    healer: HealerState = NOTHING_OPEN

    def env(self) -> dict[str, Any]:
        """A fresh markdown-it `env` that resolves the references defined so far."""
        return {"references": dict(self.references)} if self.references else {}

    def is_defined(self, label: str) -> bool:
        """Was a reference with this (markdown-it) label kept in an earlier unit?"""
        return self.definitions.get(label, False)

    def after(self, delta: Delta, text: str, forced: bool) -> Carry:
        """The carry for the unit after one whose original text is `text`."""
        line, column = self._position_after(text)
        new_lenient = delta.lenient
        new_labels = delta.image_labels - self.image_labels
        if not new_labels and not new_lenient and len(delta.references) == len(self.references):
            # Nothing new about references (the usual unit): share the carried state.
            return replace(
                self,
                images_kept=delta.images_kept,
                line=line,
                column=column,
                after_forced_cut=forced,
                healer=delta.healer,
            )
        labels = self.image_labels | new_labels
        overflowed = self.labels_overflowed or len(labels) > MAX_LABELS
        # A table full already stays as it is (what is added comes after what it holds):
        # copying it for every unit after cost each unit the table's size.
        references, definitions, lenient = self.references, self.definitions, self.lenient
        if len(references) < MAX_LABELS:
            references = MappingProxyType(_first(delta.references))
        if len(definitions) < MAX_LABELS:
            definitions = MappingProxyType(_first({**definitions, **delta.definitions}))
        if len(lenient) < MAX_LABELS:
            lenient = (*lenient, *(d.carried() for d in new_lenient))[:MAX_LABELS]
        return Carry(
            references=references,
            definitions=definitions,
            lenient=lenient,
            lenient_by_key=_by_key(self.lenient_by_key, lenient[len(self.lenient) :]),
            image_labels=frozenset() if overflowed else labels,
            labels_overflowed=overflowed,
            images_kept=delta.images_kept,
            line=line,
            column=column,
            after_forced_cut=forced,
            healer=delta.healer,
        )

    def _position_after(self, text: str) -> tuple[int, int]:
        last_break = max(text.rfind("\n"), text.rfind("\r"))
        line = self.line + text.count("\n") + text.count("\r") - text.count("\r\n")
        column = self.column + len(text) if last_break < 0 else len(text) - last_break - 1
        return line, column


def _first(table: dict[str, Any]) -> dict[str, Any]:
    """The first `MAX_LABELS` entries of `table` (a copy)."""
    return dict(table) if len(table) <= MAX_LABELS else dict(list(table.items())[:MAX_LABELS])


def _by_key(
    index: MappingProxyType[str, tuple[LenientDefinition, ...]],
    added: tuple[LenientDefinition, ...],
) -> MappingProxyType[str, tuple[LenientDefinition, ...]]:
    """`index` with the definitions `added` after those it holds."""
    if not added:
        return index
    grown = dict(index)
    for definition in added:
        for key in definition.keys:
            grown[key] = (*grown.get(key, ()), definition)
    return MappingProxyType(grown)
