"""`CodeTrust`: how much of what markdown-it reads as code a pass may leave alone.

Code is left alone only where every renderer reads it as code (`markdown.code`
decides that). On top of it, how a text was cut limits what it may trust: after a
forced cut a backtick before the cut may pair with one here, and an indented line at
the start may continue a block before it; a text re-read after an edit left it
starting blank or indented may continue a list item before it; a text read without
the context it sits in (a raw block cut at its first tag) trusts no code at all. A
code span is trusted only where a healing renderer closes it at every prefix
(`healer`, what it holds open before the text; see `engine.healing`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .healing import NOTHING_OPEN, HealerState

__all__ = ["CodeTrust", "Trust"]

Trust = Literal["all", "continued", "after_cut", "none"]
"""From most to least trusting: nothing before the text; the text may continue a
block before it; it follows a forced cut; it was read out of its context."""

CodeKind = Literal["span", "block", "opening_block"]
"""A code span; an indented or fenced block; such a block with nothing before it in
the text (only a blank line or the start), which may continue what came before."""

_TRUSTED: dict[Trust, frozenset[CodeKind]] = {
    "all": frozenset({"span", "block", "opening_block"}),
    "continued": frozenset({"span", "block"}),
    "after_cut": frozenset({"block"}),
    "none": frozenset(),
}


@dataclass(frozen=True, slots=True)
class CodeTrust:
    """Which kinds of code a pass may trust, from how its text was cut."""

    level: Trust = "all"
    healer: HealerState = NOTHING_OPEN
    # From this offset of the text on, no code at all: renderers may pair its fences
    # otherwise (`engine.agreement`). None: nowhere.
    untrusted_from: int | None = None

    @classmethod
    def of(
        cls,
        *,
        after_forced_cut: bool,
        continues_block: bool,
        in_context: bool,
        healer: HealerState = NOTHING_OPEN,
        untrusted_from: int | None = None,
    ) -> CodeTrust:
        """The trust for a text with these circumstances (the least trusting wins)."""
        if not in_context:
            return cls("none", healer)
        if after_forced_cut:
            return cls("after_cut", healer, untrusted_from)
        return cls("continued" if continues_block else "all", healer, untrusted_from)

    def covers(self, end: int) -> bool:
        """May code ending at `end` be trusted, as far as fences agree?"""
        return self.untrusted_from is None or end <= self.untrusted_from

    def trusts(self, kind: CodeKind) -> bool:
        """May code of this kind be left alone (when every renderer agrees it is code)?"""
        return kind in _TRUSTED[self.level]
