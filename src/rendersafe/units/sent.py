"""`SentText`: what the text sent so far leaves open, for the next unit to be read in.

A renderer reads each unit inside what the text *sent* leaves open (a fence, a raw
block), whatever the text received left open. While every unit came out unchanged
the two are the same, and the unit's own prefix (from the segmenter of the text
received) is right: a one-shot run reads the text sent only from the first change
on, from the reply it holds. A stream tracks it from the start.
"""

from __future__ import annotations

from .segment import Segmenter, Unit

__all__ = ["SentText"]


class SentText:
    """Tracks the text sent, unit by unit. Build with `of_reply` or `streaming`."""

    def __init__(self, limit: int, reply: str | None) -> None:
        self._limit = limit
        self._reply = reply
        self._segmenter = Segmenter(limit) if reply is None else None

    @classmethod
    def of_reply(cls, reply: str, limit: int) -> SentText:
        """For a one-shot run over `reply`."""
        return cls(limit, reply)

    @classmethod
    def streaming(cls, limit: int) -> SentText:
        """For a stream: the reply is not at hand, so track every unit."""
        return cls(limit, None)

    def context(self, unit: Unit) -> str:
        """What to parse in front of `unit`: what the text sent before it leaves open."""
        return unit.prefix if self._segmenter is None else self._segmenter.context

    def record(self, unit: Unit, output: str) -> None:
        """`output` was sent for `unit`."""
        if self._segmenter is None:
            if output == unit.text or self._reply is None:
                return
            self._segmenter = Segmenter(self._limit)
            self._segmenter.push(self._reply[: unit.start])
        self._segmenter.push(output)
