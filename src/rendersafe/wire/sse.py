"""Server-sent events: read events from a body cut anywhere, write them back.

An event is its lines up to a blank line (`\\n`, `\\r\\n` or `\\r` line ends). Fields
other than `data` (`event`, `id`, `retry`, comments) are kept in place; an event the
dialect leaves alone is written back byte for byte.
"""

from __future__ import annotations

import re

from ..errors import FormatError

__all__ = ["MAX_PENDING", "SseEvent", "SseReader"]

_EOL = re.compile(r"\r\n|\r|\n")
# An event longer than this is not a chat delta: refuse it rather than hold it.
MAX_PENDING = 4 * 1024 * 1024


class SseEvent:
    """One event: its lines without line ends, and its text as received ("" if made here)."""

    __slots__ = ("_data", "eol", "lines", "raw")

    def __init__(self, lines: list[str], eol: str = "\n", raw: str = "") -> None:
        self.lines = lines
        self.eol = eol
        self.raw = raw
        self._data: str | bool | None = False  # not read yet

    def __repr__(self) -> str:
        return f"SseEvent({self.lines!r})"

    @property
    def data(self) -> str | None:
        """The `data` lines joined by `\\n`, or None when there are none."""
        if self._data is False:
            if len(self.lines) == 1 and self.lines[0].startswith("data: "):
                self._data = self.lines[0][6:]  # the usual event: one data line
                return self._data
            values = [value for name, value in map(_split, self.lines) if name == "data"]
            self._data = "\n".join(values) if values else None
        return self._data  # type: ignore[return-value]

    def with_data(self, data: str) -> SseEvent:
        """This event with its data replaced (at the first data line's place)."""
        lines: list[str] = []
        placed = False
        for line in self.lines:
            if _split(line)[0] != "data":
                lines.append(line)
            elif not placed:
                lines.extend(f"data: {part}" for part in data.split("\n"))
                placed = True
        return SseEvent(lines, self.eol)

    def encode(self) -> str:
        """The event as text, ending with its blank line."""
        if self.raw:
            return self.raw
        return "".join(line + self.eol for line in self.lines) + self.eol


def _split(line: str) -> tuple[str, str]:
    name, colon, value = line.partition(":")
    if not colon:
        return line, ""
    return name, value[1:] if value.startswith(" ") else value


class SseReader:
    """Cuts text into events; text may be fed in pieces cut anywhere."""

    def __init__(self) -> None:
        self._buffer = ""
        self._lines: list[str] = []
        self._raw: list[str] = []
        self._eol: str | None = None

    @property
    def idle(self) -> bool:
        """Is no part of an event held?"""
        return not self._buffer and not self._lines

    @property
    def held(self) -> str:
        """The text of the event still arriving."""
        return "".join(self._raw) + self._buffer if self._raw else self._buffer

    def feed(self, text: str) -> list[SseEvent]:
        """Take more text; return the events it completed."""
        buffer = self._buffer + text
        events = self._fast(buffer)
        if events is None:
            events = self._slow(buffer)
        if len(self._buffer) + sum(map(len, self._raw)) > MAX_PENDING:
            raise FormatError(f"an event longer than {MAX_PENDING} characters")
        return events

    def _fast(self, buffer: str) -> list[SseEvent] | None:
        """The usual stream (`\\n` line ends, one blank line between events) cut at
        once; None when anything else is in the way."""
        if self._lines or "\r" in buffer:
            return None
        parts = buffer.split("\n\n")
        self._buffer = parts.pop()
        events = []
        for part in parts:
            if not part or part[0] == "\n":
                self._buffer = buffer  # a blank line more: the careful way
                return None
            events.append(SseEvent(part.split("\n"), "\n", part + "\n\n"))
        return events

    def _slow(self, buffer: str) -> list[SseEvent]:
        pos, events = 0, []
        while (end := _EOL.search(buffer, pos)) is not None:
            if end.group() == "\r" and end.end() == len(buffer):
                break  # a "\r\n" may be cut after its "\r"
            line = buffer[pos : end.start()]
            self._raw.append(buffer[pos : end.end()])
            pos = end.end()
            if line:
                self._lines.append(line)
                self._eol = self._eol or end.group()
            else:
                events.append(self._event())
        self._buffer = buffer[pos:]
        return events

    def close(self) -> list[SseEvent]:
        """The last event, if the body ended inside one (a client may still read it)."""
        if self._buffer:
            self._lines.append(self._buffer)
            self._raw.append(self._buffer)
            self._buffer = ""
        if not self._lines:
            return []
        event = self._event()
        event.raw = ""  # it is written back whole, with its blank line
        return [event]

    def _event(self) -> SseEvent:
        event = SseEvent(self._lines, self._eol or "\n", "".join(self._raw))
        self._lines, self._raw = [], []
        return event
