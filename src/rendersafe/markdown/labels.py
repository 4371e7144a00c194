"""Reference labels as different renderers compare them.

CommonMark folds case with Unicode case folding (markdown-it: `.lower().upper()`,
so `ẞ` matches `SS`); python-markdown only lowercases. A label matches when any
of these keys match, so no renderer's reading is missed. (U+FEFF, white space to
JavaScript's renderers alone, never reaches a label: `guard.controls` deletes it.)
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
    return frozenset(keys)
