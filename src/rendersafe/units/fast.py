"""The fast path: a unit no step of a pass could change, found without parsing it.

Most units of most replies need no change. `certified` shows it for a unit with a
few scans in C and one judge call per URL a reading could take from it, and the
unit pass (parse, regions, brackets, walk, backstop) is skipped. It certifies only
what it can show; anything else goes through the pass, so the output is the pass's
by construction, findings and carry included. Every condition, and why it is sound:

- not a forced cut, not after one, no prefix (the text sent leaves nothing open):
  those read the unit in a context or close what it leaves open (`settle`);
- no `<`: no raw HTML, autolink, tag-like text or interleaved span, in any reading;
- no `&`, no `\\`: entities and escapes read differently per renderer, and neither
  can change a destination's extent or text here; no `\\r` or NUL: the text is
  what markdown-it reads (`Normalised`);
- no `]:`: every reading of a reference definition holds one (markdown-it's, the
  lenient pass's `references._DEFINITION`, python-markdown's `views`), so this
  unit defines nothing, and python-markdown's view of it is the text itself;
- no `[` when earlier units defined references (markdown-it or lenient): a use
  here would resolve to them;
- no `!` before `[` (invisibles between, as `brackets._bang` reads): no image, so
  no image is spent, no label used, no channel counted;
- no backtick when the unit has `](`: code spans are python-markdown's destination
  text (`views`); elsewhere code only takes candidates away;
- after each `](`, every destination reading the backstop judges
  (`inline.destination_readings`), markdown-it's own (`parseLinkDestination`; a
  destination on the next line is left to the pass) and the empty one, and every
  bare URL (`bare.bare_readings`), each judged as the pass judges it and kept.
  markdown-it reads a link only after a `](`: code, tables and pairing can only
  take candidates away, never add or change one, so these are a superset.

Judging must leave the reply's judge as the pass would: `ReplyJudge.peek` answers
only when the answer changes nothing it remembers, and the unit goes to the pass
otherwise (a conversation's URL not judged before; a link with a one-character
component, a link channel's use).
"""

from __future__ import annotations

import os
import re

from markdown_it.common.utils import unescapeAll
from markdown_it.helpers import parseLinkDestination

from ..config import FAST_PATH_ENV
from ..engine.carry import Carry, Delta
from ..engine.judging import Judge, ReplyJudge
from ..lexical.bare import bare_readings
from ..lexical.decide import WINDOW
from ..lexical.destinations import PythonMarkdown
from ..lexical.inline import destination_readings
from ..urls import INVISIBLE, Role

__all__ = ["FAST_PATH_VARIABLE", "certified", "enabled"]

# `RENDERSAFE_FAST_PATH=0` turns the fast path off for the sanitisers built after.
FAST_PATH_VARIABLE = FAST_PATH_ENV
_PASS_ONLY = re.compile(r"[<\\\r\x00]|\]:")
# What `parseLinkDestination` reads before it looks at parens (no `\\` here).
_DESTINATION_RUN = re.compile(r"[^\x00-\x20\x7f]+")
_PAREN = re.compile(r"[()]")
_OPEN = re.compile(r"\(\s*")  # as `destinations` opens one
_IMAGE = re.compile("!" + INVISIBLE.pattern + r"*\[")


def enabled() -> bool:
    """Is the fast path on (it is unless `RENDERSAFE_FAST_PATH` is `0`)?"""
    return os.environ.get(FAST_PATH_VARIABLE, "1").strip() != "0"


def certified(text: str, carry: Carry, judge: Judge) -> Delta | None:
    """What the unit pass over `text` would add to `carry`, when it provably changes
    nothing and finds nothing; None when the pass must read it."""
    if not isinstance(judge, ReplyJudge) or not _plain(text, carry):
        return None
    candidates = _candidates(text)
    if candidates is None:
        return None
    for raw, decode in candidates:
        verdict = judge.peek(raw, Role.LINK, decode_entities=decode)
        if verdict is None or verdict.action != "keep":
            return None
    return Delta(
        references={},
        definitions={},
        lenient=(),
        image_labels=frozenset(),
        images_kept=carry.images_kept,
        image_channels=carry.image_channels,
        healer=carry.healer.after(text),
    )


def _plain(text: str, carry: Carry) -> bool:
    """Does `text` hold none of what only the pass reads (the conditions above)?"""
    if _PASS_ONLY.search(text):
        return False
    if "[" in text and (carry.references or carry.lenient_count):
        return False
    if "!" in text and _IMAGE.search(text):
        return False
    # python-markdown moves entities after `-->` or `]]>` out of the way.
    return "&" not in text or ("-->" not in text and "]]>" not in text)


def _candidates(text: str) -> dict[tuple[str, bool], None] | None:
    """Every URL a pass over `text` may judge as a link, with whether it decodes
    entities, each once (readings agree on most URLs); None when one of them is not
    read here."""
    found: dict[tuple[str | None, bool], None] = {}
    code = "`" in text
    at = text.find("](")
    if at >= 0:
        found["", False] = None  # markdown-it's href when the destination does not parse
    python_markdown: list[PythonMarkdown] = []
    while at >= 0:
        pos = at + 2
        found[_markdown_it_destination(text, pos), False] = None
        for url, _end in destination_readings(text, pos, python_markdown):
            found[url, True] = None
        if code:  # python-markdown has a view of its own only where it reads code
            found[_python_markdown_view(text, pos)] = None
        at = text.find("](", pos)
    found.update(dict.fromkeys((url, True) for url in bare_readings(text, any_code=code)))
    if (None, False) in found or (None, True) in found:
        return None
    return {(url, decode): None for url, decode in found if url is not None}


def _python_markdown_view(text: str, pos: int) -> tuple[str | None, bool]:
    """The destination python-markdown's view reads after `(` at `pos - 1`
    (`inline.python_markdown_constructs`), None when it may differ from the text's.

    The view masks its code spans (`View.masked`). A span over `pos` hides the
    `](`; one before it changes no paren or quote after it. So when the `(` is
    balanced by a `)` on its line, with no quote or backtick between, the view reads
    what the text reads, as `PythonMarkdown.span` does: to that `)`, since no quote
    and no paragraph end comes first (a `<` would be an angle destination)."""
    line_end = text.find("\n", pos)
    close, depth = -1, 0
    for paren in _PAREN.finditer(text, pos, len(text) if line_end < 0 else line_end):
        if paren.group() == "(":
            depth += 1
        elif depth == 0:
            close = paren.start()
            break
        else:
            depth -= 1
    if close < 0 or any(c in text[pos:close] for c in "`\"'"):
        return None, True
    start = _OPEN.match(text, pos - 1)
    begin = pos if start is None else start.end()
    return text[begin : max(begin, min(close, pos + WINDOW))].strip(), True


def _markdown_it_destination(text: str, pos: int) -> str | None:
    """markdown-it's href for a link whose `(` is at `pos - 1`, read on its line as
    its inline rule reads it (None: it starts on a later line)."""
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    if text.startswith("\n", pos):
        return None
    run = _DESTINATION_RUN.match(text, pos)
    if run is not None and "(" not in run.group():
        # Nothing to balance: markdown-it's loop ends at the first `)`.
        href = run.group().partition(")")[0]
        return unescapeAll(href) if href else ""
    found = parseLinkDestination(text, pos, len(text))
    return found.str if found.ok else ""
