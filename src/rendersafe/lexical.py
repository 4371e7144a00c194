"""The lexical backstop: what *another* renderer could read as an image or a link.

markdown-it-py is one reading of the reply. python-markdown takes `![a](x y.png)`
as an image, GFM links any `www.` host, marked leaves `&#104;ttp` for the browser
to decode, a "self-healing" streaming renderer closes `![a](https://e` for you.
This pass reads the text leniently, outside code, and judges every URL that any
of them could fetch or link: reference definitions and their uses (`references`),
tag-like text and bare URLs (`bare`), and inline bracket constructs (here). What
the Markdown pass already removed is skipped; what it kept is judged again under
these readings.
"""

from __future__ import annotations

import html
import re

from .bare import bare_urls, tags
from .brackets import Bracket, dangling_images, first_closes, neutralise, worst
from .context import Pass
from .references import references
from .urls import Role

__all__ = ["backstop"]

# Far enough for any real destination; bounds the work per candidate.
WINDOW = 4096
_READING_A = re.compile(r"(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*")
_REMOTE = re.compile(r"\s*(?:[a-zA-Z][\w+.-]*:|[/\\]{2})")
_PAREN = re.compile(r"\\.|[()]")
_TITLE = re.compile(r"""\s+["'(]""")


def backstop(ps: Pass, pairs: list[Bracket]) -> None:
    """Judge every lenient reading the Markdown pass did not already remove."""
    images = dangling_images(ps.source.text, pairs)
    references(ps, sorted([*pairs, *images], key=lambda b: b.open), ps.ast_definitions)
    for bracket in [*pairs, *first_closes(ps, pairs)]:
        if ps.source.text.startswith("(", bracket.close + 1):
            _inline_construct(ps, bracket)
    tags(ps)
    bare_urls(ps)


def _inline_construct(ps: Pass, bracket: Bracket) -> None:
    if bracket.anchor in ps.claimed:
        return
    readings, end = _destinations(ps.source.text, bracket.close + 2)
    image = bracket.bang >= 0
    verdict = worst(ps, readings, Role.IMAGE if image else Role.LINK)
    if verdict is not None:
        neutralise(ps, bracket, end, verdict, reference=False)


def _destinations(text: str, pos: int) -> tuple[list[str], int]:
    """Readings of the destination after `(` at `pos - 1`, and where the construct ends."""
    limit = min(len(text), pos + WINDOW)
    line_end = text.find("\n", pos, limit)
    line_end = limit if line_end < 0 else line_end
    start = pos
    while start < line_end and text[start] in " \t":
        start += 1
    if start == line_end and line_end < limit:  # destination on the next line
        start = line_end + 1
        while start < limit and text[start] in " \t>":
            start += 1
        line_end = text.find("\n", start, limit)
        line_end = limit if line_end < 0 else line_end
    if text.startswith("<", start):
        close = text.find(">", start + 1, line_end)
        paren = text.find(")", max(close, start), line_end)
        readings = [
            text[start + 1 : close if close >= 0 else line_end],
            text[start : paren if paren >= 0 else line_end],  # python-markdown keeps the <>
        ]
        return readings, paren + 1 if paren >= 0 else line_end
    match = _READING_A.match(text, start, line_end)
    first = match.group() if match else ""
    paren = _closing_paren(text, start, line_end)
    if paren < 0:  # unclosed: only a remote URL a self-healing renderer would close
        remote = _REMOTE.match(html.unescape(first))
        return [first] if remote else [], start + len(first)
    title = _TITLE.search(text, start, paren)
    second = text[start : title.start() if title else paren].strip()
    return [r for r in dict.fromkeys((first, second)) if r], paren + 1


def _closing_paren(text: str, start: int, end: int) -> int:
    """The first `)` in text[start:end] that closes the construct (parens balance)."""
    first = text.find(")", start, end)
    if first < 0 or "(" not in text[start:first]:
        return first
    depth = 0
    for match in _PAREN.finditer(text, start, end):
        if len(match.group()) == 2:
            continue
        if match.group() == "(":
            depth += 1
        elif depth == 0:
            return match.start()
        else:
            depth -= 1
    return text.find(")", start, end)
