"""Control characters, which renderers read apart: each is made plain before anything
else reads the text.

- STX (`\\x02`) and ETX (`\\x03`) are python-markdown's placeholder markers: it deletes
  both before it reads, so `<\\x02img src=...>` is a tag to it and text to every other
  renderer, and `java\\x02script:` a scheme. They are deleted.
- U+FEFF (a byte-order mark, a zero-width no-break space) is white space to
  JavaScript's readers and not to Python's, and micromark strips it at the text's
  start (a block tag or a definition there is one to it alone). It is deleted.
- The other C0 controls but tab, line feed and carriage return (and DEL) are white space
  to some readers and not to others: marko turns `\\f` into a line end, python-markdown
  strips `\\x0b` or `\\x1c` before a block tag, commonmark.py reads `\\x1c` inside a
  destination, a browser takes none of them for white space inside a tag. Each becomes
  a space, which every reader reads alike. (NUL is markdown-it's U+FFFD, as a browser's.)

Neither reading is safe to judge alone, and none of these shows as anything: a pass
that meets them makes them plain and reads nothing else, and the same pass then reads
the text every renderer reads alike (`units.settle`).
"""

from __future__ import annotations

import re

from ..engine.edits import Edit
from ..engine.state import Pass
from ..findings import Action, Construct, Reason

__all__ = ["CONTROLS", "made_plain", "plain_controls"]

CONTROLS = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f\ufeff]")
_RUN = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f\ufeff]+")
_DELETED = frozenset("\x02\x03\ufeff")


def plain_controls(ps: Pass) -> bool:
    """Delete every STX and ETX of the pass's text and make every other control a
    space; True when there was one."""
    text = ps.source.text
    if CONTROLS.search(text) is None:
        return False
    edits = [Edit(m.start(), m.end(), (_plain(m.group()),)) for m in _RUN.finditer(text)]
    reasons = (Reason.INVISIBLE_CHARACTERS,)
    detail = "control characters renderers read apart"
    ps.change_all(edits, Construct.HTML, Action.REMOVED, reasons, detail=detail, detector="lexical")
    return True


def _plain(run: str) -> str:
    return "".join("" if c in _DELETED else " " for c in run)


def made_plain(text: str) -> str:
    """`text` as `plain_controls` leaves it: what a reply with controls comes back as,
    when nothing else in it changes."""
    return _RUN.sub(lambda run: _plain(run.group()), text)
