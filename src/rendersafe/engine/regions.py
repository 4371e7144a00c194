"""`Regions`: sets of half-open ranges of a text, asked about by offset."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

__all__ = ["Regions"]


class Regions:
    """A set of half-open [start, end) ranges, queried by offset."""

    __slots__ = ("_ends", "_sorted", "_starts")

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._sorted = True

    def __iter__(self) -> Iterator[tuple[int, int]]:
        if not self._sorted:
            self._sort()
        return iter(zip(self._starts, self._ends, strict=True))

    def add(self, start: int, end: int) -> None:
        """Add [start, end); empty ranges are ignored."""
        if end <= start:
            return
        if self._starts and start < self._starts[-1]:
            self._sorted = False
        self._starts.append(start)
        self._ends.append(end)

    def __contains__(self, offset: object) -> bool:
        if not isinstance(offset, int) or not self._starts:
            return False
        if not self._sorted:
            self._sort()
        i = bisect.bisect_right(self._starts, offset) - 1
        return i >= 0 and offset < self._ends[i]

    def end_of(self, offset: int) -> int:
        """The end of the range holding `offset`, or `offset` when none does."""
        if not self._starts:
            return offset
        if not self._sorted:
            self._sort()
        i = bisect.bisect_right(self._starts, offset) - 1
        return self._ends[i] if i >= 0 and offset < self._ends[i] else offset

    def _sort(self) -> None:
        pairs = sorted(zip(self._starts, self._ends, strict=True))
        self._starts = [start for start, _end in pairs]
        # A later-starting range can end before an earlier one: keep the running maximum.
        self._ends, reach = [], -1
        for _start, end in pairs:
            reach = max(reach, end)
            self._ends.append(reach)
        self._sorted = True
