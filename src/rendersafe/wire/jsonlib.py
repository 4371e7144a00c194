"""`loads`: JSON as the standard library reads it, with orjson's speed where they agree.

orjson is used when it is importable and the text holds no run of 19 or more digits
(orjson reads an integer past 64 bits as a float); whatever it refuses (`NaN`,
`1E400`, an escaped lone surrogate) is read by `json.loads`, so the value is always
the one `json.loads` gives. Without orjson, `json.loads` reads everything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

__all__ = ["FAST", "loads"]

_fast_loads: Callable[[str], Any] | None
try:
    from orjson import loads as _fast_loads
except ImportError:  # an optional speed-up: the stdlib reads the same values
    _fast_loads = None

FAST = _fast_loads is not None
_LONG_NUMBER = re.compile(r"[0-9]{19}")


def loads(text: str) -> Any:
    """`json.loads(text)`, faster."""
    if _fast_loads is not None and _LONG_NUMBER.search(text) is None:
        try:
            return _fast_loads(text)
        except ValueError:  # orjson.JSONDecodeError is one
            pass
    return json.loads(text)
