"""The usual per-token event of each format, recognised in its text, exactly.

A dialect's quick path (`Dialect.quick`) may take an event only when one of these
patterns matches all of it: then the event provably holds one text field and nothing
else a client could render, and the pattern says where that text is. Anything else
(escapes in keys, `\\u` escapes, duplicate or nested text fields, other spacing, tool
calls) does not match and is read in full.
"""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring  # the C encoder json.dumps uses

__all__ = ["INDEX", "SCALAR", "STRING", "TEXT", "member", "text_of", "with_text"]

STRING = r'"[^"\\\x00-\x1f]*"'  # no escapes at all
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
SCALAR = rf"(?:{STRING}|{_NUMBER}|null|true|false)"
# The inside of a text string: the escapes one character stands for, never `\u`.
TEXT = r'(?:[^"\\\x00-\x1f]|\\["\\/bfnrt])*'
INDEX = r"(?:0|[1-9][0-9]{0,8})"


def member(*not_named: str) -> str:
    """A `"key":scalar` member (a key with no escapes) not named any of `not_named`."""
    names = "|".join(not_named)
    return rf'"(?!(?:{names})")[A-Za-z0-9_]+":{SCALAR}'


def text_of(inside: str) -> str:
    """The string a `TEXT` match stands for."""
    return json.loads(f'"{inside}"') if "\\" in inside else inside


def with_text(text: str, match: re.Match[str], group: int, out: str) -> str:
    """`text` with the string whose inside `match` read as `group` now holding `out`."""
    start, end = match.span(group)
    return text[: start - 1] + encode_basestring(out) + text[end + 1 :]
