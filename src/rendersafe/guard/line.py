"""The second line: once the pass's rules are satisfied, escape every opener outside
agreed code that some renderer could read as a fetch or a script nobody judged.

The rules before it model renderers; this step models none. It reads the text for
what *starts* a fetch or a script (`tags`, `constructs`), outside the code every
renderer agrees is code (`Marks.code`), and escapes that start so that every
renderer shows it as text: `<` becomes `&lt;`, a bracket or brace gets a backslash.
The text shown is the same. A construct the pass judged and kept is left alone
where every reading of it is the one judged: a tag whose every attribute passes, an
image written plainly (`constructs.CANONICAL`), a destination that runs no script.
Text with nothing that could fetch or run is not touched, so honest replies come
back byte for byte.

It reads a text only when the rules found nothing to change in it, so what it reads
is what would be sent; what it escapes is read again by the next pass
(`units.settle`), so the output is one that this step, too, leaves alone. It asks
the URL judge nothing that changes what the reply remembers (`Pass.peek_image`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.edits import Edit
from ..engine.state import Pass
from ..findings import Action, Construct, Reason
from ..lexical import BracketIndex
from ..lexical.views import without_definitions
from ..markdown.regions import Marks
from .constructs import Opener, Slots, attribute_lists, autolinks, images
from .tags import Reading, read_tags

__all__ = ["may_change", "second_line"]

# What may start a fetch or a script: without one of these, there is nothing to read.
_TRIGGERS = ("<", "[", "{")
# A URL no browser can parse fetches nothing; a relative one reaches only the chat's origin.
_HARMLESS = frozenset({Reason.RELATIVE_IMAGE, Reason.UNPARSEABLE_URL})


def may_change(text: str) -> bool:
    """Could the second line change `text` where the fast path certifies it (no image,
    no destination, no tag with attributes)? Only through an attribute list."""
    return "{" in text and next(attribute_lists(text, lambda _pos: False), None) is not None


def second_line(ps: Pass, marks: Marks, index: BracketIndex, references: Mapping[str, Any]) -> None:
    """Escape every opener in the pass's text that could fetch or run something the
    pass did not judge and keep (`references`: markdown-it's table after the parse)."""
    text = ps.source.text
    if ps.edits or not any(trigger in text for trigger in _TRIGGERS):
        return
    code = marks.code

    def skip(pos: int) -> bool:
        return pos in code

    sources = _Sources(ps, references)
    known = bool(references or ps.lenient or ps.carry.lenient_count)
    slots = Slots(text, skip, sources.fetches, sources.label_fetches if known else None)
    found = [
        *images(text, skip, ps.kept_images, slots),
        *slots.openers(index.image_uses),
        *autolinks(text, skip),
        *attribute_lists(text, skip),
        *(
            Opener(tag.start, "&lt;", Construct.HTML, tag.reasons, tag.name)
            for tag in read_tags(text, skip, sources.fetches, _readings(text, index), labels=known)
        ),
    ]
    openers: dict[int, Opener] = {}
    for opener in found:
        openers.setdefault(opener.at, opener)
    for opener in sorted(openers.values(), key=lambda o: o.at):
        _escape(ps, opener)


class _Sources:
    """What an image may fetch, asked of the pass's judge without spending anything."""

    def __init__(self, ps: Pass, references: Mapping[str, Any]) -> None:
        self.ps = ps
        self.references = references

    def fetches(self, url: str) -> tuple[Reason, ...]:
        """Why a browser must not fetch `url` (none: it may)."""
        verdict = self.ps.peek_image(url)
        if verdict.action == "drop" and not set(verdict.reasons) <= _HARMLESS:
            return verdict.reasons
        return ()

    def label_fetches(self, keys: frozenset[str]) -> tuple[Reason, ...]:
        """Why an image must not use a definition read so far of a label with `keys`."""
        carried = self.ps.carry.lenient_by_key
        lenient = [d for key in keys for d in carried.get(key) or ()]
        lenient += [d for d in self.ps.lenient if d.keys & keys]
        for definition in lenient:
            if definition.image_bad is not None:
                return definition.image_bad.reasons
        for key in keys:
            reference = self.references.get(key)
            if isinstance(reference, dict) and (
                reasons := self.fetches(str(reference.get("href")))
            ):
                return reasons
        return ()


def _escape(ps: Pass, opener: Opener) -> None:
    edit = Edit(opener.at, opener.at + 1, (opener.replacement,))
    detail = f"second line: {opener.detail}"
    ps.change(
        edit,
        opener.construct,
        Action.NEUTRALISED,
        opener.reasons,
        detail=detail,
        detector="lexical",
        first=opener.first,
    )


def _readings(text: str, index: BracketIndex) -> list[Reading]:
    """The renderers' views of `text` that differ from it: python-markdown's (it sets
    raw HTML aside and takes its definitions' lines out, and a tag over them joins the
    lines around them), and the text with only the definitions' lines taken out (what
    python-markdown's extensions read where no raw HTML is set aside)."""
    found: list[Reading] = [
        (p.view.text, p.view.source) for p in index.pairings if p.view.text != text
    ]
    bare = without_definitions(text)
    if bare is not None:
        found.append((bare.text, bare.source))
    return found
