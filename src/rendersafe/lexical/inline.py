"""Inline `[text](destination)` constructs, however a renderer reads the destination.

python-markdown takes `![a](x y.png)` as an image of `x y.png`, keeps `<>` around a
destination, reads one over several lines (`destinations`), and a "self-healing"
streaming renderer closes `![a](https://e` for you. Every reading of a destination
is judged; the worst decides, and the construct ends where that reading ends.
"""

from __future__ import annotations

import html
import re

from ..engine.state import Pass
from ..urls import Role
from .brackets import Bracket, Pairing
from .decide import WINDOW, judge_reading, neutralise
from .destinations import PythonMarkdown, joined

__all__ = [
    "closing_paren",
    "destination_readings",
    "inline_constructs",
    "python_markdown_constructs",
]

_READING_A = re.compile(r"(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*")
_REMOTE = re.compile(r"\s*(?:[a-zA-Z][\w+.-]*:|[/\\]{2})")
_PAREN = re.compile(r"\\.|[()]")
_BARE_PAREN = re.compile(r"[()]")
_TITLE = re.compile(r"""\s+["'(]""")
# A destination read as (url, where the construct ends).
Reading = tuple[str, int]


def inline_constructs(ps: Pass, brackets: list[Bracket]) -> None:
    """Judge each `[...](...)` construct, however its destination is read."""
    text = ps.source.text
    found = [b for b in brackets if text.startswith("(", b.close + 1)]
    if not found:
        return
    python_markdown: list[PythonMarkdown] = []  # indexed on first need
    for bracket in found:
        if bracket.anchor not in ps.claimed:
            _inline_construct(ps, bracket, python_markdown)


def _inline_construct(ps: Pass, bracket: Bracket, python_markdown: list[PythonMarkdown]) -> None:
    readings = destination_readings(ps.source.text, bracket.close + 2, python_markdown)
    role = Role.IMAGE if bracket.bang >= 0 else Role.LINK
    for url, end in dict.fromkeys(readings):
        verdict = judge_reading(ps, url, role)
        if verdict is not None:
            neutralise(ps, bracket, end, verdict, reference=False)
            return


def destination_readings(
    text: str, pos: int, python_markdown: list[PythonMarkdown]
) -> list[Reading]:
    """Every reading of the destination after `](` at `pos - 2`, each with where the
    construct ends (`python_markdown`: the text indexed for python-markdown, on first need)."""
    readings = _destinations(text, pos)
    if _may_span_lines(text, pos) and not _balanced_on_its_line(text, pos):
        if not python_markdown:
            python_markdown.append(PythonMarkdown.index(text))
        readings += _python_markdown(python_markdown[0], pos)
    return readings


def python_markdown_constructs(ps: Pass, pairing: Pairing) -> None:
    """Judge each `[...](...)` construct of python-markdown's view of the text, its
    destination read as python-markdown reads it: code spans as their text."""
    view = pairing.view
    found = [b for b in pairing.pairs if view.text.startswith("(", b.close + 1)]
    if view.renderer != "python-markdown" or not found:
        return
    python_markdown = PythonMarkdown.index(view.masked())
    for bracket in found:
        source = pairing.in_source(bracket)
        if source.anchor in ps.claimed:
            continue
        pos = bracket.close + 2
        readings = _destinations(view.text, pos)
        span = python_markdown.span(pos, pos + WINDOW)
        if span is not None:
            readings += [(url, span[2]) for url in joined(view.read(span[0], span[1]))]
        role = Role.IMAGE if bracket.bang >= 0 else Role.LINK
        for url, end in dict.fromkeys(readings):
            verdict = judge_reading(ps, url, role)
            if verdict is not None:
                neutralise(ps, source, view.source_end(end), verdict, reference=False)
                break


def _may_span_lines(text: str, pos: int) -> bool:
    """Could python-markdown's destination from `pos` run past its line? Not when the
    line holds a `)` and nothing that nests, quotes or escapes before the first one."""
    line_end = text.find("\n", pos)
    if line_end < 0:
        return False
    close = text.find(")", pos, line_end)
    return close < 0 or any(c in text[pos:close] for c in "(\"'\\")


def closing_paren(text: str, pos: int) -> int:
    """Where the `)` that balances the `(` at `pos - 1` is, when it is on that line
    (escapes not read: callers refuse a `\\` before it); -1 when it is not."""
    line_end = text.find("\n", pos)
    depth = 0
    for paren in _BARE_PAREN.finditer(text, pos, len(text) if line_end < 0 else line_end):
        if paren.group() == "(":
            depth += 1
        elif depth:
            depth -= 1
        else:
            return paren.start()
    return -1


def _balanced_on_its_line(text: str, pos: int) -> bool:
    """Does python-markdown's destination from `pos` end on its line (so that
    `_python_markdown` adds nothing)? It does when the `(` at `pos - 1` balances
    there with no quote, escape or `<` before its `)`: getLink closes at that `)`
    (`PythonMarkdown._scan`), and indexing the whole text to find it costs more."""
    close = closing_paren(text, pos)
    return close >= 0 and not any(c in text[pos:close] for c in "\"'\\<")


def _python_markdown(python_markdown: PythonMarkdown, pos: int) -> list[Reading]:
    """python-markdown's destination, however it joined the destination's lines."""
    found = python_markdown.destination(pos, pos + WINDOW)
    if found is None or python_markdown.text.find("\n", pos, found[1]) < 0:
        return []  # on one line, the readings above are python-markdown's
    href, end = found
    return [(url, end) for url in joined(href)]


def _destinations(text: str, pos: int) -> list[Reading]:
    """Readings of the destination after `(` at `pos - 1` on its line (or the next,
    when it starts there), each with where the construct ends."""
    limit = min(len(text), pos + WINDOW)
    line_end = text.find("\n", pos, limit)
    line_end = limit if line_end < 0 else line_end
    start = pos
    # python-markdown and marko strip any white space (`\x0c`, `\xa0`) before `<`.
    while start < line_end and text[start].isspace():
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
        end = paren + 1 if paren >= 0 else line_end
        inside = text[start + 1 : close if close >= 0 else line_end]
        return [
            (inside, end),
            (inside.strip(), end),  # python-markdown strips any white space inside
            (text[start : paren if paren >= 0 else line_end], end),  # python-markdown keeps <>
        ]
    match = _READING_A.match(text, start, line_end)
    first = match.group() if match else ""
    paren = _closing_paren(text, start, line_end)
    if paren < 0:  # unclosed: only a remote URL a self-healing renderer would close
        remote = _REMOTE.match(html.unescape(first))
        return [(first, start + len(first))] if remote else []
    title = _TITLE.search(text, start, paren)
    second = text[start : title.start() if title else paren].strip()
    return [(r, paren + 1) for r in (first, second) if r]


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
