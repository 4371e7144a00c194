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

In shadow mode (`Policy(mode="monitor")`) every chunk is returned at once, as it came,
while the same stream runs on a copy: its findings (marked `enforced=False`) are
those the stream would have made; an error there is reported, never raised.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Final, Literal

from .engine.carry import Carry
from .engine.triggers import line_end_after, sendable
from .errors import RenderSafeError, SanitizeError
from .findings import Finding
from .observe import METRICS
from .units.segment import Segmenter, Unit
from .units.sent import SentText
from .units.settle import UnitSanitizer
from .urls.redact import exception_text

__all__ = ["StreamSanitizer"]

StreamState = Literal["open", "closed", "broken"]
"""open: taking chunks; closed: `close()` returned; broken: an error ended it."""

# What `feed` takes in a few steps, by the mode the stream is in (`_fast`): nothing
# (every chunk goes to `_feed`: shadow mode, closed, broken, or an unsent word that
# may still be an opener or URL); a unit held back until it ends; plain words.
_SLOW: Final = 0
_HELD: Final = 1
_PLAIN: Final = 2
# The characters every opener or URL-ish word `sendable` reads holds one of (an
# opener's `[`/`<`/`=`/`{` or a control character, a URL's `:@.`). Without them in the
# unsent word and the chunk, the chunk sends up to its last space, tab or line end, and
# the unit stays one the
# segmenter cannot cut (it cuts only after such a thing): its lines wait in
# `_mid_line` and are pushed at once when something needs them, as one-shot pushes.
_TRIGGERS: Final = frozenset(
    "[<=:@.{\ufeff" + "".join(map(chr, [*range(1, 9), 11, 12, *range(14, 32), 127]))
)
_NOT_PLAIN: Final = _TRIGGERS | frozenset("\t\n")


def _roles(triggers: frozenset[str]) -> bytes:
    """Each ASCII character's part in a chunk of plain words: 1 a trigger, 2 a word's end."""
    return bytes(1 if chr(c) in triggers else 2 if chr(c) in " \t\n" else 0 for c in range(128))


_ROLES: Final = _roles(_TRIGGERS)
# Compiled (mypyc), a loop over code points is the cheapest way to read a chunk; run by
# the interpreter, string methods that loop in C are (`_plain_cut`).
_COMPILED: Final = not __file__.endswith(".py")


def _plain_cut(chunk: str, roles: bytes) -> int:
    """How much of `chunk`, plain words after an unsent word holding no trigger,
    `sendable` would send with that word: up to its last space, tab or line end (0:
    none); -1 when it holds a trigger (`roles`, as `_roles` makes them). One loop
    over its code points, for the compiled build; `feed` reads the same with string
    methods otherwise."""
    cut = 0
    for at in range(len(chunk)):
        code = ord(chunk[at])
        if code < 128 and roles[code]:
            if roles[code] == 1:
                return -1
            cut = at + 1
        elif code == 0xFEFF:  # the one trigger past ASCII (`guard.controls`)
            return -1
    return cut


Ended = Callable[["StreamSanitizer", "Exception | None"], None]
"""Told once when a stream closes or breaks (with the error), for its span and records."""


class StreamSanitizer:
    """Sanitises one reply fed in chunks. Build it with `Sanitizer.stream()`."""

    def __init__(
        self,
        units: UnitSanitizer,
        context: dict[str, str],
        on_finding: Callable[[Finding], None] | None = None,
        *,
        monitor: bool = False,
        on_end: Ended | None = None,
    ) -> None:
        self._units = units
        self._monitor = monitor
        self._on_end = on_end
        self._most_held = 0  # the most held after a chunk, up to the last one that sent
        self._on_finding = on_finding
        self._context = context
        rendered = units.rules.rendered
        self._hold = rendered.hold
        self._segmenter = Segmenter(units.policy.max_hold_chars, rendered)
        # A rendered fence's opener (a backtick, a tilde) or a TeX macro's backslash
        # is a trigger too: `sendable` must read it (`engine.rendered`).
        self._triggers = _TRIGGERS | frozenset(rendered.triggers)
        self._not_plain = _NOT_PLAIN | self._triggers
        self._roles = _roles(self._triggers) if rendered.triggers else _ROLES
        self._carry = Carry()
        self._sent_text = SentText.streaming(units.policy.max_hold_chars, rendered)
        self._findings: list[Finding] = []
        # The current unit's length, kept here: joining its held lines per chunk to
        # measure them re-read them. `feed`'s few steps only take from `_room`: the
        # length is `_length` plus what `_room` lost since `_mark` (`_unit_length`).
        self._length = 0
        # Chunks not pushed yet: the segmenter takes them in one push with the next
        # chunk it must read. While a unit is held, those that only add to its current
        # line (`Segmenter.room`); while plain words come, any that fit the unit
        # (`_PLAIN`: no cut can fall in them, whatever their lines).
        self._mid_line: list[str] = []
        self._room = 0
        self._mark = 0
        # Characters of the current unit already sent, unchanged; while plain words
        # come (`_PLAIN`), not kept: the unit's length less the unsent word's.
        self._sent = 0
        self._unsent = ""  # the rest of the current unit, while nothing is held
        self._held_from: int | None = None  # where the current unit must start waiting
        # The current unit starts inside an attribute list a forced cut left open, and
        # its first line is not all sent: a `}` there is an opener (`sendable`).
        self._in_list = False
        self._fast = _SLOW if monitor else _PLAIN
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._state: StreamState = "open"
        self._taking = not monitor  # open, and not in shadow mode

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every change made so far, as `Sanitizer.run()` reports them."""
        return tuple(self._findings)

    @property
    def held(self) -> int:
        """Characters received but not sent yet (in shadow mode: none)."""
        return 0 if self._monitor else self._held()

    @property
    def most_held(self) -> int:
        """The most characters held back at once, after any chunk."""
        return max(self._most_held, self._held())

    def _held(self) -> int:
        if self._fast == _PLAIN:
            return len(self._unsent)
        return self._unit_length() - self._sent

    def _unit_length(self) -> int:
        return self._length + self._mark - self._room

    def openers(self) -> tuple[int, int]:
        """How many `[` and `<` the unit still arriving holds (what its cost hangs on)."""
        pending = self._segmenter.pending + "".join(self._mid_line)
        return pending.count("["), pending.count("<")

    def settles_at_most(self, added: int, line_ends: int = 2) -> int:
        """The most characters the next `feed` of `added` characters holding at most
        `line_ends` line ends can settle: 0 when such a chunk cannot complete a unit,
        else the length of the unit it may complete. What a caller that must not block
        (an event loop) reads to decide where to run the feed."""
        if line_ends == 0 and added <= self._room:
            return 0  # it only adds to the current line (`feed`'s common case)
        segmenter = self._segmenter
        waiting = sum(map(len, self._mid_line))
        if waiting:  # (pushed with the chunk: the lines waiting may end the unit too)
            return segmenter.length + waiting + added
        return segmenter.length + added if segmenter.may_cut(added, line_ends) else 0

    def feed(self, chunk: str) -> str:  # noqa: C901, PLR0911  (per chunk: a call costs more)
        """Take the next chunk; return the text now settled and safe to send."""
        # The common chunks, in a few steps whatever the unit holds: those that only
        # add to the current line, and either add plain words to a unit nothing holds
        # (sent up to the last space, as `sendable` would) or add to a held one.
        fast = self._fast
        if fast == _HELD:
            if isinstance(chunk, str) and "\n" not in chunk and (size := len(chunk)) <= self._room:
                self._room -= size
                self._mid_line.append(chunk)
                return ""
        elif fast == _PLAIN and isinstance(chunk, str) and (size := len(chunk)) <= self._room:
            if _COMPILED:
                cut = _plain_cut(chunk, self._roles)
                if cut >= 0:
                    return self._plain(chunk, size, cut)
            elif chunk.isalpha():  # letters: no space, no trigger
                self._room -= size
                self._mid_line.append(chunk)
                self._unsent += chunk
                return ""
            elif self._not_plain.isdisjoint(chunk):  # words on one line
                self._room -= size
                self._mid_line.append(chunk)
                words, space, rest = chunk.rpartition(" ")
                if not space:
                    self._unsent += chunk
                    return ""
                word = self._unsent  # what was held after the last chunk
                if len(word) > self._most_held:  # noqa: PLR1730  (a call, per chunk)
                    self._most_held = len(word)
                self._unsent = rest
                return f"{word}{words} "
            elif self._triggers.isdisjoint(chunk):  # words across a tab or line end
                cut = max(chunk.rfind(" "), chunk.rfind("\t"), chunk.rfind("\n")) + 1
                return self._plain(chunk, size, cut)
        return self._take(chunk)

    def _plain(self, chunk: str, size: int, cut: int) -> str:
        """`feed` for plain words (`_plain_cut`): send the unsent word and `chunk` up to
        `cut`; the rest is the word now unsent."""
        self._room -= size
        self._mid_line.append(chunk)
        if cut == 0:
            self._unsent += chunk
            return ""
        word = self._unsent
        if len(word) > self._most_held:  # noqa: PLR1730
            self._most_held = len(word)
        self._unsent = chunk[cut:]
        return word + chunk[:cut]

    def _take(self, chunk: str) -> str:
        """`feed` for any other chunk, and for a stream not open or in shadow mode."""
        if self._taking and isinstance(chunk, str):
            try:
                return self._feed(chunk)
            except Exception as exc:
                raise self._broken(exc) from exc
        if not isinstance(chunk, str):
            raise TypeError(f"feed() takes str, not {type(chunk).__name__}; use feed_bytes()")
        if self._state == "closed" or (self._state == "broken" and not self._monitor):
            raise SanitizeError(f"the stream is {self._state}; start a new one")
        if self._monitor:
            self._shadow(chunk)
            return chunk
        try:
            return self._feed(chunk)
        except Exception as exc:
            raise self._broken(exc) from exc

    def feed_bytes(self, chunk: bytes) -> str:
        """Take UTF-8 bytes, cut anywhere (even inside a character)."""
        return self.feed(self._decoder.decode(chunk))

    def close(self) -> str:
        """End the reply: settle what is held (an unfinished construct is neutralised)."""
        out = self.feed(self._decoder.decode(b"", final=True))
        if self._monitor:
            self._shadow(None)
        else:
            try:
                out += self._finish()
            except Exception as exc:
                raise self._broken(exc) from exc
        broken = self._state == "broken"
        self._state, self._taking, self._fast = "closed", False, _SLOW
        if self._on_end is not None and not broken:
            self._on_end(self, None)
        return out

    def _shadow(self, chunk: str | None) -> None:
        """Shadow mode: run the stream on `chunk` (None: its end), its output unused."""
        if self._state != "open":
            return
        try:
            if chunk is None:
                self._finish()
            else:
                self._feed(chunk)
        except Exception as exc:
            self._broken(exc)

    def _broken(self, exc: Exception) -> Exception:
        self._state, self._taking, self._fast = "broken", False, _SLOW
        if not isinstance(exc, RenderSafeError):
            what = exception_text(exc)
            exc = SanitizeError(f"internal error while sanitising a stream: {what}")
        if self._on_end is not None:
            self._on_end(self, exc)
        return exc

    def _feed(self, chunk: str) -> str:
        # Work per chunk is the chunk's: the text held is never read again until its
        # unit ends. Between two calls here the hold-back only grew (`feed`), so its
        # peak is taken here (and when read).
        length = self._length + self._mark - self._room  # `_unit_length()`
        held = len(self._unsent) if self._fast == _PLAIN else length - self._sent
        if held > self._most_held:  # noqa: PLR1730  (max() costs a call, per chunk)
            self._most_held = held
        self._length, self._sent = length, length - held
        text = chunk
        if self._mid_line:  # one push for what waited and the chunk
            self._mid_line.append(chunk)
            text = "".join(self._mid_line)
            self._mid_line.clear()
        segmenter = self._segmenter
        units = segmenter.push(text)
        self._length = segmenter.length
        if units:
            out = self._released(held, units) + self._send_settled_prefix(None)
        else:
            out = self._send_settled_prefix(chunk)
        held = self._length - self._sent
        if held > self._most_held:  # noqa: PLR1730
            self._most_held = held
        # What the next chunks may add unpushed: to a held unit, its current line
        # (the first character of a line decides a cut); to plain words, the unit.
        self._room = segmenter.room
        if self._taking:
            if self._held_from is not None:
                self._fast = _HELD
            elif not self._in_list and self._triggers.isdisjoint(self._unsent):
                self._fast = _PLAIN
                self._room = max(0, segmenter.limit - self._length)
            else:
                self._fast = _SLOW
        self._mark = self._room
        return out

    def _finish(self) -> str:
        """Settle what is left at the end of the reply: the lines waiting for the
        segmenter too. They are plain words, but a unit whose risky part was sent
        (nothing in the words after it held) ends at a blank line among them, as a
        one-shot run cuts it there: each unit is settled in turn, and what was sent of
        it must come out unchanged (`_settle`)."""
        held = self._held()
        self._sent = self._unit_length() - held
        self._length, self._room, self._mark, self._fast = 0, 0, 0, _SLOW
        self._most_held = max(self._most_held, held)
        waiting = "".join(self._mid_line)
        self._mid_line.clear()
        units = self._segmenter.push(waiting) if waiting else []
        return self._released(held, units + self._segmenter.finish())

    def _released(self, held: int, units: list[Unit]) -> str:
        """Settle `units`, releasing the `held` characters that waited for them."""
        if held > 0 and units:
            METRICS.held(held)
        return self._settle(units)

    def _settle(self, units: list[Unit]) -> str:
        out = []
        for unit in units:
            settled = self._units.settle(unit, self._carry, self._sent_text, self._context)
            if self._sent <= len(unit.text):
                if not settled.text.startswith(unit.text[: self._sent]):
                    raise SanitizeError("a settled unit changed text already sent")
                out.append(settled.text[self._sent :])
                self._sent = 0
            else:
                # A forced cut fell inside text sent already (sent up to the last
                # space; cut at a line start before it): the rest stays sent.
                if settled.text != unit.text:
                    raise SanitizeError("a settled unit changed text already sent")
                self._sent -= len(unit.text)
            findings = settled.findings
            if self._monitor:
                findings = tuple(f.model_copy(update={"enforced": False}) for f in findings)
            self._findings.extend(findings)
            if self._on_finding is not None:
                for finding in findings:
                    self._on_finding(finding)
            self._carry = settled.carry
            self._in_list = settled.carry.in_list
            self._held_from, self._unsent = None, ""
        return "".join(out)

    def _send_settled_prefix(self, chunk: str | None) -> str:
        """Send the current unit's text up to where it could first be edited.

        That is the first opener (`[`, `<`, an `!` before `[`), or the start of a
        complete word a renderer could link; and never the last word, which may
        still grow into a URL. Past that point the unit waits until it ends.
        `chunk` is the text just added to the same unit (None: start afresh).
        """
        if self._held_from is not None:
            return ""
        if chunk is None:
            self._unsent = self._segmenter.pending[self._sent :]
        else:
            self._unsent += chunk
        unsent = self._unsent
        prefix = self._segmenter.prefix
        in_list = self._in_list
        limit, held = sendable(unsent, final=False, hold=self._hold, prefix=prefix, in_list=in_list)
        if in_list and line_end_after(unsent, 0, limit) < limit:
            self._in_list = False
        if held:
            self._held_from = self._sent + limit
        self._sent += limit
        self._unsent = unsent[limit:]
        return unsent[:limit]
