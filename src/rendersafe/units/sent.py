"""`SentText`: what the text sent so far leaves open, for the next unit to be read in.

A renderer reads each unit inside what the text *sent* leaves open (a fence, a raw
block), whatever the text received left open. While every unit came out unchanged
the two are the same, and the unit's own prefix (from the segmenter of the text
received) is right: a one-shot run reads the text sent only from the first change
on, from the reply it holds. A stream, which does not hold the reply, keeps the
units it sent unchanged and reads them at the first change; past `_KEPT`
characters it reads them at once and tracks every unit from then on (bounded
memory, and the same state: the same units, pushed in the same order).
"""

from __future__ import annotations

from ..engine.rendered import NO_RENDERED_FENCES, RenderedFences
from .segment import Segmenter, Unit

__all__ = ["SentText"]

_KEPT = 1 << 16  # the most characters of unchanged units a stream keeps unread


class SentText:
    """Tracks the text sent, unit by unit. Build with `of_reply` or `streaming`."""

    def __init__(
        self, limit: int, reply: str | None, rendered: RenderedFences = NO_RENDERED_FENCES
    ) -> None:
        self._limit = limit
        self._rendered = rendered
        self._reply = reply
        self._segmenter: Segmenter | None = None
        self._changed = False  # a unit's output differed from its text
        self._kept: list[str] = []  # a stream's units sent unchanged, not read yet
        self._kept_chars = 0

    @classmethod
    def of_reply(
        cls, reply: str, limit: int, rendered: RenderedFences = NO_RENDERED_FENCES
    ) -> SentText:
        """For a one-shot run over `reply` (`rendered`: the policy's rendered fences,
        which a segmenter of the text sent must track too)."""
        return cls(limit, reply, rendered)

    @classmethod
    def streaming(cls, limit: int, rendered: RenderedFences = NO_RENDERED_FENCES) -> SentText:
        """For a stream: the reply is not at hand, so keep the units sent unchanged."""
        return cls(limit, None, rendered)

    def context(self, unit: Unit) -> str:
        """What to parse in front of `unit`: what the text sent before it leaves open."""
        return self._tracked().context if self._changed else unit.prefix

    def record(self, unit: Unit, output: str) -> None:
        """`output` was sent for `unit`."""
        if not self._changed:
            if output == unit.text:
                if self._reply is None:  # a stream: keep it, read it when needed
                    self._kept.append(output)
                    self._kept_chars += len(output)
                    if self._kept_chars > _KEPT:
                        self._tracked()
                return
            self._changed = True
            if self._reply is not None:
                self._segmenter = Segmenter(self._limit, self._rendered)
                self._segmenter.push(self._reply[: unit.start])
        self._tracked().push(output)

    def _tracked(self) -> Segmenter:
        """The segmenter of the text sent, given the units kept unread."""
        if self._segmenter is None:
            self._segmenter = Segmenter(self._limit, self._rendered)
        if self._kept:
            for text in self._kept:
                self._segmenter.push(text)
            self._kept, self._kept_chars = [], 0
        return self._segmenter
