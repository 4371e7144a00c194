"""`Regions`: sets of half-open ranges of a text, asked about by offset."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

__all__ = ["Regions"]

# Offsets at which ranges start, and the furthest any of them reaches: a range's end,
# or an earlier one's that goes further (the union is the same).
_Run = tuple[list[int], list[int]]


class Regions:
    """A set of half-open [start, end) ranges, queried by offset.

    The ranges are kept in runs sorted by start. A range that starts before the last
    one added opens a new run, and a run is merged into the one before it while it is
    at least half that one's size, so there are a few runs at most (O(log n)) however
    the ranges arrive: re-sorting everything at the next query after each range added
    out of order cost the square of their number.
    """

    __slots__ = ("_runs",)

    def __init__(self) -> None:
        self._runs: list[_Run] = []

    def __iter__(self) -> Iterator[tuple[int, int]]:
        while len(self._runs) > 1:
            self._merge_last()
        if not self._runs:
            return iter(())
        starts, reach = self._runs[0]
        return iter(zip(starts, reach, strict=True))

    def add(self, start: int, end: int) -> None:
        """Add [start, end); empty ranges are ignored."""
        if end <= start:
            return
        runs = self._runs
        if runs and start >= runs[-1][0][-1]:
            starts, reach = runs[-1]
            starts.append(start)
            reach.append(max(reach[-1], end))
            return
        while len(runs) > 1 and 2 * len(runs[-1][0]) >= len(runs[-2][0]):
            self._merge_last()
        runs.append(([start], [end]))

    def __contains__(self, offset: object) -> bool:
        if not isinstance(offset, int):
            return False
        for starts, reach in self._runs:
            i = bisect.bisect_right(starts, offset) - 1
            if i >= 0 and offset < reach[i]:
                return True
        return False

    def end_of(self, offset: int) -> int:
        """The end of the range holding `offset`, or `offset` when none does."""
        end = offset
        for starts, reach in self._runs:
            i = bisect.bisect_right(starts, offset) - 1
            if i >= 0 and reach[i] > end:
                end = reach[i]
        return end

    def _merge_last(self) -> None:
        (starts_b, reach_b), (starts_a, reach_a) = self._runs.pop(), self._runs.pop()
        pairs = sorted([*zip(starts_a, reach_a, strict=True), *zip(starts_b, reach_b, strict=True)])
        starts, reach, furthest = [], [], -1
        for start, end in pairs:
            furthest = max(furthest, end)
            starts.append(start)
            reach.append(furthest)
        self._runs.append((starts, reach))
