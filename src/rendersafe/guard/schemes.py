"""URLs a browser runs, in every spelling it decodes; CSS that fetches.

A browser strips leading and trailing C0 controls and spaces from a URL, removes
tabs and line breaks anywhere in it, and compares the scheme without case; the
HTML tokeniser has decoded character references before that, and a Markdown
renderer may have decoded them (and backslash escapes) once more. `script_url`
asks of every such reading whether it is `javascript:`, `vbscript:` or `data:` (a
`data:` URL navigates or runs; only `<img>`-like fetches of `data:image/` are
judged as images instead, by the URL judge).
"""

from __future__ import annotations

import re
from html import unescape
from typing import Final

__all__ = ["CSS_DANGER", "markdown_readings", "script_url"]

_C0_AND_SPACE: Final = "".join(map(chr, range(0x21)))
_BLANKS: Final = re.compile(r"[\t\n\r]")
_SCRIPT: Final = re.compile(r"(?:java|vb)script:|data:|livescript:|mocha:", re.IGNORECASE)
_BACKSLASH: Final = re.compile(r"\\([!-/:-@\[-`{-~])")
# How far into a value a scheme can reach once blanks and controls are gone.
_SCHEME_REACH: Final = 512
# CSS that loads something or hides a name that would: `url(`, `image-set(`, `image(`,
# `@import`, IE's `expression(` and `behavior`, and any escape or reference that
# could spell one of them.
CSS_DANGER: Final = re.compile(
    r"url\s*\(|image-set|image\s*\(|@import|expression|behavior|binding|\\|&|src\s*\(",
    re.IGNORECASE,
)


def script_url(value: str) -> bool:
    """Is `value`, read as a browser reads a URL attribute, a script or data URL?"""
    head = value[:_SCHEME_REACH]
    if ":" not in head and "&" not in head and "\\" not in head:
        return False
    return any(_is_script(reading) for reading in {head, unescape(head)})


def _is_script(value: str) -> bool:
    value = _BLANKS.sub("", value.strip(_C0_AND_SPACE))
    return _SCRIPT.match(value) is not None


def markdown_readings(raw: str) -> set[str]:
    """`raw` as Markdown renderers hand a destination to the browser: as written,
    with backslash escapes taken out, with character references decoded once or
    twice (a renderer that decodes them and writes the `&` back unescaped, then the
    browser), each of these."""
    unescaped = _BACKSLASH.sub(r"\1", raw)
    readings = {raw, unescaped}
    if "&" in raw:
        readings |= {unescape(r) for r in readings}
        readings |= {unescape(r) for r in readings}
    return readings
