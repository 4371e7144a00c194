"""Autolinks markdown-it-py does not read as such: over several lines or with white
space, as python-markdown reads them, and inside what it reads as raw HTML.

markdown-it-py reads `<https://e.example/x>` only on one line without white space;
python-markdown's `<scheme://...>` and `<user@host>` run to the `>` across spaces
and the newlines of a paragraph, and the browser strips those newlines from the
href (`bare` ends a URL at the first white space). A one-line
`http(s)://` or `ftp://` autolink in ASCII is a bare URL to the backstop (`bare`);
one beyond it may not be (`bare` ends a URL at `\xa0`, an autolink holds it). One
of any other scheme (`<javascript:...>`) is judged here, outside code, wherever it lies:
markdown-it-py reads `<!h<javascript:>` as a declaration (CommonMark 0.31: `<!` and
a letter), where commonmark.py and the 0.29 renderers, which need an upper-case
name and white space after it, read text and an autolink; and a renderer shown the
prefix `<span title="<javascript:x>` reads no tag there, and an autolink.
"""

from __future__ import annotations

import re

from ..engine.edits import Edit
from ..engine.regions import Regions
from ..engine.state import Pass
from ..findings import Action, Construct
from ..urls import Role
from .decide import worst
from .destinations import joined

__all__ = ["autolinks"]

# python-markdown's AUTOLINK_RE and AUTOMAIL_RE.
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]*://[^<>]*)>|<([^<> !]+@[^@<> ]+)>")
_BLANK_LINE = re.compile(r"\n[ \t>]*\n")
_SPACE = re.compile(r"\s")  # where `bare` ends a URL that python-markdown's runs on
# CommonMark's URI autolink on one line (its scheme, then the rest).
_URI_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}):([^\x00-\x20<>]*)>")
_BARE_SCHEMES = frozenset({"http", "https", "ftp"})  # `//` after them: `bare` reads them


def autolinks(ps: Pass, code: Regions) -> None:
    """Judge every autolink that spans lines or holds white space or more than ASCII,
    and every one-line autolink of a scheme `bare` does not read, outside `code` and
    what was decided."""
    text = ps.source.text
    if "<" not in text:
        return
    _one_line(ps, code)
    for match in _AUTOLINK.finditer(text):
        url = match.group(1) or match.group(2)
        if (url.isascii() and not _SPACE.search(url)) or _BLANK_LINE.search(url):
            continue  # a bare URL to `bare`; a blank line ends the paragraph
        readings = joined(url) if match.group(1) else ["mailto:" + r for r in joined(url)]
        _judged(ps, code, match, readings)


def _one_line(ps: Pass, code: Regions) -> None:
    for match in _URI_AUTOLINK.finditer(ps.source.text):
        scheme, rest = match.group(1), match.group(2)
        if scheme.lower() in _BARE_SCHEMES and rest.startswith("//") and rest.isascii():
            continue  # (`bare` ends a URL at white space an autolink holds: `\xa0`)
        _judged(ps, code, match, [f"{scheme}:{rest}"])


def _judged(ps: Pass, code: Regions, match: re.Match[str], readings: list[str]) -> None:
    """Unlink the autolink `match` when one of its `readings` must go (outside `code`
    and what was decided)."""
    if match.start() in code or match.start() in ps.claimed:
        return
    verdict = worst(ps, readings, Role.LINK)
    if verdict is not None:
        ps.change(
            Edit(match.start(), match.end(), ps.link_parts(None, verdict)),
            Construct.AUTOLINK,
            Action.UNLINKED,
            verdict.reasons,
            verdict=verdict,
            detector="lexical",
        )
