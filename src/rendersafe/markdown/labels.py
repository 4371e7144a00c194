"""Reference labels as different renderers compare them.

CommonMark folds case with Unicode case folding (markdown-it: `.lower().upper()`,
so `ẞ` matches `SS`); python-markdown only lowercases. A label matches when any
of these keys match, so no renderer's reading is missed; each renderer's white space
is its language's (U+FEFF is white space to JavaScript's renderers alone).
"""

from __future__ import annotations

import re

from markdown_it.common.utils import normalizeReference

__all__ = ["label_keys"]

_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def label_keys(raw: str) -> frozenset[str]:
    """The normalised forms of a reference label under each renderer's rules; marked,
    after remend closes the brackets around it, reads `![r\\]]` as a use of `r`, so the
    label without its escaped characters is one too."""
    collapsed = " ".join(_ESCAPE.sub(r"\1", raw).split())
    keys = {normalizeReference(raw), collapsed.casefold(), collapsed.lower(), raw.strip().lower()}
    dropped = " ".join(_ESCAPE.sub("", raw).split()).lower()
    if dropped:
        keys.add(dropped)
    if "\ufeff" in raw:
        # JavaScript's `\s` and `trim()` hold U+FEFF (marked, markdown-it and
        # commonmark.js collapse or trim it); Python's do not.
        spaced = _ESCAPE.sub(r"\1", raw).replace("\ufeff", " ")
        keys |= label_keys(spaced) | {" ".join(spaced.split()).upper().lower()}
    return frozenset(keys)
