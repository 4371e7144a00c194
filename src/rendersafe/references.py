"""Reference definitions and their uses, read leniently.

A definition markdown-it-py did not see (it interrupts a paragraph, sits in a fence
or a footnote, has an empty label) is judged where it stands, like the ones it did
see. A use is neutralised when a definition *before* it, still in the text, would
make it an image or a link that must go, under any renderer's label matching.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .brackets import Bracket, judge_reading, neutralise, usage
from .context import LenientDefinition, Pass
from .edits import Edit
from .findings import Action, Construct
from .labels import label_keys
from .urls import Role

__all__ = ["references"]

# At the start of a line (after quote and list markers), or right after a `>`:
# python-markdown starts a new line after raw HTML (`<div></div>[r]: u`, `<!---->`).
_DEFINITION = re.compile(
    r"(?:^|(?<=>))(?>[ \t>]*)(?:(?:[*+-]|\d{1,9}[.)])[ \t]++(?>[ \t>]*))*+"
    r"(?:\[\^[^\]\n]*\]:[ \t]*)?"
    r"\[((?:\\.|[^\\\[\]\n]){0,999})\]:(?>[ \t]*)(?:\n(?>[ \t>]*))?(<[^>\n]*>?|\S+)",
    re.MULTILINE,
)


def references(ps: Pass, pairs: list[Bracket], ast_definitions: set[int]) -> None:
    """Judge the definitions of this text and the uses of every definition so far.

    `ps.lenient` holds the definitions kept by earlier units (at offset -1); the
    ones this text keeps are added to it, for the units after.
    """
    found_here = list(_definitions(ps, ast_definitions))
    definitions = [*ps.lenient, *found_here]
    ps.lenient.extend(found_here)
    active: dict[str, list[LenientDefinition]] = {}
    index = 0
    text = ps.source.text
    for bracket in pairs:
        while index < len(definitions) and definitions[index].pos < bracket.open:
            for key in definitions[index].keys:
                active.setdefault(key, []).append(definitions[index])
            index += 1
        if not active or text.startswith(":", bracket.close + 1) or bracket.anchor in ps.claimed:
            continue
        keys, end = usage(text, bracket, pairs)
        found = [d for key in keys for d in active.get(key, ())]
        if found:
            _use(ps, bracket, end, found)


def _definitions(ps: Pass, ast_definitions: set[int]) -> Iterator[LenientDefinition]:
    text = ps.source.text
    for match in _DEFINITION.finditer(text):
        pos = match.start(1) - 1
        url = match.group(2).strip("<>")
        keys = label_keys(match.group(1))
        image_bad = judge_reading(ps, url, Role.IMAGE)
        link_bad = judge_reading(ps, url, Role.LINK)
        if pos in ast_definitions or pos in ps.claimed:
            if pos not in ps.claimed:  # the Markdown pass kept it
                yield LenientDefinition(pos, keys, image_bad, link_bad)
            continue
        if pos in ps.code:
            yield LenientDefinition(
                pos, keys, image_bad, link_bad
            )  # inert here, not for every renderer
            continue
        used_before = ps.labels_overflowed or any(ps.image_uses.get(k, pos) < pos for k in keys)
        bad = link_bad or (image_bad if used_before else None)
        if bad is None:
            yield LenientDefinition(pos, keys, image_bad, link_bad)
            continue
        end = text.find("\n", match.end())
        edit = Edit(pos, len(text) if end < 0 else end, ())
        ps.change(edit, Construct.REFERENCE_DEFINITION, Action.REMOVED, bad.reasons,
                  verdict=bad, detector="lexical")  # fmt: skip


def _use(ps: Pass, bracket: Bracket, end: int, found: list[LenientDefinition]) -> None:
    image = bracket.bang >= 0
    bad = next((d.image_bad if image else d.link_bad for d in found
                if (d.image_bad if image else d.link_bad)), None)  # fmt: skip
    if bad is not None:
        neutralise(ps, bracket, end, bad, reference=True)
