"""Reference definitions and their uses, read leniently.

A definition markdown-it-py did not see (it interrupts a paragraph, sits in a fence
or a footnote, has an empty label) is judged where it stands, like the ones it did
see. A use is neutralised when a definition *before* it, still in the text, would
make it an image or a link that must go, under any renderer's label matching.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from ..engine.carry import LenientDefinition
from ..engine.edits import Edit
from ..engine.state import Pass
from ..findings import Action, Construct
from ..markdown.labels import label_keys
from ..markdown.regions import Marks
from ..urls import Role
from .brackets import Bracket, usage
from .decide import judge_reading, neutralise

__all__ = ["references"]

# At the start of a line (after quote and list markers), or right after a `>`:
# python-markdown starts a new line after raw HTML (`<div></div>[r]: u`, `<!---->`).
_DEFINITION_START = re.compile(
    r"(?:^|(?<=>))(?>[ \t>]*)(?:(?:[*+-]|\d{1,9}[.)])[ \t]++(?>[ \t>]*))*+", re.MULTILINE
)
_DEFINITION = re.compile(
    r"(?:\[\^[^\]\n]*\]:[ \t]*)?"
    r"\[((?:\\.|[^\\\[\]\n]){0,999})\]:(?>[ \t]*)(?:\n(?>[ \t>]*))?(<[^>\n]*>?|\S+)"
)


def references(ps: Pass, pairs: list[Bracket], marks: Marks, image_uses: Mapping[str, int]) -> None:
    """Judge the definitions of this text and the uses of every definition so far.

    The carry holds the definitions kept by earlier units (at offset -1); the ones
    this text keeps are kept in the pass, for the units after.
    """
    definitions = list(_definitions(ps, marks, image_uses))
    ps.keep_lenient(definitions)
    carried = ps.carry.lenient_by_key  # every one before all of this text
    active: dict[str, list[LenientDefinition]] = {}
    index = 0
    text = ps.source.text
    for bracket in pairs:
        while index < len(definitions) and definitions[index].pos < bracket.open:
            for key in definitions[index].keys:
                active.setdefault(key, []).append(definitions[index])
            index += 1
        if not (carried or active) or bracket.anchor in ps.claimed or _defines(text, bracket):
            continue
        keys, end = usage(text, bracket, pairs)
        found = [d for key in keys for d in (*carried.get(key, ()), *active.get(key, ()))]
        if found:
            _use(ps, bracket, end, found)


def _defines(text: str, bracket: Bracket) -> bool:
    """Is `bracket` the label of a definition rather than a use? `![r]:` never is:
    python-markdown renders it as the image `r` followed by a colon."""
    return bracket.bang < 0 and text.startswith(":", bracket.close + 1)


def _definition_matches(text: str) -> Iterator[re.Match[str]]:
    """Every definition, overlapping ones too: in `[r]:` newline `[s]: u`, the first
    one's destination (`[s]:`) is itself the start of the second, which
    python-markdown reads."""
    pos = 0
    while (start := _DEFINITION_START.search(text, pos)) is not None:
        match = _DEFINITION.match(text, start.end())
        if match is not None:
            yield match
            pos = match.start(2)  # after the label: every search moves on
            continue
        # A start after a `>` of these markers ends where this one does, and fails
        # alike: skip them (trying each made a run of `>` cost its length squared).
        pos = start.end() + 1
        if pos > len(text):
            return


def _definitions(
    ps: Pass, marks: Marks, image_uses: Mapping[str, int]
) -> Iterator[LenientDefinition]:
    text = ps.source.text
    for match in _definition_matches(text):
        pos = match.start(1) - 1
        url = match.group(2).strip("<>")
        keys = label_keys(match.group(1))
        image_bad = judge_reading(ps, url, Role.IMAGE)
        link_bad = judge_reading(ps, url, Role.LINK)
        if pos in marks.definitions or pos in ps.claimed:
            if pos not in ps.claimed:  # the Markdown pass kept it
                yield LenientDefinition(pos, keys, image_bad, link_bad)
            continue
        if pos in marks.code:
            yield LenientDefinition(
                pos, keys, image_bad, link_bad
            )  # inert here, not for every renderer
            continue
        overflowed = ps.carry.labels_overflowed
        used_before = overflowed or any(image_uses.get(k, pos) < pos for k in keys)
        bad = link_bad or (image_bad if used_before else None)
        if bad is None:
            yield LenientDefinition(pos, keys, image_bad, link_bad)
            continue
        end = text.find("\n", match.end())
        edit = Edit(pos, len(text) if end < 0 else end, ())
        construct, reasons = Construct.REFERENCE_DEFINITION, bad.reasons
        ps.change(edit, construct, Action.REMOVED, reasons, verdict=bad, detector="lexical")


def _use(ps: Pass, bracket: Bracket, end: int, found: list[LenientDefinition]) -> None:
    image = bracket.bang >= 0
    verdicts = (d.image_bad if image else d.link_bad for d in found)
    bad = next((verdict for verdict in verdicts if verdict), None)
    if bad is not None:
        neutralise(ps, bracket, end, bad, reference=True)
