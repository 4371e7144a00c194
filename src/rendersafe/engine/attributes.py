"""python-markdown's attribute lists (`{: #id .class key="value" word}`), read as its
scanner reads them.

    attribute_names('title="a"onclick="alert(1)" .x #y flag')
    # ['title', 'onclick', 'flag']

The `attr_list` extension (and `fenced_code`, for a fence's `{...}`) reads the list with
one `re.Scanner`: at each position a quoted `key="..."` or `key='...'`, a `key=value`,
or a bare word, with spaces between them or none (a name glued to the quote before
it is a name). A bare word sets itself (`{onclick}` is `onclick="onclick"`: an event
handler all the same, if one that runs nothing); `.x` and `#y` set a class and an id.
Names hold what its patterns let them (`[^ =}]`), the characters no name may hold
written later as `_`.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["FENCE_OPENING", "attribute_names"]

# A fence's opening run and the blanks around it, all of a line before a `{`: there the
# `{...}` is fenced_code's, read before any escape (a `\}` is a `}` to it).
FENCE_OPENING: Final = re.compile(r"[^\S\n\r]*(?:`{3,}|~{3,})[^\S\n\r]*")
_TOKEN: Final = re.compile(
    r"""([^ =}]+)="[^\n]*?"|([^ =}]+)='[^\n]*?'|([^ =}]+)=[^ =}]+|([^ =}]+)| """
)


def attribute_names(inner: str) -> list[str]:
    """The names of the attributes the list `inner` (between its braces, a leading `:`
    allowed) sets, as written: not its classes (`.x`) or its id (`#y`)."""
    # python-markdown expands every tab to spaces before anything reads the text.
    text = inner.expandtabs(4).removeprefix(":").lstrip(" ")
    names: list[str] = []
    pos = 0
    while pos < len(text):
        token = _TOKEN.match(text, pos)
        if token is None or token.end() == pos:
            break  # the scanner stops at what none of its patterns reads
        name = token.group(1) or token.group(2) or token.group(3) or token.group(4)
        if name and not (token.group(4) and name[:1] in ".#"):
            names.append(name)
        pos = token.end()
    return names
