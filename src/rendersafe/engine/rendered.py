"""What a policy's rendered fences compile to: each declared language and what it
becomes, and what a stream must hold back for them.

A fence the chat UI renders as live content (`Policy.rendered_fences`) is judged
whole, so a stream holds it from its opening line until the unit ends (the segmenter
ends a unit only after a fence closes): `hold` finds that line, even half written
(three backticks and nothing yet after them). With `$$` (math in prose), a TeX macro
that can fetch or define another is held too: its edit may start there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from markdown_it.common.utils import unescapeAll

from ..policy import RENDERED_FENCES

__all__ = [
    "INFO_WORD",
    "NO_RENDERED_FENCES",
    "PROSE_MATH",
    "TEX_HOLDERS",
    "RenderedFences",
    "info_language",
]

PROSE_MATH = "$$"
# TeX control words that fetch, style with CSS, load, or make another name for one.
TEX_HOLDERS = tuple(
    [
        "href",
        "url",
        "includegraphics",
        "htmlStyle",
        "style",
        "require",
        "def",
        "gdef",
        "edef",
        "xdef",
        "let",
        "futurelet",
        "newcommand",
        "renewcommand",
        "providecommand",
        "DeclareRobustCommand",
        "csname",
        "expandafter",
        "global",
    ]
)
# The first word of a fence's info string, as marked, remark and markdown-it take it
# (`{.html}` and `.html`, pandoc's attribute forms, read as `html` too).
INFO_WORD = re.compile(r"[\s{.]*([^\s{}.]*)")
_RUN = r"(?:`{3,}|~{3,})[ \t]*[{.]*"


def info_language(info: str) -> str:
    """The language a fence's info string names, lower case ("" when none), its
    character references and backslash escapes decoded as every CommonMark renderer
    decodes them (`&#109;ermaid` is a Mermaid fence)."""
    if "&" in info or "\\" in info:
        info = unescapeAll(info)
    found = INFO_WORD.match(info)
    return found.group(1).lower() if found is not None else ""


@dataclass(frozen=True, slots=True)
class RenderedFences:
    """The rendered fences of one policy, compiled once."""

    kinds: Mapping[str, str] = field(default_factory=dict)  # language -> what it becomes
    prose_math: bool = False
    hold: re.Pattern[str] | None = None
    # Characters a stream must not pass on without reading (`streaming`).
    triggers: str = ""

    @classmethod
    def of(cls, names: Iterable[str]) -> RenderedFences:
        """Compile the languages a policy declares."""
        declared = tuple(names)
        kinds = {n: RENDERED_FENCES[n] for n in declared if n != PROSE_MATH}
        prose_math = PROSE_MATH in declared
        holds = []
        if kinds:
            languages = "|".join(sorted(map(re.escape, kinds), key=len, reverse=True))
            # A run followed by a declared language, by nothing yet but letters, or by
            # a character reference or an escape, which may spell one (`&#109;ermaid`).
            holds.append(rf"{_RUN}(?:(?i:{languages}|[a-z]*\Z)|[&\\])")
        if prose_math:
            # A control word that may still grow into one of them is held as well (a
            # forced cut may split it: `\includegraph` | `ics{...}`, `units.forced_cut`).
            holds.append(rf"\\(?:(?:{'|'.join(TEX_HOLDERS)})(?![A-Za-z])|[A-Za-z]*\Z)")
        hold = re.compile("|".join(holds)) if holds else None
        triggers = ("`~" if kinds else "") + ("\\" if prose_math else "")
        return cls(MappingProxyType(kinds), prose_math, hold, triggers)

    def __bool__(self) -> bool:
        return self.hold is not None

    def kind(self, language: str) -> str | None:
        """What a fence in `language` becomes, or None when it stays code."""
        return self.kinds.get(language)


NO_RENDERED_FENCES = RenderedFences()
