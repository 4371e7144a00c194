"""The `<` the fast path can certify: inline tags without attributes but a plain
`title`, disclosures (`<details>`, `<summary>`), one-line autolinks.

`<kbd>Ctrl</kbd>`, `a<br>b` in a table cell, `<sup title="note">2</sup>`,
`<https://example.com/docs>` are common in honest replies, and the pass changes none
of them: the fragment review keeps an allowed tag whose attributes fetch, run,
restyle or clobber nothing (`html.review`: `title` is none of those); the tag-like
text check (`lexical.tags`) judges URL attributes and handlers, and the text has
neither; an autolink's href is its URL (the parser does not normalise links),
judged here as the pass judges it. Every condition, and why it is sound:

- every `<` starts one of those, or is followed by white space (`a < b` is text to
  every renderer and to the browser); a tag is one of `INLINE_TAGS`, which no
  renderer reads as a block (python-markdown's block-level tags are not among them)
  and no browser reads as raw text; a `title` value holds no quote, `<`, `>`, `&`,
  `~`, bracket, backtick or backslash, so every renderer and the browser end the
  tag at the same `>`, no bracket pairs across it (`lexical.spans`), no entity or
  healing changes it (`lexical.healers`); an autolink is `http(s)://` with none of
  `"'`[]\\@` (a bracket would pair across it, `@` is python-markdown's automail);
- no `<` starts a line's content (after spaces and container markers only) but a
  disclosure's (`<details>`, `<details open>`, `<summary>` and their end tags, which
  every reply with a collapsible section starts a line with): any other HTML block
  starts nowhere in the unit. A disclosure's block (CommonMark's to the blank line,
  python-markdown's to the balancing end tag) is raw HTML, which only takes readings
  away: its links, images and bare URLs are text, its code spans are not code, its
  escapes are not read. What the block's lines hold is held to every condition here
  all the same (every `<` is one certified, with no code span hiding another), so the
  browser meets the same inert tags and text in either reading; an end tag the unit
  does not hold leaves python-markdown's block open, and the segmenter parses every
  unit after it behind it (`units.blocks`), which the fast path does not take;
- nothing python-markdown moves after raw HTML (`moved_after_raw_html`): its view is
  the text;
- no URL attribute name or `on*=` anywhere (what `lexical.tags` would judge);
- a destination after `](` only where `fast` reads it in one match without `<` or
  `>` (`fast._candidates` refuses the others): there no reading starts with `<`
  (markdown-it's and python-markdown's angle destinations) or reads across a tag.
"""

from __future__ import annotations

import re

from ..lexical.tags import may_judge
from ..markdown.python_markdown import moved_after_raw_html

__all__ = ["INLINE_TAGS", "autolinks"]

INLINE_TAGS = frozenset(
    {
        "abbr", "b", "br", "code", "em", "i", "kbd", "mark", "q", "s", "samp", "small",
        "span", "strong", "sub", "sup", "u",
    }
)  # fmt: skip
_NAMES = "|".join(sorted(INLINE_TAGS, key=len, reverse=True))
# A `title`, the one attribute certified: a tooltip, in a double-quoted value of
# letters, digits, spaces and punctuation that ends, escapes, pairs or heals nothing.
_TITLE = r' title="[A-Za-z0-9 .,!?-]*"'
# Group 1: an autolink's URL; group 2: a disclosure's tag, which may start a line. A
# tag's name must end at its `>` (`<bx>` is not `<b>`).
_ANGLE = re.compile(
    rf"<(?:/?(?:{_NAMES})>|(?:{_NAMES}){_TITLE}>|br ?/>"
    rf"|(https?://[^\s<>\"'`\[\]\\@]+)>|(/?(?:details|summary)>|details open>)"
    rf"|(?=[ \t\n]|\Z))",
    re.IGNORECASE,
)
# What may stand before a `<` at the start of a line's content: spaces and the
# markers of block quotes and list items.
_MARKERS = " \t>-*+.)0123456789"


def autolinks(text: str) -> list[str] | None:
    """The URLs of the autolinks in `text` when every `<` in it is one the fast path
    certifies (see the module docstring); None when one is not."""
    if may_judge(text):
        return None
    urls: list[str] = []
    at = text.find("<")
    while at >= 0:
        angle = _ANGLE.match(text, at)
        if angle is None:
            return None
        if angle.group(2) is None and not text[text.rfind("\n", 0, at) + 1 : at].lstrip(_MARKERS):
            return None
        if angle.group(1) is not None:
            urls.append(angle.group(1))
        at = text.find("<", at + 1)
    return None if moved_after_raw_html(text) else urls
