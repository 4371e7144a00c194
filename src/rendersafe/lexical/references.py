"""Reference definitions and their uses, read leniently.

A definition markdown-it-py did not see (it interrupts a paragraph, sits in a fence
or a footnote, has an empty label) is judged where it stands, like the ones it did
see. A use is neutralised when a definition *before* it, still in the text, would
make it an image or a link that must go, under any renderer's label matching, or
under the labels a healing renderer closes at a prefix (`healers`). Uses are read in
every renderer's view of the text too (`Pairing`), and definitions in
python-markdown's (`<!---->&x;[r]: u` defines `r` to it).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterator, Mapping

from ..engine.carry import LenientDefinition
from ..engine.edits import Edit
from ..engine.state import Pass
from ..findings import Action, Construct
from ..markdown.labels import label_keys
from ..markdown.regions import Marks
from ..urls import Role
from .brackets import Bracket, BracketIndex, Pairing, usage
from .decide import neutralise, worst
from .healers import reference_labels

__all__ = ["references"]

# At the start of a line (after quote, list and definition-list markers: python-markdown's
# `: ` holds blocks), or right after a `>`: python-markdown starts a new line after raw
# HTML (`<div></div>[r]: u`, `<!---->`).
# (White space of any kind around the quote markers: marko strips it after `>`.)
_QUOTES = r"(?>[^\S\n]*(?:>[^\S\n]*)*)"
_DEFINITION_START = re.compile(
    rf"(?:^|(?<=>)){_QUOTES}(?:(?:[*+:-]|\d{{1,9}}[.)])[ \t]++{_QUOTES})*+", re.MULTILINE
)
# A label may run over lines, blank ones too (mistune and marko read `[` NEWLINE NEWLINE
# `r]: u` as a definition of `r`). After the destination: the line's end, or a title's
# opener (python-markdown's title runs to the last quote of the line, and may start right
# after the destination; its footnotes' bodies end a line at Unicode white space); text of any other
# kind after it makes the line a paragraph in every renderer (`[r]: u ![r]` defines
# nothing).
# The end of a label a `[` before the text opened, and the definition after it.
_CONTINUED = re.compile(
    r"(?:\\.|[^\\\[\]]){0,999}\]:(?>[ \t]*)(?:\n(?>[ \t>]*))?(<[^>\n]*>?|[^ \t\n\x0b\x0c\r]+)"
    r"(?=[^\S\n]*(?:\n|\Z)|[ \t]*[\"'(])"
)
_DEFINITION = re.compile(
    r"(?:\[\^[^\]]{0,999}\]:[ \t]*(?:(?:[*+:-]|\d{1,9}[.)])[ \t]+)*)?"
    r"\[((?:\\.|[^\\\[\]]){0,999})\]:(?>[ \t]*)(?:\n(?>[ \t>]*))?(<[^>\n]*>?|[^ \t\n\x0b\x0c\r]+)"
    r"(?=[^\S\n]*(?:\n|\Z)|[ \t]*[\"'(])"
)


# A reference use read in a renderer's view: the bracket, its labels, its end (in the source).
_Use = tuple[Bracket, frozenset[str], int]


def references(ps: Pass, pairs: list[Bracket], marks: Marks, index: BracketIndex) -> None:
    """Judge the definitions of this text and the uses of every definition so far.

    The carry holds the definitions kept by earlier units (at offset -1); the ones
    this text keeps are kept in the pass, for the units after. `index.live` holds the
    brackets outside code, for the labels a healing renderer closes.
    """
    if ps.carry.healer.brackets:
        _continued(ps, marks)
    found_here = _found_here(ps, marks, index)
    ps.keep_lenient(found_here)
    if ps.carry.lenient_by_key or found_here:
        _judge_uses(ps, pairs, found_here, index)


def _continued(ps: Pass, marks: Marks) -> None:
    """A `[` left open before this text may be a definition's, its label running on
    over a blank line into it (`_DEFINITION`): a definition that ends such a label
    here is judged as one an image may use, whatever the label, and removed when it
    must go."""
    text = ps.source.text
    match = _CONTINUED.match(text)
    if match is None or 0 in marks.code or 0 in ps.claimed:
        return
    url = match.group(1).strip("<>")
    readings = _ends_trimmed(url)
    bad = worst(ps, readings, Role.LINK) or worst(ps, readings, Role.IMAGE)
    if bad is not None:
        # From the destination on: a stream may have sent the label's end already.
        end = text.find("\n", match.end())
        edit = Edit(match.start(1), len(text) if end < 0 else end, ())
        construct, reasons = Construct.REFERENCE_DEFINITION, bad.reasons
        ps.change(edit, construct, Action.REMOVED, reasons, verdict=bad, detector="lexical")


def _found_here(ps: Pass, marks: Marks, index: BracketIndex) -> list[LenientDefinition]:
    """This text's definitions, in its own reading and in python-markdown's, in order."""
    found_here = list(_definitions(ps, marks, index.image_uses))
    seen_here = {(d.pos, d.keys) for d in found_here}
    for pairing in index.pairings:
        if len(pairing.view.starts) > 1:  # python-markdown moved text out of the way
            moved = _definitions(ps, marks, index.image_uses, pairing)
            found_here += [d for d in moved if (d.pos, d.keys) not in seen_here]
    found_here.sort(key=lambda d: d.pos)
    return found_here


def _judge_uses(
    ps: Pass, pairs: list[Bracket], definitions: list[LenientDefinition], index: BracketIndex
) -> None:
    """Neutralise every use, in any reading, of a definition before it that must go:
    this text's `definitions`, and the carried ones (all before it), looked up by key."""
    carried = ps.carry.lenient_by_key
    active: dict[str, list[LenientDefinition]] = {}
    lengths: set[int] = set()
    at = 0
    text = ps.source.text
    seen = sorted((u for r in index.pairings for u in _pairing_uses(r)), key=lambda u: u[0].open)
    ours: Iterator[tuple[Bracket, _Use | None]] = ((b, None) for b in pairs)
    theirs = ((use[0], use) for use in seen)
    for bracket, use in heapq.merge(ours, theirs, key=lambda item: item[0].open):
        while at < len(definitions) and definitions[at].pos < bracket.open:
            for key in definitions[at].keys:
                active.setdefault(key, []).append(definitions[at])
                lengths.add(len(key))
            at += 1
        if not (carried or active) or bracket.anchor in ps.claimed:
            continue
        if use is None and _defines(text, bracket):
            continue
        keys, end = usage(text, bracket, pairs) if use is None else (use[1], use[2])
        if text.startswith("[", bracket.close + 1):
            key_lengths = ps.carry.lenient_key_lengths | lengths
            labels = reference_labels(text, bracket, index.live, key_lengths)
            if labels[0] - keys:
                keys, end = keys | labels[0], max(end, labels[1])
        found = [d for key in keys for d in (*(carried.get(key) or ()), *active.get(key, ()))]
        if found:
            _use(ps, bracket, end, found)


def _pairing_uses(pairing: Pairing) -> Iterator[_Use]:
    """The reference uses of a renderer's view, at their offsets in the source."""
    text = pairing.view.text
    for bracket in [*pairing.pairs, *pairing.dangling]:
        if not _defines(text, bracket):
            keys, end = usage(text, bracket, pairing.pairs)
            yield pairing.in_source(bracket), keys, pairing.view.source_end(end)


def _defines(text: str, bracket: Bracket) -> bool:
    """Is `bracket` the label of a definition rather than a use? `![r]:` never is:
    python-markdown renders it as the image `r` followed by a colon."""
    return bracket.bang < 0 and text.startswith(":", bracket.close + 1)


def _definition_matches(text: str) -> Iterator[re.Match[str]]:
    """Every definition, overlapping ones too: in `[r]:` newline `[s]: u`, the first
    one's destination (`[s]:`) is itself the start of the second, which
    python-markdown reads."""
    if "]:" not in text:
        return  # every definition holds one: most texts are skipped in C
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
    ps: Pass, marks: Marks, image_uses: Mapping[str, int], pairing: Pairing | None = None
) -> Iterator[LenientDefinition]:
    """The definitions of the text (or of a renderer's view of it, at their offsets
    in the source), each judged; the ones that must go are removed."""
    text = ps.source.text if pairing is None else pairing.view.text
    for match in _definition_matches(text):
        pos = match.start(1) - 1 if pairing is None else pairing.view.source(match.start(1) - 1)
        url = match.group(2).strip("<>")
        keys = label_keys(match.group(1))
        readings = _ends_trimmed(url)
        image_bad = worst(ps, readings, Role.IMAGE)
        link_bad = worst(ps, readings, Role.LINK)
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
        end = len(text) if end < 0 else end
        if pairing is not None:
            end = pairing.view.source_end(end)
        edit = Edit(pos, end, ())
        construct, reasons = Construct.REFERENCE_DEFINITION, bad.reasons
        ps.change(edit, construct, Action.REMOVED, reasons, verdict=bad, detector="lexical")


def _ends_trimmed(url: str) -> list[str]:
    """A destination as read to ASCII white space, and with any white space at its
    ends taken off (python-markdown+extra trims a `\xa0` after a host)."""
    trimmed = url.strip()
    return [url] if trimmed == url else [url, trimmed]


def _use(ps: Pass, bracket: Bracket, end: int, found: list[LenientDefinition]) -> None:
    image = bracket.bang >= 0
    verdicts = (d.image_bad if image else d.link_bad for d in found)
    bad = next((verdict for verdict in verdicts if verdict), None)
    if bad is not None:
        neutralise(ps, bracket, end, bad, reference=True)
