"""The decisions every lenient rule shares: judge a reading, neutralise a construct."""

from __future__ import annotations

import html

from ..engine.edits import Edit, Keep
from ..engine.state import Pass
from ..findings import Action, Construct, Reason
from ..urls import Role, Verdict
from ..urls.parse import strict_references
from .brackets import Bracket

__all__ = ["WINDOW", "judge_reading", "must_go", "neutralise", "worst"]

# Far enough for any real destination or URL; bounds the work per candidate.
WINDOW = 4096
_HARMLESS = frozenset({Reason.RELATIVE_IMAGE, Reason.UNPARSEABLE_URL})


def judge_reading(ps: Pass, raw: str, role: Role) -> Verdict | None:
    """The verdict on a lenient reading, or None when it may stay.

    A URL no browser can parse fetches nothing, and a relative image only reaches
    the chat's own origin: in a reading markdown-it does not share, neither alone
    is a reason to change the text.
    """
    verdict = must_go(ps.judge(raw, role, decode_entities=True))
    if verdict is None and "&" in raw:
        # With only references that end in `;` decoded too, as CommonMark renderers
        # decode a destination (`//&ltx.host` keeps its `&ltx`).
        strict = strict_references(raw)
        if strict != html.unescape(raw):
            verdict = must_go(ps.judge(strict, role))
    return verdict


def must_go(verdict: Verdict) -> Verdict | None:
    """`verdict`, when a lenient reading judged so must go; else None."""
    if verdict.action != "drop" or set(verdict.reasons) <= _HARMLESS:
        return None
    return verdict


def worst(ps: Pass, readings: list[str], role: Role) -> Verdict | None:
    """The first reading that must go."""
    for reading in readings:
        verdict = judge_reading(ps, reading, role)
        if verdict is not None:
            return verdict
    return None


def neutralise(ps: Pass, bracket: Bracket, end: int, verdict: Verdict, *, reference: bool) -> None:
    """Replace a bracket construct ending at `end`: an image by its alt text and the
    marker, a link by its text."""
    label = Keep(bracket.open + 1, bracket.close)
    if bracket.bang >= 0:
        edit = Edit(bracket.bang, end, ps.image_parts(label))
        construct = Construct.REFERENCE_IMAGE if reference else Construct.IMAGE
        action = Action.REMOVED
    else:
        edit = Edit(bracket.open, end, ps.link_parts(label, verdict))
        construct = Construct.REFERENCE_LINK if reference else Construct.LINK
        action = Action.UNLINKED
    ps.change(edit, construct, action, verdict.reasons, verdict=verdict, detector="lexical")
