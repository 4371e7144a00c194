"""The answer for a unit whose re-check does not settle: safe by construction.

Every pass that changes a unit is checked again; one that keeps changing means two
readings disagree about what an edit did. Refusing the reply would let an attacker
who can make a model write one odd tag deny every reply, so the unit is neutralised
instead, without any parser's opinion: every `<` and `[` is escaped (no tag, comment,
autolink, link, image or reference can start) and every word a renderer could link
is removed. What a stream already sent of the unit (up to its first opener or
URL-like word) is not touched.
"""

from __future__ import annotations

import re

from ..engine.triggers import OPENER, URLISH
from ..findings import Action, Construct, Finding, Reason
from .segment import Unit

__all__ = ["neutralise_unit", "sendable", "unsettled_finding"]

_OPENERS = re.compile(r"[<\[]")
_WORD = re.compile(r"\S+")


def neutralise_unit(unit: Unit, link_marker: str) -> str:
    """`unit.text` with every opener escaped and every URL-like word replaced by
    `link_marker` (already escaped for Markdown), from where a stream stops sending."""
    keep = sendable(unit.text)
    rest = _OPENERS.sub(lambda m: "&lt;" if m.group() == "<" else "\\[", unit.text[keep:])
    rest = _WORD.sub(lambda m: link_marker if URLISH.search(m.group()) else m.group(), rest)
    return unit.text[:keep] + rest


def sendable(text: str) -> int:
    """How much of `text` a stream may send before the unit ends: up to its first
    opener, and not into a word that may be a URL. It holds neither."""
    opener = OPENER.search(text)
    limit = opener.start() if opener is not None else len(text)
    urlish = URLISH.search(text, 0, limit)
    if urlish is not None:
        limit = urlish.start()
        while limit > 0 and not text[limit - 1].isspace():
            limit -= 1
    return limit


def unsettled_finding(
    unit: Unit, line: int, column: int, construct: Construct, context: dict[str, str]
) -> Finding:
    """The finding that explains a neutralised unit (1-based `line` and `column`)."""
    return Finding(
        kind=construct,
        action=Action.NEUTRALISED,
        reasons=(Reason.UNSETTLED,),
        line=line,
        column=column,
        start=unit.start,
        end=unit.start + len(unit.text),
        detail="the re-check did not settle: openers escaped, URLs removed in this block",
        detector="lexical",
        context=context,
    )
