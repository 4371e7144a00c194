"""The answer for a unit whose re-check does not settle: safe by construction.

Every pass that changes a unit is checked again; one that keeps changing means two
readings disagree about what an edit did. Refusing the reply would let an attacker
who can make a model write one odd tag deny every reply, so the unit is neutralised
instead, without any parser's opinion: every `<`, `[` and `{` is escaped (no tag,
comment, autolink, link, image, reference or attribute list can start) and every word a
renderer could link
is removed. What a stream already sent of the unit (up to its first opener or
URL-like word) is not touched.
"""

from __future__ import annotations

import re

from ..engine.triggers import URLISH, sendable
from ..findings import Action, Construct, Finding, Reason
from .segment import Unit

__all__ = ["boundary_finding", "neutralise_unit", "unsettled_finding"]

# (and a `}`: the `{` of an attribute list may have been sent already)
_OPENERS = re.compile(r"[<\[{}]")
_WORD = re.compile(r"\S+")
_FENCE_LINE = re.compile(r"[^\S\n]*(?:`{3,}|~{3,})")


def neutralise_unit(
    unit: Unit, link_marker: str, hold: re.Pattern[str] | None = None, *, in_list: bool = False
) -> str:
    """`unit.text` with every opener escaped and every URL-like word replaced by
    `link_marker` (already escaped for Markdown), from where a stream stops sending
    (`hold`: what else a stream holds back, `engine.rendered`; `in_list`: the unit
    starts inside an attribute list a forced cut left open)."""
    keep, _held = sendable(unit.text, final=True, hold=hold, prefix=unit.prefix, in_list=in_list)
    text = unit.text
    rest = _OPENERS.sub(lambda m: _escape(text, keep + m.start()), text[keep:])
    rest = _WORD.sub(lambda m: link_marker if URLISH.search(m.group()) else m.group(), rest)
    return unit.text[:keep] + rest


def _escape(text: str, at: int) -> str:
    """The opener at `at`, escaped: a `<` as a reference (python-markdown takes no
    backslash for its escape), and a `}` on a fence's line (its fenced_code reads the
    line before any escape); a `[`, a `{` or a `}` (an attribute list's) with a
    backslash, unless one already escapes it (another would escape the backslash and
    leave it open: each run adding one)."""
    if text[at] == "<":
        return "&lt;"
    line = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
    if text[at] == "}" and _FENCE_LINE.match(text, line):
        return "&#125;"
    run = at
    while run > 0 and text[run - 1] == "\\":
        run -= 1
    return text[at] if (at - run) % 2 else "\\" + text[at]


def unsettled_finding(
    unit: Unit, line: int, column: int, construct: Construct, context: dict[str, str]
) -> Finding:
    """The finding that explains a neutralised unit (1-based `line` and `column`)."""
    detail = "the re-check did not settle: openers escaped, URLs removed in this block"
    return _unit_finding(
        unit, (line, column), construct, Reason.UNSETTLED, detail=detail, context=context
    )


def boundary_finding(unit: Unit, line: int, column: int, context: dict[str, str]) -> Finding:
    """The finding for an opener escaped (or a line ended) so that an edit in `unit`
    does not change what the text after it means (1-based `line` and `column`)."""
    detail = "an edit left something open past the end of its block: its opener escaped"
    return _unit_finding(
        unit,
        (line, column),
        Construct.HTML,
        Reason.MALFORMED_HTML,
        detail=detail,
        context=context,
        recheck=True,
    )


def _unit_finding(
    unit: Unit,
    at: tuple[int, int],
    construct: Construct,
    reason: Reason,
    *,
    detail: str,
    context: dict[str, str],
    recheck: bool = False,
) -> Finding:
    """A finding over the whole of `unit`, neutralised by the lexical pass."""
    return Finding(
        kind=construct,
        action=Action.NEUTRALISED,
        reasons=(reason,),
        line=at[0],
        column=at[1],
        start=unit.start,
        end=unit.start + len(unit.text),
        detail=detail,
        detector="lexical",
        recheck=recheck,
        context=context,
    )
