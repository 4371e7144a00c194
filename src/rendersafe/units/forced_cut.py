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
    escapes: dict[tuple[str, bool], list[Edit]] = {}
    for pos, kind in open_openers(text, code, index):
        if pos in ps.claimed or pos >= word:
            continue
        replacement = "&lt;" if kind == "<" else "\\" + kind
        escapes.setdefault((kind, pos >= prefix), []).append(Edit(pos, pos + 1, (replacement,)))
    # One finding per kind of opener (and per side of the prefix, which the unit
    # before judged): a flood of `[` is one line in the audit log.
    for (kind, _after_prefix), edits in escapes.items():
        construct = Construct.HTML if kind == "<" else Construct.LINK
        count = f"{len(edits)} " if len(edits) > 1 else ""
        detail = f"{count}open {kind!r} at a forced cut"
        ps.change_all(edits, construct, Action.NEUTRALISED, _CUT, detail=detail, detector="lexical")
