"""python-markdown's placeholder markers: STX and ETX, which it deletes before reading.

python-markdown keeps the HTML and code it sets aside as placeholders between STX
(`\\x02`) and ETX (`\\x03`), and deletes both characters from the text before anything
else, so `<\\x02img src=...>` is a tag to it and text to every other renderer, and
`java\\x02script:` a scheme. Neither reading is safe to judge alone (deleted, they may
also open a fence the others read as a code span), and both characters show as nothing:
a pass that meets them deletes them and reads nothing else, and the next pass (the
fixpoint's re-check) reads the text every renderer then reads alike.
"""

from __future__ import annotations

import re

from ..engine.edits import Edit
from ..engine.state import Pass
from ..findings import Action, Construct, Reason

__all__ = ["PLACEHOLDERS", "delete_placeholders"]

PLACEHOLDERS = ("\x02", "\x03")
_MARKER = re.compile("[\x02\x03]+")


def delete_placeholders(ps: Pass) -> bool:
    """Delete every STX and ETX of the pass's text; True when there was one."""
    text = ps.source.text
    if "\x02" not in text and "\x03" not in text:
        return False
    edits = [Edit(m.start(), m.end(), ()) for m in _MARKER.finditer(text)]
    reasons = (Reason.INVISIBLE_CHARACTERS,)
    detail = "python-markdown's placeholder markers (STX, ETX)"
    ps.change_all(edits, Construct.HTML, Action.REMOVED, reasons, detail=detail, detector="lexical")
    return True
