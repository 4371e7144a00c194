"""What a forced cut leaves open: openers no later text may complete, a split word."""

from __future__ import annotations

from ..engine.edits import Edit
from ..engine.regions import Regions
from ..engine.state import Pass
from ..engine.triggers import URLISH
from ..findings import Action, Construct, Reason
from ..lexical import BracketIndex, open_openers

__all__ = ["close_openers"]

_CUT = (Reason.HOLD_LIMIT,)


def close_openers(ps: Pass, code: Regions, index: BracketIndex, prefix: int) -> None:
    """A forced cut leaves constructs open: escape their openers, so that no text
    after the cut can complete them. A URL the cut splits (no space in the last half
    of the unit) is removed whole: neither half can be judged alone."""
    text = ps.source.text
    word = max(text.rfind(" "), text.rfind("\t"), text.rfind("\n"), prefix - 1) + 1
    if word == len(text) or not URLISH.search(text, word):
        word = len(text)  # the cut fell between words, or inside something not a URL
    else:
        edit = Edit(word, len(text), (ps.markers.link,))
        detail = "word split by a forced cut"
        ps.change(edit, Construct.BARE_URL, Action.REMOVED, _CUT, detail=detail, detector="lexical")
    for pos, kind in open_openers(text, code, index):
        if pos in ps.claimed or pos >= word:
            continue
        replacement = "&lt;" if kind == "<" else "\\" + kind
        construct = Construct.HTML if kind == "<" else Construct.LINK
        edit = Edit(pos, pos + 1, (replacement,))
        detail = f"open {kind!r} at a forced cut"
        ps.change(edit, construct, Action.NEUTRALISED, _CUT, detail=detail, detector="lexical")
