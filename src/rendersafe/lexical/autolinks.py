"""Autolinks over several lines, as python-markdown reads them.

markdown-it-py reads `<https://e.example/x>` only on one line; python-markdown's
`<scheme://...>` and `<user@host>` run to the `>` across the newlines of a
paragraph, and the browser strips those newlines from the href. A one-line autolink
is a bare URL to the backstop (`bare`); these are judged here.
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


def autolinks(ps: Pass, code: Regions) -> None:
    """Judge every autolink that spans lines, outside `code` and what was decided."""
    text = ps.source.text
    for match in _AUTOLINK.finditer(text):
        url = match.group(1) or match.group(2)
        if "\n" not in url or _BLANK_LINE.search(url):
            continue  # one line is a bare URL; a blank line ends the paragraph
        if match.start() in code or match.start() in ps.claimed:
            continue
        readings = joined(url) if match.group(1) else ["mailto:" + r for r in joined(url)]
        verdict = worst(ps, readings, Role.LINK)
        if verdict is not None:
            edit = Edit(match.start(), match.end(), ps.link_parts(None))
            reasons = verdict.reasons
            ps.change(
                edit,
                Construct.AUTOLINK,
                Action.UNLINKED,
                reasons,
                verdict=verdict,
                detector="lexical",
            )
