"""`StreamSanitizer`: sanitise a reply as it arrives, safe at every prefix.

    stream = Sanitizer(policy).stream()
    for token in model_tokens:
        send(stream.feed(token))        # what is settled and safe; may be ""
    send(stream.close())                # the rest
    stream.findings                     # the same findings as Sanitizer.run()

The reply is cut into units exactly as `Sanitizer.run()` cuts it, and each unit is
sanitised when it ends, with the same code: the concatenated output equals the
one-shot output, whatever the chunking. Inside the unit still arriving, text is
sent on at once up to the first character that could start a construct (`[`, `<`,
`![`, or a word that looks like a URL); the rest waits for the unit to end, at most
`policy.max_hold_chars` characters, after which the unit is cut and any opener
still open is escaped. Nothing held is ever sent unsanitised: an error breaks the
stream, and every later call raises `SanitizeError`.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

from .bare import URLISH
from .errors import RenderSafeError, SanitizeError
from .findings import Finding
from .segment import Segmenter, Unit
from .units import Carry, UnitSanitizer
from .urls import INVISIBLE

__all__ = ["StreamSanitizer"]

# Where the unit's text may first be edited: a bracket, a tag or autolink, an image.
_OPENER = re.compile(r"\[|<|!(?=" + INVISIBLE.pattern + r"*\[)")
_SPACE = re.compile(r"\s")


class StreamSanitizer:
    """Sanitises one reply fed in chunks. Build it with `Sanitizer.stream()`."""

    def __init__(self, units: UnitSanitizer, context: dict[str, str]) -> None:
        self._units = units
        self._context = context
        self._segmenter = Segmenter(units.policy.max_hold_chars)
        self._carry = Carry()
        self._findings: list[Finding] = []
        self._sent = 0  # characters of the current unit already sent, unchanged
        self._held_from: int | None = None  # where the current unit must start waiting
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._state = "open"

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every change made so far, as `Sanitizer.run()` reports them."""
        return tuple(self._findings)

    @property
    def held(self) -> int:
        """Characters received but not sent yet."""
        return len(self._segmenter.pending) - self._sent

    def feed(self, chunk: str) -> str:
        """Take the next chunk; return the text now settled and safe to send."""
        if not isinstance(chunk, str):
            raise TypeError(f"feed() takes str, not {type(chunk).__name__}; use feed_bytes()")
        return self._guarded(lambda: self._feed(chunk))

    def feed_bytes(self, chunk: bytes) -> str:
        """Take UTF-8 bytes, cut anywhere (even inside a character)."""
        return self.feed(self._decoder.decode(chunk))

    def close(self) -> str:
        """End the reply: settle what is held (an unfinished construct is neutralised)."""
        tail = self._decoder.decode(b"", final=True)

        def finish() -> str:
            out = self._feed(tail) if tail else ""
            out += self._settle(self._segmenter.finish())
            self._state = "closed"
            return out

        return self._guarded(finish)

    def _guarded(self, work: Callable[[], str]) -> str:
        if self._state != "open":
            raise SanitizeError(f"the stream is {self._state}; start a new one")
        try:
            return work()
        except Exception as exc:
            self._state = "broken"
            if isinstance(exc, RenderSafeError):
                raise
            raise SanitizeError(f"internal error while sanitising a stream: {exc!r}") from exc

    def _feed(self, chunk: str) -> str:
        return self._settle(self._segmenter.push(chunk)) + self._send_settled_prefix()

    def _settle(self, units: list[Unit]) -> str:
        out = []
        for unit in units:
            settled = self._units.settle(unit, self._carry, self._context)
            sent = unit.text[: self._sent]
            if not settled.text.startswith(sent):
                raise SanitizeError("a settled unit changed text already sent")
            out.append(settled.text[self._sent :])
            self._findings.extend(settled.findings)
            self._carry = settled.carry
            self._sent, self._held_from = 0, None
        return "".join(out)

    def _send_settled_prefix(self) -> str:
        """Send the current unit's text up to where it could first be edited.

        That is the first opener (`[`, `<`, an `!` before `[`), or the start of a
        complete word a renderer could link; and never the last word, which may
        still grow into a URL. Past that point the unit waits until it ends.
        """
        if self._held_from is not None:
            return ""
        pending, start = self._segmenter.pending, self._sent
        opener = _OPENER.search(pending, start)
        if opener is not None:
            limit = opener.start()
        else:
            last_space = max((m.start() for m in _SPACE.finditer(pending, start)), default=-1)
            limit = last_space + 1 if last_space >= start else start
        urlish = URLISH.search(pending, start, limit)
        if urlish is not None:
            limit = _word_start(pending, urlish.start(), start)
        if opener is not None or urlish is not None:
            self._held_from = limit
        self._sent = limit
        return pending[start:limit]


def _word_start(text: str, pos: int, floor: int) -> int:
    while pos > floor and not text[pos - 1].isspace():
        pos -= 1
    return pos
