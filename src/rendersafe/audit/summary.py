"""Read an audit file back and count what it holds: `rendersafe audit summary`.

A line that does not parse is skipped with a warning naming its line; a partial last
line (a writer that crashed mid-write) is expected and said so. Records the log could
not write (a full disk) are counted by the `lost` records it wrote when it could again:
the summary's "lost records" line.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .record import AuditRecord

__all__ = ["Summary", "count_rows", "read_records", "summarise"]

TOP = 10  # rows of a "top" list the command line shows


@dataclass
class Summary:
    """Counts over the records of one audit file."""

    records: int = 0
    skipped: list[str] = field(default_factory=list)  # one warning per skipped line
    events: Counter[str] = field(default_factory=Counter)
    hosts: Counter[str] = field(default_factory=Counter)
    constructs: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    days: Counter[str] = field(default_factory=Counter)
    lost: int = 0  # records the log could not write, as its `lost` records count them

    def add(self, record: AuditRecord) -> None:
        """Count one record."""
        self.records += 1
        self.lost += record.lost or 0
        self.events[record.event] += 1
        self.days[record.time.date().isoformat()] += 1
        if record.event == "finding":
            self.hosts[record.host or "(no host)"] += 1
            self.constructs[record.kind or "?"] += 1
            self.reasons.update(record.reasons)

    def as_json(self) -> dict[str, Any]:
        """The counts, for `--json`."""
        return {
            "records": self.records,
            "skipped": len(self.skipped),
            "lost": self.lost,
            "events": dict(self.events),
            "top_hosts": dict(self.hosts.most_common(TOP)),
            "hosts": dict(self.hosts),
            "constructs": dict(self.constructs),
            "reasons": dict(self.reasons),
            "days": dict(sorted(self.days.items())),
        }

    def table(self) -> str:
        """The counts as a readable table."""
        lines = [f"{self.records} records ({_counts(self.events)}), {len(self.skipped)} skipped"]
        if self.lost:
            lines.append(f"lost records: {self.lost} (not written: the log could not be written)")
        top_hosts = Counter(dict(self.hosts.most_common(TOP)))
        days = Counter(dict(sorted(self.days.items())))
        for title, counter in (
            ("top hosts", top_hosts),
            ("constructs", self.constructs),
            ("reasons", self.reasons),
            ("days", days),
        ):
            lines += ["", title, *_rows(counter, sort=title != "days")]
        return "\n".join(lines) + "\n"


def read_records(path: Path) -> Iterator[tuple[int, AuditRecord | str]]:
    """Each line's number and its record, or why it was skipped."""
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            try:
                yield number, AuditRecord.model_validate(json.loads(raw))
            except (ValueError, ValidationError) as exc:
                partial = not raw.endswith(b"\n")
                why = "a partial last line (a write cut short)" if partial else _why(exc)
                yield number, f"{path}:{number}: skipped {why}"


def summarise(path: Path, since: datetime | None = None) -> Summary:
    """Count the records of `path` (from `since` on, if given)."""
    summary = Summary()
    for _, item in read_records(path):
        if isinstance(item, str):
            summary.skipped.append(item)
        elif since is None or item.time >= since:
            summary.add(item)
    return summary


def count_rows(items: Iterable[tuple[str, int]], *, count_width: int = 8) -> list[str]:
    """One indented row per (name, count), names padded to the longest: the rows of
    every count table the command line prints (this summary's and the scan report's)."""
    rows = list(items)
    if not rows:
        return ["  (none)"]
    width = max(len(name) for name, _ in rows)
    return [f"  {name:<{width}}  {count:>{count_width}}" for name, count in rows]


def _why(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return f"a line that is not an audit record ({exc.error_count()} errors)"
    return f"a line that is not JSON ({exc})"


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{count} {name}" for name, count in counter.most_common()) or "none"


def _rows(counter: Counter[str], *, sort: bool) -> list[str]:
    return count_rows(counter.most_common() if sort else counter.items(), count_width=7)
