"""The fast path for a unit of reference definitions only.

Replies as models write them now end with a block of numbered or named references,
`[docs-3]: https://docs.python.org/3/library/asyncio.html`, one a line, and the pass
reads such a block at about three times the cost of a parse. `certified_definitions`
shows, without parsing, that the pass would change nothing in it and what it would add
to the carry, for the narrow shape below; anything else goes to the pass.

Why the shape is enough (the steps of a pass, in `units.settle`):

- every line is `[label]: URL` and nothing else: a label of ASCII letters, digits, `-`
  and `_`, one space, and an `http(s)` URL of characters that nothing reads as markup
  (no bracket, paren, quote, angle, backslash, backtick, `&`, `*`, `~`, `$`, `{`).
  Every renderer reads each line as a definition (markdown-it, the lenient pass's
  `references._DEFINITION`, python-markdown, marked): a destination followed by the
  line's end; no title, which may start on the next line, since no line starts with
  a title's opener;
- no label is defined before or twice here (the first definition of a label wins, and
  a second one's verdict is not recorded), and no image used one of these labels yet
  (the walk, the lenient pass and the second line judge a definition an image used
  as an image, label by label): the carry's tables hold none of them;
- each URL is kept as a link, judged as the walk judges them, in order
  (`ReplyJudge.keeps_links`: when one is not, none is judged, so the pass meets the
  reply as it was); every bare URL a linkifying renderer reads in the text
  (`bare.bare_readings`) is one of them; so the walk removes no definition and the
  backstop changes nothing; there is no `<`, `!`, `(`, backtick or `{`, so no other
  step has anything to read;
- only without a conversation: with one, every URL judged is remembered, in order
  (`fast.prescans`), and this path would judge them in another order than the pass.

What the pass would add to the carry is then known exactly: markdown-it's reference
table gains `{"title": "", "href": URL, "map": [line, line + 1]}` under each label's
normalised form (`normalizeReference`; rendersafe's parser keeps hrefs as written),
each label is defined and kept, and the lenient pass keeps each definition with its
verdict as an image (`lexical.references._definitions`: `judge_reading`), its link
verdict None. The differential tests hold it to the pass, byte for byte and carry for
carry (`tests/test_fast_definitions.py`, `tests/test_fast_path.py`).
"""

from __future__ import annotations

import re
from typing import Any

from markdown_it.common.utils import normalizeReference

from ..engine.carry import Carry, Delta, LenientDefinition
from ..judging import ReplyJudge
from ..lexical.bare import bare_readings
from ..lexical.decide import must_go
from ..markdown.labels import label_keys
from ..urls import Role

__all__ = ["certified_definitions"]

_LINE = re.compile(r"\[([A-Za-z0-9_-]{1,64})\]: (https?://[A-Za-z0-9./:?#=@%+,;_-]+)(?:\n|\Z)")
_MOST_DEFINITIONS = 256  # a longer block is the pass's (its labels are each looked up)


def certified_definitions(text: str, carry: Carry, judge: ReplyJudge) -> Delta | None:
    """What the pass over `text`, a block of reference definitions only, would add to
    `carry`, when it provably changes nothing; None when the pass must read it."""
    if judge.remembers_every_url or carry.labels_overflowed:
        return None
    lines = _lines(text)
    if lines is None:
        return None
    references: dict[str, dict[str, Any]] = {}
    found: list[tuple[frozenset[str], int, str]] = []
    for number, match in lines:
        label, url = match.group(1), match.group(2)
        key, keys = normalizeReference(label), label_keys(label)
        if key in references or _carried(carry, key, keys):
            return None
        references[key] = {"title": "", "href": url, "map": [number, number + 1]}
        found.append((keys, match.start(), url))
    urls = [url for *_, url in found]
    # A bare URL a linkifying renderer reads that is not a destination (one trimmed of
    # a final `.`) would be judged by the pass and not here.
    if not set(bare_readings(text, any_code=False)) <= set(urls):
        return None
    # judged as the walk judges them, or not at all
    if not judge.keeps_links([(url, False) for url in urls]):
        return None
    lenient = tuple(
        LenientDefinition(
            pos, keys, must_go(judge.judge(url, Role.IMAGE, decode_entities=True)), None
        )
        for keys, pos, url in found
    )
    return Delta(
        references=references,
        definitions=dict.fromkeys(references, True),
        lenient=lenient,
        image_labels=frozenset(),
        images_kept=carry.images_kept,
        image_channels=carry.image_channels,
        healer=carry.healer.after(text),
    )


def _lines(text: str) -> list[tuple[int, re.Match[str]]] | None:
    """Each line of `text` that is not empty as a plain definition, with its number;
    None when one is not."""
    found: list[tuple[int, re.Match[str]]] = []
    pos = number = 0
    while pos < len(text):
        if text[pos] == "\n":
            pos, number = pos + 1, number + 1
            continue
        match = _LINE.match(text, pos)
        if match is None or len(found) == _MOST_DEFINITIONS:
            return None
        found.append((number, match))
        pos, number = match.end(), number + 1
    return found or None


def _carried(carry: Carry, key: str, keys: frozenset[str]) -> bool:
    """Did a unit before this one define the label, or an image use it, in any reading?"""
    if key in carry.references or key in carry.definitions:
        return True
    return any(k in carry.lenient_by_key or k in carry.image_labels for k in keys)
