"""Place a pass's notes in the whole reply: line, column and offsets of each finding."""

from __future__ import annotations

from ..engine.carry import Carry
from ..engine.source import Normalised, SourceText
from ..engine.state import Note
from ..findings import Finding
from ..urls import ParsedUrl, redact, redact_host
from .segment import Unit

__all__ = ["Placement"]


class Placement:
    """Turns a pass's notes into findings placed in the whole reply."""

    def __init__(self, source: SourceText, normal: Normalised, unit: Unit, carry: Carry) -> None:
        self.source = source
        self.normal = normal
        self.unit = unit
        self.carry = carry
        self.prefix_lines = unit.prefix.count("\n")
        self.prefix_length = len(unit.prefix)

    def finding(self, note: Note, context: dict[str, str], recheck: bool) -> Finding:
        line = self.source.line_of(note.start)
        column = note.start - self.source.starts[line] + 1
        unit_line = line - self.prefix_lines
        if unit_line == 0:
            column += self.carry.column
        start = self.normal.offset(note.start) - self.prefix_length + self.unit.start
        end = self.normal.offset(note.end) - self.prefix_length + self.unit.start
        return Finding(
            kind=note.construct,
            action=note.action,
            reasons=note.reasons,
            line=self.carry.line + unit_line + 1,
            column=column,
            start=start,
            end=end,
            host=redact_host(note.host) if note.host else note.host,
            url=redact(note.url.url) if note.url is not None else None,
            full_url=_full(note.url.url) if note.url is not None else None,
            detail=note.detail or (note.url.source if note.url is not None else None),
            detector=note.detector,
            recheck=recheck,
            context=context,
        )


def _full(url: ParsedUrl) -> str:
    return url.href if url.href is not None else url.raw
