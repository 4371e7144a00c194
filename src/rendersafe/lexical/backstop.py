"""The lexical backstop: what *another* renderer could read as an image or a link.

markdown-it-py is one reading of the reply. python-markdown takes `![a](x y.png)`
as an image, GFM links any `www.` host, marked leaves `&#104;ttp` for the browser
to decode, a "self-healing" streaming renderer closes `![a](https://e` for you
and `![a][r` into a full reference (`healers`).
This pass reads the text leniently, outside code, and judges every URL that any
of them could fetch or link: reference definitions and their uses (`references`),
tag-like text, autolinks over several lines and bare URLs, inline bracket
constructs (here), fences a chat UI finds by pattern and math in prose (`fences`).
What the Markdown pass already removed is skipped; what it kept is judged again
under these readings.
"""

from __future__ import annotations

from ..engine.state import Pass
from ..markdown.regions import Marks
from .autolinks import autolinks
from .bare import bare_urls
from .brackets import BracketIndex, dangling_images, first_closes
from .fences import pattern_fences, prose_math
from .inline import inline_constructs, python_markdown_constructs
from .references import references
from .spans import interleaved_spans
from .tags import tags

__all__ = ["backstop"]


def backstop(ps: Pass, marks: Marks, index: BracketIndex) -> None:
    """Judge every lenient reading the Markdown pass did not already remove.

    `marks` is what the Markdown pass found (code, raw HTML, its definitions), and
    `index` the text's brackets."""
    text = ps.source.text
    # First: what they remove, the readings below need not judge again.
    pattern_fences(ps)
    prose_math(ps, marks.code)
    images = dangling_images(text, index.pairs)
    firsts = first_closes(text, index)
    uses = sorted([*index.pairs, *images, *firsts], key=lambda b: b.open)
    references(ps, uses, marks, index)
    inline_constructs(ps, [*index.pairs, *firsts])
    for pairing in index.pairings:
        python_markdown_constructs(ps, pairing)
    interleaved_spans(ps, marks.code, index)
    tags(ps, marks.code, marks.html)
    autolinks(ps, marks.code)
    bare_urls(ps, marks.code)
