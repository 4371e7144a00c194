"""`Prefixes`: what an observer was already sent, so a URL that repeats its
start says only which one it repeats and how far.

    sent = Prefixes()
    sent.add("/ingest/commit/85d4e9f")
    sent.shared("/ingest/pull/412")      # 8: "/ingest/" was sent before

Links of one answer share their start (`/acme/web/commit/<sha>`, then `/acme/web/pull/412`);
priced alone, each spells its repository again. Given the earlier ones, a URL is told
by which earlier one it starts like, after how many of its cuts (`/`, `?`, `&`, `#`,
`;`), and what follows, priced as written: a code for it, so the bound holds whatever
the URLs encode.
"""

from __future__ import annotations

import math
import re

__all__ = ["Prefixes"]

_CUT = re.compile(r"[/?&#;]")


def _ends(text: str) -> list[int]:
    """Where a prefix of `text` may end: just after each cut."""
    return [match.end() for match in _CUT.finditer(text)]


class Prefixes:
    """The starts, cut after a separator, of the free parts one observer was sent."""

    __slots__ = ("_count", "_starts")

    def __init__(self) -> None:
        self._starts: set[str] = set()
        self._count = 0

    def add(self, text: str) -> None:
        """Remember `text`, a free part the observer was sent."""
        self._count += 1
        self._starts.update(text[:end] for end in _ends(text))

    def shared(self, text: str) -> int:
        """How long a start of `text` the observer has (0: none past a lone cut)."""
        for end in reversed(_ends(text)):
            if end > 1 and text[:end] in self._starts:
                return end
        return 0

    def pointer_bits(self, text: str) -> float:
        """The bits of saying which remembered text `text` starts like (or none), and
        after which of its cuts."""
        return math.log2(self._count + 1) + math.log2(len(_ends(text)) + 1)
