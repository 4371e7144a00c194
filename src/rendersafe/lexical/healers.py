"""What a self-healing renderer reads at a prefix of the reply.

Streamdown runs remend (1.4.0) on every prefix a chat client receives, then renders
it with remark + GFM. remend's rules, and what each can make of a safe prefix:

- an open `[` gets `](streamdown:incomplete-link)`; an open `![` or image destination
  becomes `![alt](streamdown:incomplete-image)`, a link destination
  `[text](streamdown:incomplete-link)`. The placeholders fetch nothing, but the `]`
  added closes the last open `[`: after `![chart]` or `[text]`, that `[` is a full
  reference (`![chart][r` reads as `![chart][r]`), whatever label prefix the stream
  stopped at. `reference_labels` gives those labels; `references` judges them.
- a `\\` before a single `~` between word characters (singleTilde), outside code:
  in a raw tag's URL a browser reads `\\` as `/`, so the host can change.
  `tilde_reading` gives that URL; `tags` judges it.
- an open code span is closed (more code, never less), but not always: a link healed
  first, a fence remend alone reads as open, or a wider backtick run leaves it open,
  its inside read as Markdown. `engine.healing` decides which spans may be trusted.
- an incomplete tag at the end is cut and a trailing space trimmed (a shorter
  prefix); `*`, `_`, `~~`, `***`, `$$` closers, a zero-width space after a setext
  underline and `\\>` in list items add text no link or image can end on: none of
  these can expose anything (math is not rendered: remark-math is not modelled).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterator, Sequence

from ..markdown.labels import label_keys
from .brackets import Bracket

__all__ = ["reference_labels", "tilde_reading"]

# CommonMark: a link label holds at most 999 characters.
MAX_LABEL = 999
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|\Z)")
_SINGLE_TILDE = re.compile(r"(?<=\w)~(?=\w)")


def reference_labels(
    text: str, bracket: Bracket, live: Sequence[int], lengths: Collection[int]
) -> tuple[frozenset[str], int]:
    """The labels a healer may close right after `bracket` (`![a][r...` at every
    prefix), among keys whose length is in `lengths`, and where the use then ends.

    The label runs from the `[` after `bracket`'s `]` to the next bracket outside
    code (`live`), a blank line or the end of the text: the stream may stop anywhere
    in it, and the healer's `]` ends the label there."""
    opener = bracket.close + 1
    at = bisect.bisect_left(live, opener)
    if at >= len(live) or live[at] != opener or not lengths:
        return frozenset(), opener
    stop = min(len(text), opener + 1 + MAX_LABEL)
    if at + 1 < len(live):
        stop = min(stop, live[at + 1])
    blank = _BLANK_LINE.search(text, opener, stop)
    if blank is not None:
        stop = blank.start()
    closed = stop < len(text) and text[stop] == "]"
    keys = frozenset(_prefixes(text[opener + 1 : stop], lengths))
    return keys, stop + 1 if closed else opener + 1


def _prefixes(raw: str, lengths: Collection[int]) -> Iterator[str]:
    """The normalised forms of every prefix of `raw` with one of these lengths: each
    renderer's normalisation of a prefix is a prefix of its normalisation of `raw`."""
    for form in label_keys(raw):
        for length in lengths:
            if 0 < length <= len(form):
                yield form[:length]


def tilde_reading(url: str) -> str | None:
    """`url` as remend leaves it in raw HTML (a `\\` before each single `~` between
    word characters), or None when it has no such `~`."""
    if "~" not in url:
        return None
    healed = _SINGLE_TILDE.sub(r"\\~", url)
    return healed if healed != url else None
