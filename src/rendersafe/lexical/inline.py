"""Inline `[text](destination)` constructs, however a renderer reads the destination.

python-markdown takes `![a](x y.png)` as an image of `x y.png`, keeps `<>` around a
destination, and a "self-healing" streaming renderer closes `![a](https://e` for
you. Every reading of a destination is judged; the worst decides.
"""

from __future__ import annotations

import html
import re

from ..engine.state import Pass
from ..urls import Role
from .brackets import Bracket
from .decide import WINDOW, neutralise, worst

__all__ = ["inline_constructs"]

_READING_A = re.compile(r"(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*")
_REMOTE = re.compile(r"\s*(?:[a-zA-Z][\w+.-]*:|[/\\]{2})")
_PAREN = re.compile(r"\\.|[()]")
_TITLE = re.compile(r"""\s+["'(]""")


def inline_constructs(ps: Pass, brackets: list[Bracket]) -> None:
    """Judge each `[...](...)` construct, however its destination is read."""
    for bracket in brackets:
        if ps.source.text.startswith("(", bracket.close + 1):
            _inline_construct(ps, bracket)


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
