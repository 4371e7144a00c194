"""Error messages that name what failed and where, never what the body said.

A body's text is the model's (or the app's), and may hold what a prompt injection
wanted out: an error message quotes only names that look like names, lengths and
positions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable

__all__ = ["json_error", "safe_name"]

# A name as formats write them: a field, an event type, a content type, a charset.
_NAME = re.compile(r"[A-Za-z0-9_.:/+;= -]{1,60}")


def safe_name(value: Hashable) -> str:
    """`value` quoted if it looks like a name (or a number, or a tuple of them), else
    only its kind and length."""
    if isinstance(value, bool | int | float | None):
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(safe_name(part) for part in value) + ")"
    if isinstance(value, str):
        return repr(value) if _NAME.fullmatch(value) else f"<{len(value)} characters>"
    return f"<a {type(value).__name__}>"


def json_error(exc: Exception, size: int) -> str:
    """Why `size` characters did not parse as JSON, and where, without quoting them."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at character {exc.pos} of {size}"
    return f"{type(exc).__name__}, {size} characters"
